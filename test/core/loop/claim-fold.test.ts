import { TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { receiveMessage } from '../../../functions/core/intake/receive-message.js';
import { startTask } from '../../../functions/core/intake/start-task.js';
import { takeTurn } from '../../../functions/core/loop/take-turn.js';
import type { TaskRecord } from '../../../functions/core/ports/task-store.js';
import { stateOf } from '../../../functions/core/task/a2a-task.js';
import { ALICE, BOB, harnessWith, sharedWithBob } from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';

type Harness = ReturnType<typeof harnessWith>['harness'];

/** What one operation read and committed on the observed store, and its commits. */
const counted = async <T>(harness: Harness, taskId: string, operation: () => Promise<T>) => {
  const { store } = harness;
  const reads = store.recordReads.get(taskId) ?? 0;
  const before = store.commits.length;
  const result = await operation();
  const commits = store.commits.slice(before);
  return { result, reads: (store.recordReads.get(taskId) ?? 0) - reads, commits };
};

const refOf = (record: TaskRecord) => ({
  taskId: record.task.id,
  generation: record.loop.generation,
  turn: record.loop.turn,
});

/** A message from Alice taken in, and the one commit that took it in (the claim's update). */
const claimOf = async (
  harness: Harness,
  taskId: string,
  message = textMessage('one more thing')
) => {
  const received = await counted(harness, taskId, () =>
    receiveMessage(harness.deps, { taskId, message, sender: ALICE })
  );
  expect(received.commits).toHaveLength(1);
  const [claim] = received.commits;
  if (claim?.commit.kind !== 'update') throw new Error('expected the claim’s update');
  return {
    message,
    receipt: received.result,
    commit: claim.commit,
    claimed: claim.result.record as TaskRecord,
  };
};

const historyTexts = async (harness: Harness, taskId: string) =>
  (await harness.store.readHistory(taskId)).flatMap((entry) =>
    entry.kind === 'participant_message' || entry.kind === 'note' ? [entry.text] : []
  );

/**
 * A message for the model to a parked conversation is folded into the transcript by the commit
 * that claims the task's token, when the drain of the turn it wakes would do just that: the turn
 * then commits once (its response), and the message has no inbox item.
 */
describe('the claim of a parked conversation', () => {
  it('folds the message into the transcript and sets the task WORKING; the turn it wakes commits once', async () => {
    const { harness, model } = harnessWith([{ text: 'Hello.' }, { text: 'Sure.' }]);
    const started = await harness.start(textMessage('hi'), ALICE);
    const taskId = started.task.id;
    expect(started.loop.parkToken).not.toBeNull();
    const { message, receipt, commit, claimed } = await claimOf(harness, taskId);
    expect(receipt).toMatchObject({
      accepted: true,
      duplicate: false,
      seq: 0,
      wake: { action: 'resume', token: started.loop.parkToken },
    });
    expect(commit.enqueue ?? []).toEqual([]);
    // Its id is taken in as seen: a resend is a duplicate, as an enqueued id's is.
    expect(commit.seen).toEqual([message.messageId]);
    expect(commit.history).toEqual([
      expect.objectContaining({
        kind: 'participant_message',
        messageId: message.messageId,
        participantId: ALICE,
        text: 'one more thing',
      }),
    ]);
    expect(stateOf(claimed.task)).toBe(TaskState.TASK_STATE_WORKING);
    expect(claimed.loop).toMatchObject({ parkToken: null, needsModel: true });
    expect(await harness.store.readInbox(taskId)).toEqual([]);
    expect(await harness.store.inboxSeqOf(taskId, message.messageId)).toBe(0);

    const turn = await counted(harness, taskId, () => takeTurn(harness.deps, refOf(claimed)));
    expect(turn.reads).toBe(1);
    expect(turn.commits).toHaveLength(1);
    expect(turn.result.route).toMatchObject({ next: 'park', subState: 'awaiting-next-message' });
    expect(model.requests[1]?.input.at(-1)).toMatchObject({
      role: 'user',
      text: `[${ALICE}] one more thing`,
    });
    // The response spent the claim: the token is not carried by the record's later writes.
    expect((await harness.store.get(taskId))?.loop.claimedToken).toBeNull();
    expect(await historyTexts(harness, taskId)).toEqual(['hi', 'one more thing']);

    // A resend of the same message is a duplicate and writes nothing.
    const again = await counted(harness, taskId, () =>
      receiveMessage(harness.deps, { taskId, message, sender: ALICE })
    );
    expect(again.result).toMatchObject({ accepted: true, duplicate: true });
    expect(again.commits.filter((one) => one.result.record !== undefined)).toEqual([]);
  });

  it("folds a watcher's message as the watcher's, like any participant's", async () => {
    const { harness, model } = harnessWith([{ text: 'Hello.' }, { text: 'Noted, Bob.' }]);
    const started = await sharedWithBob(harness, 'hi');
    const taskId = started.task.id;
    const message = textMessage('a word from Bob');
    const received = await counted(harness, taskId, () =>
      receiveMessage(harness.deps, { taskId, message, sender: BOB })
    );
    expect(received.result).toMatchObject({ accepted: true, seq: 0 });
    const [claim] = received.commits;
    if (claim?.commit.kind !== 'update') throw new Error('expected the claim’s update');
    expect(claim.commit.history).toEqual([
      expect.objectContaining({ kind: 'participant_message', participantId: BOB }),
    ]);
    await takeTurn(harness.deps, refOf(claim.result.record as TaskRecord));
    expect(model.requests[1]?.input.at(-1)).toMatchObject({ text: `[${BOB}] a word from Bob` });
  });

  it('leaves the message in the inbox, behind what waits there, for the drain to fold in order', async () => {
    const { harness } = harnessWith([{ text: 'Hello.' }, { text: 'Sure.' }]);
    const started = await harness.start(textMessage('hi'), ALICE);
    const taskId = started.task.id;
    // A note that does not wake the task waits in its inbox.
    await harness.store.commit({
      kind: 'guarded',
      taskId,
      unparked: false,
      enqueue: [{ kind: 'note', id: 'note-1', fromTaskId: 'child', text: 'noted', result: false }],
    });

    const { message, receipt, commit, claimed } = await claimOf(harness, taskId);
    expect(commit.enqueue).toEqual([expect.objectContaining({ id: message.messageId })]);
    expect(commit.history ?? []).toEqual([]);
    // The first message took no seq (its creation folded it), the note the first.
    expect(receipt).toMatchObject({ accepted: true, seq: 2 });
    expect(stateOf(claimed.task)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    // The drain folds both, in the order they came, and commits before the model's response.
    const turn = await counted(harness, taskId, () => takeTurn(harness.deps, refOf(claimed)));
    expect(turn.commits).toHaveLength(2);
    expect(await historyTexts(harness, taskId)).toEqual(['hi', 'noted', 'one more thing']);
    expect(await harness.store.readInbox(taskId)).toEqual([]);
  });

  it('leaves the message in the inbox when the store does not say the inbox with the record; the turn reads it', async () => {
    const { harness, model } = harnessWith([{ text: 'Hello.' }, { text: 'Sure.' }], {
      inboxOnRecord: false,
    });
    const started = await harness.start(textMessage('hi'), ALICE);
    const taskId = started.task.id;
    expect(started.inbox).toBeUndefined();
    const { message, commit, claimed } = await claimOf(harness, taskId);
    expect(commit.enqueue).toEqual([expect.objectContaining({ id: message.messageId })]);
    const turn = await counted(harness, taskId, () => takeTurn(harness.deps, refOf(claimed)));
    expect(turn.commits).toHaveLength(2);
    expect(model.requests[1]?.input.at(-1)).toMatchObject({ text: `[${ALICE}] one more thing` });
    expect(await harness.store.readInbox(taskId)).toEqual([]);
  });
});

/**
 * A new task's first message for the model is folded into the transcript by the creation itself:
 * the task is WORKING from its first commit, and its first turn commits once (the response).
 */
describe('the creation of a conversation', () => {
  it('folds its first message: WORKING, in the transcript, no inbox item, its id seen; the first turn commits once', async () => {
    const { harness, model } = harnessWith([{ text: 'Hello.' }]);
    const message = textMessage('hi');
    const created = await counted(harness, '', () =>
      startTask(harness.deps, { message, sender: ALICE })
    );
    const { record, inboxSeq } = created.result;
    const taskId = record.task.id;
    expect(created.commits).toHaveLength(1);
    const [creation] = created.commits;
    if (creation?.commit.kind !== 'create') throw new Error('expected the creation');
    expect(creation.commit.enqueue).toEqual([]);
    expect(creation.commit.seen).toEqual([message.messageId]);
    // The Task as created, then its move to WORKING: the events a first drain would have logged.
    expect(creation.commit.events?.map((event) => event.kind)).toEqual(['task', 'status_update']);
    expect(stateOf(record.task)).toBe(TaskState.TASK_STATE_WORKING);
    expect(inboxSeq).toBe(0);
    expect(await historyTexts(harness, taskId)).toEqual(['hi']);
    expect(await harness.store.readInbox(taskId)).toEqual([]);
    expect(await harness.store.inboxSeqOf(taskId, message.messageId)).toBe(0);
    // The generation's start stays pending until its execution writes: the response spends it.
    expect(record.loop.startPendingSince).not.toBeNull();

    const turn = await counted(harness, taskId, () => takeTurn(harness.deps, refOf(record)));
    expect(turn.commits).toHaveLength(1);
    expect(model.requests[0]?.input.at(-1)).toMatchObject({ text: `[${ALICE}] hi` });
    expect((await harness.store.get(taskId))?.loop.startPendingSince).toBeNull();

    // The same id again is a duplicate of the folded message.
    const again = await receiveMessage(harness.deps, { taskId, message, sender: ALICE });
    expect(again).toMatchObject({ accepted: true, duplicate: true });
  });

  it('folds nothing that does not go to the model: a start with no text stays SUBMITTED, its transcript empty', async () => {
    const { harness } = harnessWith([]);
    const { record } = await startTask(harness.deps, { message: textMessage(' '), sender: ALICE });
    expect(stateOf(record.task)).toBe(TaskState.TASK_STATE_SUBMITTED);
    expect(await historyTexts(harness, record.task.id)).toEqual([]);
  });
});
