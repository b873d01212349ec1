import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS } from '../../../functions/local/stepfunctions/timers.js';
import { TokenRegistry } from '../../../functions/local/stepfunctions/token-registry.js';

const DAY_MS = 24 * 60 * 60 * 1000;

const rejection = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
};

describe('TokenRegistry', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves a parked token with the success output', async () => {
    const registry = new TokenRegistry();
    const parked = registry.park('t1', { heartbeatSeconds: 5, timeoutSeconds: 60 });
    registry.success('t1', { text: 'hi' });
    await expect(parked).resolves.toEqual({ text: 'hi' });
    expect(registry.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects with the failure error name and cause', async () => {
    const registry = new TokenRegistry();
    const parked = registry.park('t1');
    registry.failure('t1', 'User.Refused', 'not today');
    const error = await rejection(parked);
    expect([error.name, error.message]).toEqual(['User.Refused', 'not today']);
  });

  it('times out on a missed heartbeat; each heartbeat re-arms it', async () => {
    const registry = new TokenRegistry();
    const parked = registry.park('t1', { heartbeatSeconds: 10 });
    await vi.advanceTimersByTimeAsync(9_000);
    registry.heartbeat('t1');
    await vi.advanceTimersByTimeAsync(9_000);
    registry.heartbeat('t1');
    await vi.advanceTimersByTimeAsync(9_000);
    expect(registry.has('t1')).toBe(true);
    await vi.advanceTimersByTimeAsync(1_001);
    expect((await rejection(parked)).name).toBe('States.HeartbeatTimeout');
  });

  it('times out at TimeoutSeconds, counted from startedAtMs', async () => {
    const registry = new TokenRegistry();
    const parked = registry.park('t1', { timeoutSeconds: 10, startedAtMs: Date.now() - 9_000 });
    await vi.advanceTimersByTimeAsync(999);
    expect(registry.has('t1')).toBe(true);
    await vi.advanceTimersByTimeAsync(2);
    expect((await rejection(parked)).name).toBe('States.Timeout');
  });

  it('arms no timer beyond 24 days, and re-arms to reach a longer deadline', async () => {
    const registry = new TokenRegistry();
    const parked = registry.park('t1', { timeoutSeconds: (30 * DAY_MS) / 1000 });
    const delays = vi.getTimerCount();
    expect(delays).toBe(1);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS);
    expect(registry.has('t1')).toBe(true);
    await vi.advanceTimersByTimeAsync(30 * DAY_MS - MAX_TIMER_MS - 1);
    expect(registry.has('t1')).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect((await rejection(parked)).name).toBe('States.Timeout');
  });

  it('answers TaskDoesNotExist for an unknown token and TaskTimedOut for a closed one', async () => {
    const registry = new TokenRegistry();
    expect(() => registry.success('nope', {})).toThrow(
      expect.objectContaining({ name: 'TaskDoesNotExist' })
    );
    expect(() => registry.heartbeat('nope')).toThrow(
      expect.objectContaining({ name: 'TaskDoesNotExist' })
    );
    const parked = registry.park('t1', { timeoutSeconds: 1 });
    await vi.advanceTimersByTimeAsync(1_000);
    await rejection(parked);
    expect(() => registry.success('t1', {})).toThrow(
      expect.objectContaining({ name: 'TaskTimedOut' })
    );
  });

  it('cancels one execution’s tokens and closes with no timer left', async () => {
    const registry = new TokenRegistry();
    const a = registry.park('a', { executionArn: 'x', heartbeatSeconds: 5 });
    const b = registry.park('b', { executionArn: 'y', heartbeatSeconds: 5, timeoutSeconds: 50 });
    expect(registry.cancelExecution('x', new Error('stopped'))).toEqual(['a']);
    expect((await rejection(a)).message).toBe('stopped');
    expect(registry.has('b')).toBe(true);
    registry.close();
    expect((await rejection(b)).name).toBe('States.Aborted');
    expect(registry.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('uses unref()ed timers, so a parked token alone keeps no process alive', () => {
    vi.useRealTimers();
    const registry = new TokenRegistry();
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const parked = registry.park('t1', { heartbeatSeconds: 60, timeoutSeconds: 600 });
    const during = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    registry.close();
    parked.catch(() => {});
    expect(during).toBe(before);
  });
});
