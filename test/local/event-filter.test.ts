import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../cdk/app.js';
import { PUSH_FILTER, STREAM_FILTERS } from '../../cdk/constructs/stream-consumer.js';
import {
  budgetAttributes,
  encodeEvent,
  encodeHistoryEntry,
  encodeInboxItem,
  encodeTaskRecord,
  inboxIdSk,
  key,
  markerItem,
  taskKey,
} from '../../functions/adapters/dynamodb/item-codec.js';
import { encodeLogItem } from '../../functions/adapters/dynamodb/log-item.js';
import { ITEM_TYPE, SORT_KEY_VALUE } from '../../functions/adapters/dynamodb/table.js';
import { startTask } from '../../functions/core/intake/start-task.js';
import type { TaskRecord } from '../../functions/core/ports/task-store.js';
import { readExtension } from '../../functions/core/task/a2a-task.js';
import { runTask } from '../../functions/core/testing/driver.js';
import { InProcessHarness } from '../../functions/core/testing/in-process-harness.js';
import { ScriptedModel } from '../../functions/core/testing/scripted-model.js';
import {
  type FilterPattern,
  matchesPattern,
  passesFilters,
} from '../../functions/local/event-filter.js';
import { eventSourceMappings } from '../../functions/local/template-reader.js';
import { textMessage } from '../support/messages.js';

describe('the event filter syntax (the subset Lambda event filtering the stack uses)', () => {
  it('matches a literal among alternatives, and only an exact one', () => {
    const pattern: FilterPattern = { eventName: ['INSERT', 'MODIFY'] };
    expect(matchesPattern({ eventName: 'INSERT' }, pattern)).toBe(true);
    expect(matchesPattern({ eventName: 'MODIFY' }, pattern)).toBe(true);
    expect(matchesPattern({ eventName: 'REMOVE' }, pattern)).toBe(false);
    expect(matchesPattern({ eventName: 'insert' }, pattern)).toBe(false);
    expect(matchesPattern({}, pattern)).toBe(false);
    expect(matchesPattern({ size: 3 }, { size: [3, 4] })).toBe(true);
    expect(matchesPattern({ size: '3' }, { size: [3, 4] })).toBe(false);
  });

  it('matches exists: true on a present key and exists: false on an absent one', () => {
    const present: FilterPattern = { parent: [{ exists: true }] };
    const absent: FilterPattern = { parent: [{ exists: false }] };
    expect(matchesPattern({ parent: 'task-1' }, present)).toBe(true);
    expect(matchesPattern({}, present)).toBe(false);
    expect(matchesPattern({}, absent)).toBe(true);
    expect(matchesPattern({ parent: 'task-1' }, absent)).toBe(false);
  });

  it('matches a prefix on strings only', () => {
    const pattern: FilterPattern = { sk: [{ prefix: 'HIST#' }] };
    expect(matchesPattern({ sk: 'HIST#000000000001' }, pattern)).toBe(true);
    expect(matchesPattern({ sk: 'TASK' }, pattern)).toBe(false);
    expect(matchesPattern({ sk: 12 }, pattern)).toBe(false);
    expect(matchesPattern({}, pattern)).toBe(false);
  });

  it('matches anything-but, with one value or a list', () => {
    const one: FilterPattern = { state: [{ 'anything-but': 'TASK_STATE_WORKING' }] };
    const list: FilterPattern = {
      state: [{ 'anything-but': ['TASK_STATE_WORKING', 'TASK_STATE_SUBMITTED'] }],
    };
    expect(matchesPattern({ state: 'TASK_STATE_COMPLETED' }, one)).toBe(true);
    expect(matchesPattern({ state: 'TASK_STATE_WORKING' }, one)).toBe(false);
    expect(matchesPattern({ state: 'TASK_STATE_COMPLETED' }, list)).toBe(true);
    expect(matchesPattern({ state: 'TASK_STATE_SUBMITTED' }, list)).toBe(false);
  });

  it('matches nested objects key by key, every key required', () => {
    const pattern: FilterPattern = {
      dynamodb: { NewImage: { sk: { S: ['TASK'] }, parent_id: { S: [{ exists: true }] } } },
    };
    const image = (sk: unknown, parent: unknown) => ({
      dynamodb: { NewImage: { sk, parent_id: parent } },
    });
    expect(matchesPattern(image({ S: 'TASK' }, { S: 'task-1' }), pattern)).toBe(true);
    expect(matchesPattern(image({ S: 'TASK' }, { NULL: true }), pattern)).toBe(false);
    expect(matchesPattern(image({ S: 'HIST#1' }, { S: 'task-1' }), pattern)).toBe(false);
    expect(matchesPattern({ dynamodb: {} }, pattern)).toBe(false);
    expect(matchesPattern({ dynamodb: 'not an object' }, pattern)).toBe(false);
    expect(matchesPattern(null, pattern)).toBe(false);
  });

  it('passes a record any one of several filters matches (filters are OR-ed), and everything with none', () => {
    const filters: FilterPattern[] = [{ kind: ['a'] }, { kind: ['b'], extra: [{ exists: true }] }];
    expect(passesFilters({ kind: 'a' }, filters)).toBe(true);
    expect(passesFilters({ kind: 'b', extra: 1 }, filters)).toBe(true);
    expect(passesFilters({ kind: 'b' }, filters)).toBe(false);
    expect(passesFilters({ kind: 'c' }, filters)).toBe(false);
    expect(passesFilters({ kind: 'c' }, [])).toBe(true);
  });

  it('refuses a rule it does not implement rather than guessing', () => {
    expect(() => matchesPattern({ n: 5 }, { n: [{ numeric: ['>', 1] }] })).toThrow(
      /unsupported filter rule/
    );
  });
});

