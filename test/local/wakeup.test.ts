import { describe, expect, it } from 'vitest';
import { Wakeup } from '../../functions/local/wakeup.js';

const settledWithin = async (promise: Promise<void>, ms: number) =>
  Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms)),
  ]);

describe('a wait another part of the loop may end', () => {
  it('ends after its time, or at once when woken', async () => {
    const wakeup = new Wakeup();
    expect(await settledWithin(wakeup.wait(10), 200)).toBe(true);
    const long = wakeup.wait(60_000);
    wakeup.wake();
    expect(await settledWithin(long, 50)).toBe(true);
  });

  it('without a time waits for a wake, and keeps no wake that came while nobody waited', async () => {
    const wakeup = new Wakeup();
    wakeup.wake();
    const untimed = wakeup.wait();
    expect(await settledWithin(untimed, 50)).toBe(false);
    wakeup.wake();
    expect(await settledWithin(untimed, 50)).toBe(true);
  });
});
