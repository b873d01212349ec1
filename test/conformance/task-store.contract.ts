import { TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AlreadyExistsError,
  ConcurrencyConflictError,
  InvalidTaskRecordError,
} from '../../functions/core/errors.js';
import type { HistoryEntry } from '../../functions/core/loop/history.schema.js';
import type { InboxItemDraft } from '../../functions/core/loop/inbox.schema.js';
import type { LoopState } from '../../functions/core/loop/loop-state.schema.js';
import type { TaskStore } from '../../functions/core/ports/task-store.js';
import { changed, goalOf, makeRecord, uid } from './fixtures.js';

export interface TaskStoreFixture {
  store: TaskStore;
  cleanup?: () => Promise<void>;
}

const message = (id: string, text = `text of ${id}`): InboxItemDraft => ({
  kind: 'message',
  id,
  participantId: 'alice',
  source: 'human',
  text,
});

const assistant = (seq: number, text = `turn ${seq}`): HistoryEntry => ({
  seq,
  kind: 'assistant_message',
  text,
});

const ids = (records: { task: { id: string } }[]) => records.map((record) => record.task.id);

/**
 * The `TaskStore` port contract (functions/core/ports/task-store.ts), one test per clause. Every
 * implementation runs it: the in-memory fake and the DynamoDB adapter. The store may be shared by
 * all tests of a run (and by earlier runs): every test uses fresh ids.
 */