/** A parent and its delegated child on this harness, made through the core's own spawn path. */
const parentAndChild = async () => {
  const model = new ScriptedModel([
    { toolCalls: [{ name: 'spawn_subtask', arguments: { name: 'Research', goal: 'Find it' } }] },
    { text: 'Waiting.' },
    { text: 'Found it.' },
  ]);
  const harness = new InProcessHarness({ model });
  const records: Array<{ before: TaskRecord | undefined; after: TaskRecord }> = [];
  harness.store.onChange((before, after) => records.push({ before, after }));
  const { record: parent } = await startTask(harness.deps, {
    message: textMessage('report'),
    sender: 'alice',
  });
  await runTask(harness.deps, parent.task.id);
  const childId = readExtension((await harness.task(parent.task.id)).task).sub_tasks[0]!.task_id;
  await runTask(harness.deps, childId);
  const childWrite = records.find(
    (change) => change.before !== undefined && change.after.task.id === childId
  )!;
  const parentWrite = records.find(
    (change) => change.before !== undefined && change.after.task.id === parent.task.id
  )!;
  return { childId, parentId: parent.task.id, childWrite, parentWrite };
};

type Change = { before: TaskRecord | undefined; after: TaskRecord };

/** The stream record DynamoDB emits for an item write, as the event source mapping filters it. */
const record = (
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE',
  item: Record<string, unknown> | undefined,
  old?: Record<string, unknown>
) => ({
  eventName,
  eventSource: 'aws:dynamodb',
  dynamodb: {
    Keys: { pk: (item ?? old)?.pk, sk: (item ?? old)?.sk },
    ...(item === undefined ? {} : { NewImage: item }),
    ...(old === undefined ? {} : { OldImage: old }),
    SequenceNumber: '1',
  },
});

const taskWrite = ({ before, after }: Change) =>
  record(
    before === undefined ? 'INSERT' : 'MODIFY',
    encodeTaskRecord(after, after.version).item,
    before === undefined ? undefined : encodeTaskRecord(before, before.version).item
  );

describe("the stack's stream filter", () => {
  const filters = STREAM_FILTERS.map((filter) => JSON.parse(filter.pattern) as FilterPattern);

  it("passes a child's MODIFY and its INSERT", async () => {
    const { childWrite } = await parentAndChild();
    expect(passesFilters(taskWrite(childWrite), filters)).toBe(true);
    expect(passesFilters(taskWrite({ ...childWrite, before: undefined }), filters)).toBe(true);
  });

  it('refuses the record of a task without a parent (parent_id is NULL)', async () => {
    const { parentWrite } = await parentAndChild();
    const written = taskWrite(parentWrite);
    expect(written.dynamodb.NewImage?.parent_id).toEqual({ NULL: true });
    expect(passesFilters(written, filters)).toBe(false);
  });

  it("passes every change of a budgeted task's record, a task without a parent too", async () => {
    const { parentWrite } = await parentAndChild();
    const budgeted = record(
      'MODIFY',
      {
        ...encodeTaskRecord(parentWrite.after, parentWrite.after.version).item,
        ...budgetAttributes({ model_calls: 3 }),
      },
      encodeTaskRecord(parentWrite.after, parentWrite.after.version).item
    );
    expect(budgeted.dynamodb.NewImage?.parent_id).toEqual({ NULL: true });
    expect(passesFilters(budgeted, filters)).toBe(true);
  });

  it("refuses items that are not task records, even in a child's partition", async () => {
    const { childId } = await parentAndChild();
    const history = encodeHistoryEntry(childId, {
      seq: 1,
      kind: 'assistant_message',
      text: 'hello',
    });
    const inbox = encodeInboxItem(childId, {
      seq: 1,
      kind: 'message',
      id: 'm-1',
      participantId: 'alice',
      source: 'human',
      text: 'hi',
    });
    expect(passesFilters(record('INSERT', history), filters)).toBe(false);
    expect(passesFilters(record('INSERT', inbox), filters)).toBe(false);
  });

  it('passes a released park of any task (the token taken by a commit), and no other park change', async () => {
    const { parentWrite } = await parentAndChild();
    const parked = { ...parentWrite.after, loop: { ...parentWrite.after.loop, parkToken: 'tok' } };
    const released = {
      ...parked,
      loop: { ...parked.loop, parkToken: null },
      version: parked.version + 1,
    };
    expect(passesFilters(taskWrite({ before: parked, after: released }), filters)).toBe(true);
    expect(passesFilters(taskWrite({ before: released, after: parked }), filters)).toBe(false);
    expect(passesFilters(taskWrite({ before: parked, after: parked }), filters)).toBe(false);
  });

  it("refuses the removal of a child's record", async () => {
    const { childWrite } = await parentAndChild();
    const old = encodeTaskRecord(childWrite.after, childWrite.after.version).item;
    expect(passesFilters(record('REMOVE', undefined, old), filters)).toBe(false);
    expect(old.pk).toEqual(taskKey(childWrite.after.task.id).pk);
  });
});

