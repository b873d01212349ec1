import type { AttributeValue, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { encodeTaskRecord, taskKey } from '../../../functions/adapters/dynamodb/item-codec.js';
import { receiveMessage } from '../../../functions/core/intake/receive-message.js';
import { startTask } from '../../../functions/core/intake/start-task.js';
import { changeOf } from '../../../functions/core/loop/records.js';
import { parkedForInput } from '../../../functions/core/loop/status.js';
import type { TaskRecord } from '../../../functions/core/ports/task-store.js';
import { stateName, stateOf } from '../../../functions/core/task/a2a-task.js';
import { runTask } from '../../../functions/core/testing/driver.js';
import { createStreamHandler } from '../../../functions/handlers/stream.js';
import { ALICE, STATES, view } from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';
import { inMemoryRuntime, lambdaContext } from '../support.js';

type Image = Record<string, AttributeValue>;

const image = (record: TaskRecord): Image =>
  encodeTaskRecord(record, record.version).item as unknown as Image;

let sequence = 1000;

/** A stream record as DynamoDB emits it for the task table (NEW_AND_OLD_IMAGES). */
const streamRecord = (
  before: TaskRecord | undefined,
  after: TaskRecord,
  overrides: { newImage?: Image; sequenceNumber?: string } = {}
): DynamoDBRecord => {
  const sequenceNumber = overrides.sequenceNumber ?? String(++sequence);
  return {
    eventID: `event-${sequenceNumber}`,
    eventName: before === undefined ? 'INSERT' : 'MODIFY',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    eventSourceARN:
      'arn:aws:dynamodb:us-east-1:000000000000:table/tiny-harness/stream/2024-01-01T00:00:00.000',
    dynamodb: {
      ApproximateCreationDateTime: 1_700_000_000,
      Keys: taskKey(after.task.id) as unknown as Image,
      NewImage: overrides.newImage ?? image(after),
      ...(before === undefined ? {} : { OldImage: image(before) }),
      SequenceNumber: sequenceNumber,
      SizeBytes: 1024,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
};

const spawn = {
  toolCalls: [{ name: 'spawn_subtask', arguments: { name: 'Research', goal: 'Find sources' } }],
};

/**
 * A parent conversation parked on a token with a delegated child on this harness, set up
 * through the in-process harness's ports. The child then ran to completion; every change of its
 * record was captured as DynamoDB's stream would carry it, but none has reached the parent yet.
 */
const parentWithChild = async () => {
  const parts = inMemoryRuntime({
    replies: [spawn, { text: 'Waiting for the research.' }, { text: 'Found three sources.' }],
  });
  const { deps, store } = parts.harness;
  const changes: Array<{ before: TaskRecord | undefined; after: TaskRecord }> = [];
  store.onChange((before, after) => changes.push({ before, after }));

  const { record: parent } = await startTask(deps, {
    message: textMessage('write a report'),
    sender: ALICE,
  });
  const parked = await runTask(deps, parent.task.id);
  if (parked.kind !== 'parked') throw new Error(`the parent did not park: ${parked.kind}`);
  const childId = view(await parts.harness.task(parent.task.id)).extension.sub_tasks[0]?.task_id;
  if (childId === undefined) throw new Error('the parent has no child');
  const ended = await runTask(deps, childId);
  expect(ended).toEqual({ kind: 'ended', state: STATES.COMPLETED });

  /** The child's record write that moved it into `state`. */
  const changeTo = (state: string) => {
    const change = changes.find(
      ({ before, after }) =>
        after.task.id === childId &&
        before !== undefined &&
        stateName(stateOf(before.task)) !== state &&
        stateName(stateOf(after.task)) === state
    );
    if (change === undefined) throw new Error(`the child never moved to ${state}`);
    return change;
  };
  /**
   * The child parked for an approval, from the record its ending changed (WORKING): a change
   * that is not news, whose record write the stream carries like any other.
   */
  const parkedOnApproval = () => {
    const { before: working } = changeTo(STATES.COMPLETED);
    if (working === undefined) throw new Error('the child’s ending has no record before it');
    const ref = { taskId: childId, generation: working.loop.generation, turn: working.loop.turn };
    const parked = parkedForInput(
      changeOf(working),
      ref,
      'awaiting-approval',
      undefined,
      new Date().toISOString()
    );
    return { before: working, after: { ...parked.record, version: working.version + 1 } };
  };
  const handler = createStreamHandler(() => parts.runtime);
  const deliver = (...records: DynamoDBRecord[]) =>
    handler({ Records: records } satisfies DynamoDBStreamEvent, lambdaContext('StreamFunction'));
  const parentState = async () => {
    const record = await parts.harness.task(parent.task.id);
    return {
      record,
      row: view(record).extension.sub_tasks.find((row) => row.task_id === childId),
      events: await parts.harness.events.read(parent.task.id),
      inbox: await store.readInbox(parent.task.id),
    };
  };
  return {
    ...parts,
    parentId: parent.task.id,
    childId,
    token: parked.token,
    changes,
    changeTo,
    parkedOnApproval,
    deliver,
    parentState,
  };
};

describe('the stream handler (the stand-in)', () => {
  it("records a child's state change on the parent's row, and does not wake the parent for it", async () => {
    const { parkedOnApproval, deliver, parentState, executions, token } = await parentWithChild();
    const before = await parentState();
    // The child is WORKING from its creation, which took its description in.
    expect(before.row).toMatchObject({ state: STATES.WORKING });
    expect(before.record.loop.parkToken).toBe(token);

    const parked = parkedOnApproval();
    const response = await deliver(streamRecord(parked.before, parked.after));

    expect(response).toEqual({ batchItemFailures: [] });
    const after = await parentState();
    expect(after.row).toMatchObject({
      state: STATES.INPUT_REQUIRED,
      sub_state: 'awaiting-approval',
    });
    // The parent's updated Task went to its event log.
    expect(after.events.length).toBe(before.events.length + 1);
    expect(after.events.at(-1)?.event.kind).toBe('task');
    expect(executions.calls).toEqual([]);
    expect(after.record.loop.parkToken).toBe(token);
  });

  it("records a child's ending on the parent's row, leaves it a note and resumes the parent's execution with its token", async () => {
    const { changeTo, deliver, parentState, executions, token, childId, logs, parentId } =
      await parentWithChild();

    const completed = changeTo(STATES.COMPLETED);
    const response = await deliver(streamRecord(completed.before, completed.after));

    expect(response).toEqual({ batchItemFailures: [] });
    const after = await parentState();
    expect(after.row).toMatchObject({ state: STATES.COMPLETED });
    expect(executions.calls).toEqual([{ method: 'resume', token }]);
    // The token was claimed: nobody else can resume the same park.
    expect(after.record.loop.parkToken).toBeNull();
    expect(after.inbox.at(-1)).toMatchObject({
      kind: 'note',
      fromTaskId: childId,
      result: true,
      text: `Sub-task ${childId} is TASK_STATE_COMPLETED: Found three sources.`,
    });
    expect(logs().at(-1)).toMatchObject({ taskId: parentId, childId, wake: 'resume' });
  });

  it('reports a record that does not decode with its sequence number, and processes nothing after it', async () => {
    const { changeTo, deliver, parentState, executions, token, logs } = await parentWithChild();
    const completed = changeTo(STATES.COMPLETED);
    const good = streamRecord(completed.before, completed.after);
    const poisoned = streamRecord(completed.before, completed.after, {
      sequenceNumber: '500',
      newImage: { ...image(completed.after), task: { S: 'not json' } },
    });
    const before = await parentState();

    const response = await deliver(poisoned, good);

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: '500' }] });
    const after = await parentState();
    expect(after).toEqual(before);
    expect(executions.calls).toEqual([]);
    expect(logs().at(-1)).toMatchObject({
      level: 'error',
      sequenceNumber: '500',
      errorName: 'InvalidTaskRecordError',
    });

    // The event source retries from the failed record on; once it is gone the rest applies.
    expect(await deliver(good)).toEqual({ batchItemFailures: [] });
    expect(executions.calls).toEqual([{ method: 'resume', token }]);
  });

  it('changes nothing when a record is delivered again', async () => {
    const { changeTo, deliver, parentState, executions, token } = await parentWithChild();
    const completed = changeTo(STATES.COMPLETED);
    const record = streamRecord(completed.before, completed.after);
    await deliver(record);
    const once = await parentState();

    expect(await deliver(record)).toEqual({ batchItemFailures: [] });

    expect(await parentState()).toEqual(once);
    expect(executions.calls).toEqual([{ method: 'resume', token }]);
  });

  it('ends where it was, with no new event, note or wake, when a whole batch already applied is delivered again', async () => {
    const { changeTo, parkedOnApproval, deliver, parentState, executions, token } =
      await parentWithChild();
    const parked = parkedOnApproval();
    // Its ending then follows the park it approved.
    const ended = changeTo(STATES.COMPLETED).after;
    const batch = [
      streamRecord(parked.before, parked.after),
      streamRecord(parked.after, { ...ended, version: parked.after.version + 1 }),
    ];
    await deliver(...batch);
    const once = await parentState();

    expect(await deliver(...batch)).toEqual({ batchItemFailures: [] });

    // (The older record briefly puts the row back to INPUT_REQUIRED on the way: rows carry no child
    // version to refuse an older change with. The end state, events and wakes are unchanged.)
    const twice = await parentState();
    expect(twice.record.task).toEqual(once.record.task);
    expect(twice.row).toEqual(once.row);
    expect(twice.inbox).toEqual(once.inbox);
    expect(twice.events).toEqual(once.events);
    expect(executions.calls).toEqual([{ method: 'resume', token }]);
  });

  it("answers the token of a released park, any task's: a wake whose taker died after its commit still lands", async () => {
    const { changes, deliver, executions, parentId, token, harness } = await parentWithChild();
    // A message claims the parked parent's token (its commit), and its sender dies before
    // answering the token: the stream carries the release.
    await receiveMessage(harness.deps, {
      taskId: parentId,
      message: textMessage('are you there?'),
      sender: ALICE,
    });
    const release = changes.find(
      ({ before, after }) =>
        after.task.id === parentId &&
        before?.loop.parkToken === token &&
        after.loop.parkToken === null
    );
    if (release === undefined) throw new Error('no release of the parent’s token');

    const response = await deliver(streamRecord(release.before, release.after));

    expect(response).toEqual({ batchItemFailures: [] });
    expect(executions.resumed).toEqual([token]);
  });

  it("ignores a task record without a parent on this harness and a change that is not the child's state", async () => {
    const { changes, deliver, parentState, executions, childId, parentId } =
      await parentWithChild();
    const before = await parentState();
    const parentWrite = changes.find(
      ({ before, after }) => before !== undefined && after.task.id === parentId
    )!;
    // A write to the child that leaves its state as it is (a park token stored, say).
    const childRecord = changes.findLast(({ after }) => after.task.id === childId)!.after;
    const childBookkeeping = {
      before: childRecord,
      after: { ...childRecord, version: childRecord.version + 1 },
    };

    const response = await deliver(
      streamRecord(parentWrite.before, parentWrite.after),
      streamRecord(childBookkeeping.before, childBookkeeping.after),
      // A REMOVE carries no new image.
      { ...streamRecord(undefined, parentWrite.after), eventName: 'REMOVE', dynamodb: {} }
    );

    expect(response).toEqual({ batchItemFailures: [] });
    expect(await parentState()).toEqual(before);
    expect(executions.calls).toEqual([]);
  });
});
