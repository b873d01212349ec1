import { describe, expect, it } from 'vitest';
import { lostWakeOf, withTokenClaimed } from '../../../functions/core/loop/park-token.js';
import { changeOf } from '../../../functions/core/loop/records.js';
import type { TaskRecord } from '../../../functions/core/ports/task-store.js';
import { ALICE, harnessWith } from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';

const parkedTask = async (): Promise<TaskRecord> => {
  const { harness } = harnessWith([{ text: 'Parked.' }]);
  const record = await harness.start(textMessage('hi'), ALICE);
  return { ...record, loop: { ...record.loop, parkToken: 'token-1' } };
};

describe('a claimed token survives its claim', () => {
  it('is kept as claimed when a waker takes it, and is the wake a crash may have lost', async () => {
    const parked = await parkedTask();
    expect(lostWakeOf(parked)).toBeUndefined();

    const { change, token } = withTokenClaimed(changeOf(parked));
    expect(token).toBe('token-1');
    expect(change.record.loop).toMatchObject({ parkToken: null, claimedToken: 'token-1' });
    expect(lostWakeOf(change.record)).toEqual({
      action: 'resume',
      token: 'token-1',
      taskId: parked.task.id,
      generation: parked.loop.generation,
    });
  });

  it('is nothing to resend once the task is parked again, on a new token', async () => {
    const parked = await parkedTask();
    const claimed = withTokenClaimed(changeOf(parked)).change.record;
    const parkedAgain = { ...claimed, loop: { ...claimed.loop, parkToken: 'token-2' } };
    expect(lostWakeOf(parkedAgain)).toBeUndefined();
  });

  it("is spent by the resumed execution's first write, so no later write carries it", async () => {
    const { harness } = harnessWith([{ text: 'Parked.' }, { text: 'Read it.' }]);
    const parked = await harness.start(textMessage('hi'), ALICE);
    const before = harness.store.commits.length;

    await harness.send(parked.task.id, textMessage('and this'), ALICE);

    const written = harness.store.commits
      .slice(before)
      .flatMap(({ result }) => (result.record === undefined ? [] : [result.record.loop]));
    // The message's commit claims the token and keeps it; the turn it woke drops it.
    expect(written[0]).toMatchObject({ parkToken: null });
    expect(written[0]?.claimedToken).not.toBeNull();
    expect(written.slice(1).every((loop) => loop.claimedToken === null)).toBe(true);
    expect((await harness.task(parked.task.id)).loop.claimedToken).toBeNull();
  });
});
