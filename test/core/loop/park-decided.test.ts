import { describe, expect, it, vi } from 'vitest';
import { requestCompletion } from '../../../functions/core/intake/control.js';
import { receiveMessage } from '../../../functions/core/intake/receive-message.js';
import { startTask } from '../../../functions/core/intake/start-task.js';
import { park } from '../../../functions/core/loop/park.js';
import type { ParkRoute, StepResult } from '../../../functions/core/loop/route.schema.js';
import { takeTurn } from '../../../functions/core/loop/take-turn.js';
import { ALICE, harnessWith } from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';

const parkRouteOf = (step: StepResult): ParkRoute => {
  if (step.route.next !== 'park') throw new Error(`expected a park, got ${step.route.next}`);
  return step.route;
};

/** A conversation whose first turn has ended (answered, nothing waiting), not yet parked. */
const turnEnded = async (replies = [{ text: 'Hello Alice.' }, { text: 'Again.' }]) => {
  const { harness } = harnessWith(replies);
  const { deps, store } = harness;
  const { record } = await startTask(deps, { message: textMessage('hi'), sender: ALICE });
  const taskId = record.task.id;
  const step = await takeTurn(deps, { taskId, generation: 1, turn: 0 });
  const reads = {
    record: () => store.recordReads.get(taskId) ?? 0,
    inbox: vi.spyOn(store, 'readInbox'),
  };
  reads.inbox.mockClear();
  return { deps, store, taskId, step, route: parkRouteOf(step), reads };
};

/**
 * A park the turn decided on (`decidedOn`: the version the turn left and the inbox seq it read)
 * commits its token without reading the task or its inbox; anything that changed or came since
 * refuses that commit, and the park then reads and decides as it always did.
 */
describe('a park decided by the turn', () => {
  it('commits the token with one write and no read when nothing came since, and a message then wakes it', async () => {
    const { deps, store, taskId, step, route, reads } = await turnEnded();
    const turned = (await store.get(taskId))!;
    expect(route.decidedOn).toEqual({ version: turned.version, inboxCount: turned.inboxCount });
    const [recordReads, commits] = [reads.record(), store.commits.length];

    expect(await park(deps, step.ref, 'token-1', route.decidedOn)).toEqual({ wakeNow: false });

    expect(reads.record() - recordReads).toBe(0);
    expect(reads.inbox).not.toHaveBeenCalled();
    expect(store.commits.length - commits).toBe(1);
    const parked = (await store.get(taskId))!;
    expect(parked).toEqual({
      ...turned,
      version: turned.version + 1,
      loop: { ...turned.loop, parkToken: 'token-1' },
    });
    const receipt = await receiveMessage(deps, {
      taskId,
      message: textMessage('more'),
      sender: ALICE,
    });
    expect(receipt).toMatchObject({ accepted: true, wake: { action: 'resume', token: 'token-1' } });
  });

  it('is refused for a message that came after the turn decided: the park reads, sees it, and wakes at once', async () => {
    const { deps, store, taskId, step, route } = await turnEnded();
    const raced = await receiveMessage(deps, {
      taskId,
      message: textMessage('one more thing'),
      sender: ALICE,
    });
    // Not parked yet: the message waits for the park to see it.
    expect(raced).toMatchObject({ accepted: true, wake: { action: 'ensure-running' } });

    expect(await park(deps, step.ref, 'token-1', route.decidedOn)).toEqual({ wakeNow: true });

    const after = (await store.get(taskId))!;
    expect(after.loop.parkToken).toBeNull();
    expect((await store.readInbox(taskId)).map((item) => item.text)).toEqual(['one more thing']);
  });

  it('is refused for a change to the task after the turn (a completion request): the park reads and wakes for it', async () => {
    const { deps, store, taskId, step, route } = await turnEnded();
    await requestCompletion(deps, { taskId, participantId: ALICE, reason: 'done' });

    expect(await park(deps, step.ref, 'token-1', route.decidedOn)).toEqual({ wakeNow: true });
    expect((await store.get(taskId))?.loop.parkToken).toBeNull();
  });

  it('retried with the same token after its commit stays parked, and writes nothing more', async () => {
    const { deps, store, taskId, step, route } = await turnEnded();
    await park(deps, step.ref, 'token-1', route.decidedOn);
    const [parked, commits] = [(await store.get(taskId))!, store.commits.length];

    expect(await park(deps, step.ref, 'token-1', route.decidedOn)).toEqual({ wakeNow: false });

    expect(store.commits.length).toBe(commits);
    expect(await store.get(taskId)).toEqual(parked);
  });

  it('is not offered by a turn that leaves unread work in the inbox', async () => {
    const { harness } = harnessWith([{ text: 'Read the first twenty.' }]);
    const { deps, store } = harness;
    const { record } = await startTask(deps, { message: textMessage('m0'), sender: ALICE });
    const taskId = record.task.id;
    // The first message is folded by the creation; twenty-two wait in the inbox.
    for (let index = 1; index <= 22; index++) {
      await receiveMessage(deps, { taskId, message: textMessage(`m${index}`), sender: ALICE });
    }

    // One drain folds at most twenty items: two are left for the next turn.
    const step = await takeTurn(deps, { taskId, generation: 1, turn: 0 });
    const route = parkRouteOf(step);
    expect(route.decidedOn).toBeUndefined();
    expect(await store.readInbox(taskId)).toHaveLength(2);
    expect(await park(deps, step.ref, 'token-1', route.decidedOn)).toEqual({ wakeNow: true });
  });
});