describe("the push consumer's stream filter", () => {
  const filters = [JSON.parse(PUSH_FILTER.pattern) as FilterPattern];

  it('passes a log item (or an earlier event item) of a task with a push config, and nothing else of the log or the task', async () => {
    const { childWrite } = await parentAndChild();
    const task = childWrite.after.task;
    const taskId = task.id;
    const event = encodeEvent(taskId, 1, { kind: 'task', task }, { push: true });
    const unmarked = encodeEvent(taskId, 2, { kind: 'task', task });
    const counter = { ...key(taskId, SORT_KEY_VALUE.inboxCounter), seq: { N: '1' } };
    const marker = markerItem(taskId, inboxIdSk('m-1'), ITEM_TYPE.inboxId, 'm-1', 1);

    const logged = (push: boolean) =>
      encodeLogItem(
        taskId,
        { version: 2, eventSeq: 1, historySeq: 0, push },
        { history: [], events: [{ kind: 'task', task }], audit: [] }
      )!;
    const quiet = encodeLogItem(
      taskId,
      { version: 3, eventSeq: 1, historySeq: 1, push: true },
      { history: [{ seq: 1, kind: 'assistant_message', text: 'hi' }], events: [], audit: [] }
    )!;

    expect(passesFilters(record('INSERT', logged(true)), filters)).toBe(true);
    expect(passesFilters(record('INSERT', logged(false)), filters)).toBe(false);
    // A commit that logged no event has nothing to push, whatever the task's configs.
    expect(passesFilters(record('INSERT', quiet), filters)).toBe(false);
    expect(passesFilters(record('INSERT', event), filters)).toBe(true);
    expect(passesFilters(record('INSERT', unmarked), filters)).toBe(false);
    expect(passesFilters(record('MODIFY', event, event), filters)).toBe(false);
    expect(passesFilters(record('REMOVE', undefined, event), filters)).toBe(false);
    expect(passesFilters(record('INSERT', counter), filters)).toBe(false);
    expect(passesFilters(record('MODIFY', counter, counter), filters)).toBe(false);
    expect(passesFilters(record('INSERT', marker), filters)).toBe(false);
    expect(passesFilters(taskWrite({ ...childWrite, before: undefined }), filters)).toBe(false);
    expect(passesFilters(taskWrite(childWrite), filters)).toBe(false);
  });
});

describe('the synthesized template, as the local runtime reads it', () => {
  it('gives one poller per event source mapping: the stand-in and push delivery, with their filters', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'tiny-harness-filter-'));
    try {
      const { app, stack } = buildApp({ outdir, bundle: false });
      const template = app.synth().getStackByName(stack.stackName).template;
      const mappings = eventSourceMappings(template);
      expect(mappings.map((mapping) => mapping.functionId).sort()).toEqual([
        'PushFunction',
        'StreamFunction',
      ]);
      for (const { functionId, settings } of mappings) {
        const filters = functionId === 'PushFunction' ? [PUSH_FILTER] : STREAM_FILTERS;
        expect(settings.filters).toEqual(filters.map((filter) => JSON.parse(filter.pattern)));
        expect(settings.bisectBatchOnFunctionError).toBe(true);
        expect(settings.maximumRetryAttempts).toBe(3);
        expect(settings.batchSize).toBe(10);
      }
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }, 120_000);
});