export const describeTaskStoreContract = (
  name: string,
  makeStore: () => Promise<TaskStoreFixture>
) => {
  describe(`TaskStore contract: ${name}`, () => {
    let fixture: TaskStoreFixture;
    let store: TaskStore;

    beforeAll(async () => {
      fixture = await makeStore();
      store = fixture.store;
    });

    afterAll(async () => {
      await fixture?.cleanup?.();
    });

    describe('create and get', () => {
      it('create stores the record at version 1 and returns what is stored', async () => {
        const record = makeRecord(uid('task'));
        const created = await store.create({ ...record, version: 7 });
        expect(created).toEqual({ ...record, version: 1 });
        expect(await store.get(record.task.id)).toEqual(created);
      });

      it('keeps the A2A task whole (status, message, history, artifacts, metadata)', async () => {
        const record = makeRecord(uid('task'), { state: 'TASK_STATE_INPUT_REQUIRED' });
        await store.create(record);
        const stored = await store.get(record.task.id);
        expect(stored?.task).toEqual(record.task);
        expect(stored?.task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
        expect(stored?.loop).toEqual(record.loop);
      });

      it('create of an existing id fails with AlreadyExistsError and changes nothing', async () => {
        const id = uid('task');
        await store.create(makeRecord(id, { goal: 'first' }));
        await expect(store.create(makeRecord(id, { goal: 'second' }))).rejects.toBeInstanceOf(
          AlreadyExistsError
        );
        const stored = await store.get(id);
        expect(goalOf(stored)).toBe('first');
        expect(stored?.version).toBe(1);
      });

      it('of two concurrent creates of one id exactly one wins', async () => {
        const id = uid('task');
        const results = await Promise.allSettled([
          store.create(makeRecord(id, { goal: 'a' })),
          store.create(makeRecord(id, { goal: 'b' })),
        ]);
        const won = results.filter((result) => result.status === 'fulfilled');
        const lost = results.filter((result) => result.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        expect((lost[0] as PromiseRejectedResult).reason).toBeInstanceOf(AlreadyExistsError);
        expect(goalOf(await store.get(id))).toBe(
          goalOf((won[0] as PromiseFulfilledResult<Awaited<ReturnType<TaskStore['create']>>>).value)
        );
      });

      it('get of an unknown id returns undefined, not an error', async () => {
        expect(await store.get(uid('missing'))).toBeUndefined();
        expect(await store.get('x'.repeat(5000))).toBeUndefined();
      });

      it('refuses a record that would not read back, storing nothing', async () => {
        const record = makeRecord(uid('task'));
        const badLoop = { ...record.loop, turn: -1 } as LoopState;
        await expect(store.create({ ...record, loop: badLoop })).rejects.toBeInstanceOf(
          InvalidTaskRecordError
        );
        expect(await store.get(record.task.id)).toBeUndefined();
      });
    });

    describe('update', () => {
      it('stores version + 1 and returns the stored record', async () => {
        const created = await store.create(makeRecord(uid('task')));
        const first = await store.update(
          changed(created, { state: 'TASK_STATE_WORKING', turn: 1 })
        );
        expect(first.version).toBe(2);
        expect(first.task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
        expect(first.loop.turn).toBe(1);
        expect(await store.get(created.task.id)).toEqual(first);
        const second = await store.update(changed(first, { state: 'TASK_STATE_COMPLETED' }));
        expect(second.version).toBe(3);
        expect(await store.get(created.task.id)).toEqual(second);
      });

      it('with a stale version fails with ConcurrencyConflictError and writes nothing', async () => {
        const created = await store.create(makeRecord(uid('task'), { goal: 'v1' }));
        const current = await store.update(changed(created, { goal: 'v2' }));
        const stale = changed(created, { goal: 'stale', state: 'TASK_STATE_FAILED' });
        await expect(store.update(stale)).rejects.toBeInstanceOf(ConcurrencyConflictError);
        expect(await store.get(created.task.id)).toEqual(current);
        const ahead = { ...changed(current, { goal: 'ahead' }), version: current.version + 5 };
        await expect(store.update(ahead)).rejects.toBeInstanceOf(ConcurrencyConflictError);
        expect(await store.get(created.task.id)).toEqual(current);
      });

      it('of an unknown task fails with ConcurrencyConflictError and creates nothing', async () => {
        const record = makeRecord(uid('task'));
        await expect(store.update(record)).rejects.toBeInstanceOf(ConcurrencyConflictError);
        expect(await store.get(record.task.id)).toBeUndefined();
      });

      it('of two concurrent updates from the same version exactly one wins', async () => {
        const created = await store.create(makeRecord(uid('task')));
        const results = await Promise.allSettled([
          store.update(changed(created, { goal: 'left', state: 'TASK_STATE_WORKING' })),
          store.update(changed(created, { goal: 'right', state: 'TASK_STATE_CANCELED' })),
        ]);
        const won = results.filter((result) => result.status === 'fulfilled');
        const lost = results.filter((result) => result.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        expect((lost[0] as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrencyConflictError);
        const winner = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<TaskStore['update']>>>)
          .value;
        expect(winner.version).toBe(2);
        expect(await store.get(created.task.id)).toEqual(winner);
      });

      it('of many concurrent updates from the same version exactly one wins', async () => {
        const created = await store.create(makeRecord(uid('task')));
        const results = await Promise.allSettled(
          Array.from({ length: 6 }, (_, index) =>
            store.update(changed(created, { goal: `writer ${index}` }))
          )
        );
        expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
        expect((await store.get(created.task.id))?.version).toBe(2);
      });

      it('refuses a record that would not read back, writing nothing', async () => {
        const created = await store.create(makeRecord(uid('task')));
        const badLoop = { ...created.loop, extra: 1 } as unknown as LoopState;
        await expect(store.update({ ...created, loop: badLoop })).rejects.toBeInstanceOf(
          InvalidTaskRecordError
        );
        expect(await store.get(created.task.id)).toEqual(created);
      });
    });

    describe('list', () => {
      it('lists by contextId', async () => {
        const context = uid('ctx');
        const a = uid('task');
        const b = uid('task');
        await store.create(makeRecord(b, { contextId: context }));
        await store.create(makeRecord(a, { contextId: context }));
        await store.create(makeRecord(uid('task'), { contextId: uid('ctx') }));
        const listed = await store.list({ contextId: context });
        expect(ids(listed).sort()).toEqual([a, b].sort());
        expect(listed.find((record) => record.task.id === a)).toEqual(await store.get(a));
        expect(await store.list({ contextId: uid('ctx') })).toEqual([]);
      });

      it('lists by participant', async () => {
        const alice = uid('alice');
        const bob = uid('bob');
        const both = uid('task');
        const onlyBob = uid('task');
        await store.create(makeRecord(both, { participants: [alice, bob] }));
        await store.create(makeRecord(onlyBob, { participants: [bob] }));
        expect(ids(await store.list({ participantId: alice }))).toEqual([both]);
        expect(ids(await store.list({ participantId: bob })).sort()).toEqual(
          [both, onlyBob].sort()
        );
        expect(await store.list({ participantId: uid('nobody') })).toEqual([]);
      });

      it('with both filters lists the tasks matching both', async () => {
        const context = uid('ctx');
        const carol = uid('carol');
        const match = uid('task');
        await store.create(makeRecord(match, { contextId: context, participants: [carol] }));
        await store.create(makeRecord(uid('task'), { contextId: context, participants: ['x'] }));
        await store.create(
          makeRecord(uid('task'), { contextId: uid('ctx'), participants: [carol] })
        );
        expect(ids(await store.list({ contextId: context, participantId: carol }))).toEqual([
          match,
        ]);
      });

      it('follows participant changes made by update', async () => {
        const dave = uid('dave');
        const erin = uid('erin');
        const created = await store.create(makeRecord(uid('task'), { participants: [dave] }));
        const updated = await store.update(changed(created, { participants: [erin] }));
        expect(await store.list({ participantId: dave })).toEqual([]);
        expect(await store.list({ participantId: erin })).toEqual([updated]);
      });

      it('lists the current version of each task', async () => {
        const context = uid('ctx');
        const created = await store.create(makeRecord(uid('task'), { contextId: context }));
        const updated = await store.update(changed(created, { state: 'TASK_STATE_WORKING' }));
        expect(await store.list({ contextId: context })).toEqual([updated]);
      });

      it('an empty filter matches nothing; no filter lists every task', async () => {
        const id = uid('task');
        await store.create(makeRecord(id));
        expect(await store.list({ contextId: '' })).toEqual([]);
        expect(await store.list({ participantId: '' })).toEqual([]);
        expect(ids(await store.list({}))).toContain(id);
      });
    });

    describe('history', () => {
      it('returns entries after afterSeq in ascending order, whatever the append order', async () => {
        const taskId = uid('task');
        await store.appendHistory(taskId, [assistant(3), assistant(1)]);
        await store.appendHistory(taskId, [assistant(2), assistant(10)]);
        expect(await store.readHistory(taskId)).toEqual([
          assistant(1),
          assistant(2),
          assistant(3),
          assistant(10),
        ]);
        expect(await store.readHistory(taskId, 2)).toEqual([assistant(3), assistant(10)]);
        expect(await store.readHistory(taskId, 10)).toEqual([]);
        expect(await store.readHistory(uid('missing'))).toEqual([]);
      });

      it('is put-if-absent per seq: a retried append is a no-op, the first entry wins', async () => {
        const taskId = uid('task');
        const entries: HistoryEntry[] = [
          {
            seq: 1,
            kind: 'participant_message',
            participantId: 'alice',
            source: 'human',
            text: 'hi',
          },
          { seq: 2, kind: 'tool_call', callId: 'c1', name: 'add_note', arguments: '{}' },
          {
            seq: 3,
            kind: 'tool_result',
            callId: 'c1',
            name: 'add_note',
            output: 'ok',
            isError: false,
          },
          { seq: 4, kind: 'note', fromTaskId: 'child', text: 'done' },
        ];
        await store.appendHistory(taskId, entries);
        await store.appendHistory(taskId, entries);
        await store.appendHistory(taskId, [assistant(2, 'rewritten'), assistant(5)]);
        expect(await store.readHistory(taskId)).toEqual([...entries, assistant(5)]);
      });

      it('keeps the first of two entries with one seq in the same call', async () => {
        const taskId = uid('task');
        await store.appendHistory(taskId, [assistant(1, 'first'), assistant(1, 'second')]);
        expect(await store.readHistory(taskId)).toEqual([assistant(1, 'first')]);
      });

      it('keeps tasks apart', async () => {
        const one = uid('task');
        const two = uid('task');
        await store.appendHistory(one, [assistant(1, 'one')]);
        await store.appendHistory(two, [assistant(1, 'two')]);
        expect(await store.readHistory(one)).toEqual([assistant(1, 'one')]);
        expect(await store.readHistory(two)).toEqual([assistant(1, 'two')]);
      });

      it('refuses an entry that would not read back', async () => {
        const taskId = uid('task');
        const bad = { ...assistant(1), extra: true } as unknown as HistoryEntry;
        await expect(store.appendHistory(taskId, [bad])).rejects.toBeInstanceOf(
          InvalidTaskRecordError
        );
        expect(await store.readHistory(taskId)).toEqual([]);
      });
    });

    describe('inbox', () => {
      it('assigns strictly increasing seqs per task, from 1', async () => {
        const taskId = uid('task');
        const other = uid('task');
        expect(await store.enqueue(taskId, message('m1'))).toEqual({ seq: 1, duplicate: false });
        expect(await store.enqueue(other, message('m1'))).toEqual({ seq: 1, duplicate: false });
        expect(await store.enqueue(taskId, message('m2'))).toEqual({ seq: 2, duplicate: false });
        const note: InboxItemDraft = {
          kind: 'note',
          id: 'n1',
          fromTaskId: 'child',
          text: 'child finished',
          result: true,
        };
        expect(await store.enqueue(taskId, note)).toEqual({ seq: 3, duplicate: false });
        expect(await store.readInbox(taskId, 0)).toEqual([
          { ...message('m1'), seq: 1 },
          { ...message('m2'), seq: 2 },
          { ...note, seq: 3 },
        ]);
        expect(await store.readInbox(taskId, 2)).toEqual([{ ...note, seq: 3 }]);
        expect(await store.readInbox(taskId, 3)).toEqual([]);
        expect(await store.readInbox(uid('missing'), 0)).toEqual([]);
      });

      it('deduplicates on item.id: the first seq, duplicate: true, nothing stored', async () => {
        const taskId = uid('task');
        await store.enqueue(taskId, message('a', 'first'));
        await store.enqueue(taskId, message('b'));
        expect(await store.enqueue(taskId, message('a', 'retry'))).toEqual({
          seq: 1,
          duplicate: true,
        });
        expect(await store.enqueue(taskId, message('c'))).toEqual({ seq: 3, duplicate: false });
        expect(await store.readInbox(taskId, 0)).toEqual([
          { ...message('a', 'first'), seq: 1 },
          { ...message('b'), seq: 2 },
          { ...message('c'), seq: 3 },
        ]);
      });

      it('deduplicates long ids too', async () => {
        const taskId = uid('task');
        const long = `m-${'é'.repeat(3000)}`;
        expect(await store.enqueue(taskId, message(long))).toEqual({ seq: 1, duplicate: false });
        expect(await store.enqueue(taskId, message(long))).toEqual({ seq: 1, duplicate: true });
        expect(await store.enqueue(taskId, message(`${long}x`))).toEqual({
          seq: 2,
          duplicate: false,
        });
      });

      it('gives concurrent enqueues distinct, gap-free seqs', async () => {
        const taskId = uid('task');
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, index) => store.enqueue(taskId, message(`c${index}`)))
        );
        expect(results.every((result) => !result.duplicate)).toBe(true);
        expect(results.map((result) => result.seq).sort((a, b) => a - b)).toEqual([
          1, 2, 3, 4, 5, 6, 7, 8,
        ]);
        const inbox = await store.readInbox(taskId, 0);
        expect(inbox.map((item) => item.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
        for (const [index, result] of results.entries()) {
          expect(inbox[result.seq - 1]?.id).toBe(`c${index}`);
        }
      });

      it('stores one item for concurrent enqueues of the same id', async () => {
        const taskId = uid('task');
        const results = await Promise.all(
          Array.from({ length: 5 }, () => store.enqueue(taskId, message('same')))
        );
        expect(results.filter((result) => !result.duplicate)).toHaveLength(1);
        expect(new Set(results.map((result) => result.seq))).toEqual(new Set([1]));
        expect(await store.readInbox(taskId, 0)).toHaveLength(1);
      });
    });

    describe('putOnce and getOnce', () => {
      it('the first writer wins and every call returns what is stored', async () => {
        const taskId = uid('task');
        expect(await store.getOnce(taskId, 'k')).toBeUndefined();
        expect(await store.putOnce(taskId, 'k', { answer: 1 })).toEqual({ answer: 1 });
        expect(await store.putOnce(taskId, 'k', { answer: 2 })).toEqual({ answer: 1 });
        expect(await store.getOnce(taskId, 'k')).toEqual({ answer: 1 });
        expect(await store.getOnce(uid('task'), 'k')).toBeUndefined();
        expect(await store.putOnce(taskId, 'other', 'text')).toBe('text');
      });

      it('of concurrent writers exactly one value is kept', async () => {
        const taskId = uid('task');
        const results = await Promise.all(
          Array.from({ length: 5 }, (_, index) => store.putOnce(taskId, 'race', { writer: index }))
        );
        const stored = await store.getOnce(taskId, 'race');
        expect(results.every((result) => JSON.stringify(result) === JSON.stringify(stored))).toBe(
          true
        );
      });

      it('keeps JSON values of any shape, and long keys', async () => {
        const taskId = uid('task');
        const value = { list: [1, 'two', null, { deep: [false] }], empty: '', zero: 0 };
        const longKey = `tool:${'k'.repeat(4000)}`;
        expect(await store.putOnce(taskId, longKey, value)).toEqual(value);
        expect(await store.getOnce(taskId, longKey)).toEqual(value);
        expect(await store.getOnce(taskId, `${longKey}!`)).toBeUndefined();
        expect(await store.putOnce(taskId, 'null', null)).toBeNull();
        expect(await store.putOnce(taskId, 'null', 'later')).toBeNull();
      });
    });

    describe('copies', () => {
      it('mutating a returned record or the input never changes the store', async () => {
        const input = makeRecord(uid('task'));
        const created = await store.create(input);
        input.loop.turn = 99;
        created.loop.turn = 98;
        (created.task.metadata as Record<string, unknown>).injected = true;
        created.task.history.push(created.task.history[0]!);
        const read = await store.get(input.task.id);
        expect(read?.loop.turn).toBe(0);
        expect(read?.task.metadata).not.toHaveProperty('injected');
        expect(read?.task.history).toHaveLength(1);
        if (read?.task.status) read.task.status.state = TaskState.TASK_STATE_FAILED;
        expect((await store.get(input.task.id))?.task.status?.state).toBe(
          TaskState.TASK_STATE_SUBMITTED
        );
        const [listed] = await store.list({ contextId: input.task.contextId });
        listed!.loop.summary = 'changed';
        expect((await store.get(input.task.id))?.loop.summary).toBeNull();
      });

      it('mutating returned history, inbox and once values never changes the store', async () => {
        const taskId = uid('task');
        const entry = { seq: 1, kind: 'assistant_message', text: 'original' } as const;
        const input: { seq: number; kind: 'assistant_message'; text: string } = { ...entry };
        await store.appendHistory(taskId, [input]);
        input.text = 'mutated input';
        const [read] = await store.readHistory(taskId);
        (read as { text: string }).text = 'mutated output';
        expect(await store.readHistory(taskId)).toEqual([assistant(1, 'original')]);

        const draft = message('m', 'original');
        await store.enqueue(taskId, draft);
        (draft as { text: string }).text = 'mutated input';
        const [item] = await store.readInbox(taskId, 0);
        (item as { text: string }).text = 'mutated output';
        expect((await store.readInbox(taskId, 0))[0]?.text).toBe('original');

        const value = { list: [1] };
        const kept = await store.putOnce(taskId, 'k', value);
        value.list.push(2);
        kept.list.push(3);
        expect(await store.getOnce(taskId, 'k')).toEqual({ list: [1] });
      });
    });
  });
};
