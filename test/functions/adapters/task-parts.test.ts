import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  decodeTaskRecord,
  encodeTaskRecord,
  taskRecordAttributes,
} from '../../../functions/adapters/dynamodb/item-codec.js';
import { partChanges } from '../../../functions/adapters/dynamodb/task-parts.js';
import { partWrites } from '../../../functions/adapters/dynamodb/task-record-io.js';
import type { TaskRecord } from '../../../functions/core/ports/task-store.js';
import { readExtension, withExtension } from '../../../functions/core/task/a2a-task.js';
import { makeRecord, uid } from '../../conformance/fixtures.js';
import { endedRows } from '../../support/harness.js';

/** A record with `rows` sub-task rows, as a read gives it back: decoded from its stored item. */
const storedRecord = (rows: number): TaskRecord => {
  const made = makeRecord(uid('task'));
  const task = withExtension(made.task, {
    ...readExtension(made.task),
    sub_tasks: endedRows(rows, uid('child')),
  });
  const { item, parts } = encodeTaskRecord({ ...made, task }, 1);
  const json = JSON.parse(JSON.stringify(parts)) as typeof parts;
  return decodeTaskRecord(item, task.id, json);
};

/** How often JSON.stringify was handed an array of more than `length` items while `run` ran. */
const serialisedArrays = (length: number, run: () => void): number => {
  const spy = vi.spyOn(JSON, 'stringify');
  run();
  const count = spy.mock.calls.filter(
    ([value]) => Array.isArray(value) && value.length > length
  ).length;
  spy.mockRestore();
  return count;
};

afterEach(() => vi.restoreAllMocks());

describe('the parts a task record keeps apart', () => {
  it('a decision that passes the rows on as it read them writes none of them, and serialises none to find out', () => {
    const read = storedRecord(500);
    // A turn as the core makes one: the loop moves and the extension is rebuilt around the rows
    // as it read them.
    const next = {
      ...read,
      loop: { ...read.loop, turn: 1 },
      task: withExtension(read.task, { ...readExtension(read.task), goal: 'another goal' }),
    };
    let writes: unknown[] = ['not run'];
    const serialised = serialisedArrays(400, () => {
      const attributes = taskRecordAttributes(next);
      writes = partWrites('table', read.task.id, read, attributes.parts, read.version + 1).writes;
    });
    expect(writes).toEqual([]);
    expect(serialised).toBe(0);
  });

  it('a decision that changes the rows writes them', () => {
    const read = storedRecord(20);
    const extension = readExtension(read.task);
    const next = {
      ...read,
      task: withExtension(read.task, { ...extension, sub_tasks: extension.sub_tasks.slice(1) }),
    };
    const { writes, apart } = partWrites(
      'table',
      read.task.id,
      read,
      taskRecordAttributes(next).parts,
      read.version + 1
    );
    expect(writes.map((write) => write.Put?.Item?.sk?.S)).toEqual(['TASK#sub_tasks']);
    expect(writes[0]?.Put?.Item?.rev).toEqual({ N: String(read.version + 1) });
    expect(apart).toEqual({ sub_tasks: read.version + 1 });
  });

  it('compares a part by its value when it is not the same one as read', () => {
    const rows = [{ task_id: 'a' }];
    const apart = { sub_tasks: 3 };
    expect(partChanges({ parts: { sub_tasks: rows }, apart }, { sub_tasks: rows })).toEqual({
      put: [],
      remove: [],
    });
    expect(
      partChanges({ parts: { sub_tasks: rows }, apart }, { sub_tasks: [{ task_id: 'a' }] })
    ).toEqual({ put: [], remove: [] });
    expect(
      partChanges({ parts: { sub_tasks: rows }, apart }, { sub_tasks: [{ task_id: 'b' }] })
    ).toEqual({ put: ['sub_tasks'], remove: [] });
    // As JSON text would have it: the order of keys and a key that holds undefined do not count;
    // a field that changed deep inside, or one more or less, does.
    const held = [{ task_id: 'a', usage: { input: 1, output: 2 }, agent: null }];
    const same = [{ agent: null, usage: { output: 2, input: 1 }, task_id: 'a', note: undefined }];
    expect(partChanges({ parts: { sub_tasks: held }, apart }, { sub_tasks: same }).put).toEqual([]);
    for (const changed of [
      [{ task_id: 'a', usage: { input: 1, output: 3 }, agent: null }],
      [{ task_id: 'a', usage: { input: 1, output: 2 } }],
      [{ task_id: 'a', usage: { input: 1, output: 2 }, agent: null, note: 'n' }],
      [...held, ...held],
    ]) {
      expect(
        partChanges({ parts: { sub_tasks: held }, apart }, { sub_tasks: changed }).put
      ).toEqual(['sub_tasks']);
    }
    // Not kept apart yet (an earlier build's record), or of no known revision: written whatever
    // it holds.
    for (const before of [{}, { sub_tasks: 0 }]) {
      expect(
        partChanges({ parts: { sub_tasks: rows }, apart: before }, { sub_tasks: rows })
      ).toEqual({ put: ['sub_tasks'], remove: [] });
    }
  });
});
