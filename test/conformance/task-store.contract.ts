import { TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TASK_METADATA_KEY } from '../../functions/core/a2a/identifiers.js';
import {
  AlreadyExistsError,
  ConcurrencyConflictError,
  InvalidTaskRecordError,
} from '../../functions/core/errors.js';
import type { HistoryEntry } from '../../functions/core/loop/history.schema.js';
import type { InboxItemDraft } from '../../functions/core/loop/inbox.schema.js';
import type { LoopState } from '../../functions/core/loop/loop-state.schema.js';
import type { EventLog } from '../../functions/core/ports/event-log.js';
import type { PushConfig, PushConfigStore } from '../../functions/core/ports/push-config-store.js';
import type {
  BudgetAmounts,
  CommitWrites,
  TaskCommit,
  TaskRecord,
  TaskStore,
} from '../../functions/core/ports/task-store.js';
import { readExtension } from '../../functions/core/task/a2a-task.js';
import { MAX_PARTICIPANTS } from '../../functions/core/task/extension.schema.js';
import { changed, goalOf, makeRecord, type TaskOptions, uid } from './fixtures.js';

export interface TaskStoreFixture {
  store: TaskStore;
  /** The event log and push configs over the same table, to read back what commits wrote. */
  events: EventLog;
  pushConfigs: PushConfigStore;
  cleanup?: () => Promise<void>;
  /** The agent's own id, when the store was told it (it lists no task under it). */
  agentId?: string;
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

const pushConfig = (taskId: string, id: string): PushConfig => ({
  taskId,
  id,
  ownerId: 'alice',
  url: 'https://hooks.example.com/a2a',
  token: `sealed:v1:local:${id}`,
  authentication: null,
});

const forksOf = (record: TaskRecord) =>
  (record.task.metadata?.[TASK_METADATA_KEY] as { forks?: string[] } | undefined)?.forks;
const ids = (records: { task: { id: string } }[]) => records.map((record) => record.task.id);

const statusOf = (record: TaskRecord) => ({ kind: 'task' as const, task: record.task });

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

    const create = async (record: TaskRecord, writes: CommitWrites = {}) => {
      const { record: stored } = await store.commit({ kind: 'create', record, ...writes });
      return stored as TaskRecord;
    };
    const update = async (base: TaskRecord, record: TaskRecord, writes: CommitWrites = {}) => {
      const { record: stored } = await store.commit({ kind: 'update', base, record, ...writes });
      return stored as TaskRecord;
    };
    /** Everything a commit may write besides the record, for checking "nothing was written". */
    const sideEffects = async (taskId: string) => ({
      history: await store.readHistory(taskId),
      inbox: await store.readInbox(taskId),
      events: await fixture.events.read(taskId),
      audit: await store.getAudit(taskId, 'a'),
      pushConfigs: await fixture.pushConfigs.list(taskId),
    });
    const everyWrite = (taskId: string, itemId = uid('m')): CommitWrites => ({
      history: [assistant(1)],
      events: [{ kind: 'task', task: makeRecord(taskId).task }],
      enqueue: [message(itemId)],
      audit: [{ key: 'a', value: { n: 1 } }],
      pushConfigs: [pushConfig(taskId, uid('push'))],
    });

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
        const created = await create({ ...record, version: 7, eventSeq: 3 });
        // A store's own notes (how it keeps the record) are its own: the port says nothing of them.
        const { logFrom: _note, inbox, ...ported } = created;
        expect(ported).toEqual({ ...record, version: 1, eventSeq: 0 });
        // An inbox the record says it has whole is what the commit left there: nothing.
        expect(inbox ?? []).toEqual([]);
        expect(await store.get(record.task.id)).toEqual(created);
      });

      it('keeps the A2A task whole (status, message, history, artifacts, metadata)', async () => {
        const record = makeRecord(uid('task'), { state: 'TASK_STATE_INPUT_REQUIRED' });
        await create(record);
        const stored = await store.get(record.task.id);
        expect(stored?.task).toEqual(record.task);
        expect(stored?.task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
        expect(stored?.loop).toEqual(record.loop);
      });

      it('writes everything else of the commit with the record', async () => {
        const record = makeRecord(uid('task'));
        const taskId = record.task.id;
        const writes = everyWrite(taskId);
        const created = await create(record, writes);
        expect(created.eventSeq).toBe(1);
        const written = await sideEffects(taskId);
        expect(written.history).toEqual(writes.history);
        expect(written.inbox).toEqual([{ ...writes.enqueue?.[0], seq: 1 }]);
        expect(written.events.map((logged) => logged.seq)).toEqual([1]);
        expect(written.audit).toEqual({ n: 1 });
        expect(written.pushConfigs).toEqual(writes.pushConfigs);
      });

      it('create of an existing id fails with AlreadyExistsError and writes nothing', async () => {
        const id = uid('task');
        await create(makeRecord(id, { goal: 'first' }));
        await expect(
          create(makeRecord(id, { goal: 'second' }), everyWrite(id))
        ).rejects.toBeInstanceOf(AlreadyExistsError);
        const stored = await store.get(id);
        expect(goalOf(stored)).toBe('first');
        expect(stored?.version).toBe(1);
        expect(await sideEffects(id)).toEqual({
          history: [],
          inbox: [],
          events: [],
          audit: undefined,
          pushConfigs: [],
        });
      });

      it('of two concurrent creates of one id exactly one wins', async () => {
        const id = uid('task');
        const results = await Promise.allSettled([
          create(makeRecord(id, { goal: 'a' })),
          create(makeRecord(id, { goal: 'b' })),
        ]);
        const won = results.filter((result) => result.status === 'fulfilled');
        const lost = results.filter((result) => result.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        expect((lost[0] as PromiseRejectedResult).reason).toBeInstanceOf(AlreadyExistsError);
        expect(goalOf(await store.get(id))).toBe(
          goalOf((won[0] as PromiseFulfilledResult<TaskRecord>).value)
        );
      });

      it('get of an unknown id returns undefined, not an error', async () => {
        expect(await store.get(uid('missing'))).toBeUndefined();
        expect(await store.get('x'.repeat(5000))).toBeUndefined();
      });

      it('refuses a record or an entry that would not read back, storing nothing', async () => {
        const record = makeRecord(uid('task'));
        const badLoop = { ...record.loop, turn: -1 } as LoopState;
        await expect(create({ ...record, loop: badLoop })).rejects.toBeInstanceOf(
          InvalidTaskRecordError
        );
        const bad = { ...assistant(1), extra: true } as unknown as HistoryEntry;
        await expect(create(record, { history: [bad] })).rejects.toBeInstanceOf(
          InvalidTaskRecordError
        );
        expect(await store.get(record.task.id)).toBeUndefined();
        expect(await store.readHistory(record.task.id)).toEqual([]);
      });
    });

    describe('update', () => {
      it('stores version + 1 and returns the stored record', async () => {
        const created = await create(makeRecord(uid('task')));
        const first = await update(
          created,
          changed(created, { state: 'TASK_STATE_WORKING', turn: 1 })
        );
        expect(first.version).toBe(2);
        expect(first.task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
        expect(first.loop.turn).toBe(1);
        expect(await store.get(created.task.id)).toEqual(first);
        const second = await update(first, changed(first, { state: 'TASK_STATE_COMPLETED' }));
        expect(second.version).toBe(3);
        expect(await store.get(created.task.id)).toEqual(second);
      });

      it('with a stale version fails with ConcurrencyConflictError and writes nothing', async () => {
        const created = await create(makeRecord(uid('task'), { goal: 'v1' }));
        const taskId = created.task.id;
        const current = await update(created, changed(created, { goal: 'v2' }));
        const before = await sideEffects(taskId);
        const stale = changed(created, { goal: 'stale', state: 'TASK_STATE_FAILED' });
        await expect(update(created, stale, everyWrite(taskId))).rejects.toBeInstanceOf(
          ConcurrencyConflictError
        );
        expect(await store.get(taskId)).toEqual(current);
        expect(await sideEffects(taskId)).toEqual(before);
        const ahead = { ...current, version: current.version + 5 };
        await expect(update(ahead, changed(current, { goal: 'ahead' }))).rejects.toBeInstanceOf(
          ConcurrencyConflictError
        );
        expect(await store.get(taskId)).toEqual(current);
      });

      it('refused, says how the task stood and whether the ids it took in were still free', async () => {
        const created = await create(makeRecord(uid('task'), { goal: 'v1' }));
        const taskId = created.task.id;
        await update(created, changed(created, { goal: 'v2' }));
        const refusal = async (commit: TaskCommit) => {
          const error = await store.commit(commit).then(
            () => undefined,
            (thrown: unknown) => thrown
          );
          expect(error).toBeInstanceOf(ConcurrencyConflictError);
          return error as ConcurrencyConflictError;
        };
        const staleOf = (itemId: string): TaskCommit => ({
          kind: 'update',
          base: created,
          record: changed(created, { goal: 'stale' }),
          enqueue: [message(itemId)],
        });
        const stale = await refusal(staleOf(uid('m')));
        expect(stale.current).toEqual(await store.get(taskId));
        expect(stale.idsFree).toBe(true);

        // An id taken in before is not free, whatever else refused the commit.
        const taken = uid('m');
        await store.commit({ kind: 'guarded', taskId, unparked: false, enqueue: [message(taken)] });
        const again = await refusal({
          kind: 'guarded',
          taskId,
          unparked: false,
          enqueue: [message(taken)],
        });
        expect(again.idsFree).toBe(false);
        expect((await refusal(staleOf(taken))).idsFree).toBe(false);
      });

      it('of an unknown task fails with ConcurrencyConflictError and creates nothing', async () => {
        const record = makeRecord(uid('task'));
        await expect(update(record, record)).rejects.toBeInstanceOf(ConcurrencyConflictError);
        expect(await store.get(record.task.id)).toBeUndefined();
      });

      it('of many concurrent updates from the same version exactly one wins', async () => {
        const created = await create(makeRecord(uid('task')));
        const results = await Promise.allSettled(
          Array.from({ length: 6 }, (_, index) =>
            update(created, changed(created, { goal: `writer ${index}` }), {
              history: [assistant(1, `writer ${index}`)],
            })
          )
        );
        const won = results.filter((result) => result.status === 'fulfilled');
        expect(won).toHaveLength(1);
        for (const result of results) {
          if (result.status === 'rejected') {
            expect(result.reason).toBeInstanceOf(ConcurrencyConflictError);
          }
        }
        const winner = (won[0] as PromiseFulfilledResult<TaskRecord>).value;
        expect(await store.get(created.task.id)).toEqual(winner);
        expect(await store.readHistory(created.task.id)).toEqual([
          assistant(1, goalOf(winner) as string),
        ]);
      });

      it('refuses a record that would not read back, writing nothing', async () => {
        const created = await create(makeRecord(uid('task')));
        const badLoop = { ...created.loop, extra: 1 } as unknown as LoopState;
        await expect(
          update(created, { ...created, loop: badLoop }, { history: [assistant(1)] })
        ).rejects.toBeInstanceOf(InvalidTaskRecordError);
        expect(await store.get(created.task.id)).toEqual(created);
        expect(await store.readHistory(created.task.id)).toEqual([]);
      });

      it('appends events after the loaded eventSeq and advances it', async () => {
        const created = await create(makeRecord(uid('task')), {
          events: [statusOf(makeRecord('x'))],
        });
        const taskId = created.task.id;
        const next = await update(created, created, {
          events: [statusOf(created), statusOf(created)],
        });
        expect(next.eventSeq).toBe(3);
        expect((await fixture.events.read(taskId)).map((logged) => logged.seq)).toEqual([1, 2, 3]);
        expect(await fixture.events.lastSeq(taskId)).toBe(3);
      });
    });

    describe('guarded commits', () => {
      it('add to an open task without writing its record', async () => {
        const created = await create(makeRecord(uid('task')));
        const taskId = created.task.id;
        const { record, enqueued } = await store.commit({
          kind: 'guarded',
          taskId,
          unparked: true,
          enqueue: [message('g1')],
          audit: [{ key: 'a', value: 'seen' }],
        });
        expect(record).toBeUndefined();
        expect(enqueued).toEqual([1]);
        // The record is as it was but for its inbox count, which is not part of its version, and
        // its inbox, when it says it whole.
        const { inbox, ...read } = (await store.get(taskId)) as TaskRecord;
        const { inbox: _before, ...before } = created;
        expect(read).toEqual({ ...before, inboxCount: 1 });
        expect(await store.readInbox(taskId)).toEqual([{ ...message('g1'), seq: 1 }]);
        expect(inbox ?? [{ ...message('g1'), seq: 1 }]).toEqual([{ ...message('g1'), seq: 1 }]);
        expect(await store.getAudit(taskId, 'a')).toBe('seen');
      });

      it('are refused for a missing or ended task, and with `unparked` for a parked one', async () => {
        const missing = uid('task');
        const guarded = (taskId: string, unparked: boolean) =>
          store.commit({
            kind: 'guarded',
            taskId,
            unparked,
            enqueue: [message(uid('m'))],
          });
        await expect(guarded(missing, false)).rejects.toBeInstanceOf(ConcurrencyConflictError);

        const ended = await create(makeRecord(uid('task'), { state: 'TASK_STATE_COMPLETED' }));
        await expect(guarded(ended.task.id, false)).rejects.toBeInstanceOf(
          ConcurrencyConflictError
        );
        expect(await store.readInbox(ended.task.id)).toEqual([]);

        const open = await create(makeRecord(uid('task'), { state: 'TASK_STATE_INPUT_REQUIRED' }));
        const parked = await update(open, { ...open, loop: { ...open.loop, parkToken: 'tok' } });
        await expect(guarded(parked.task.id, true)).rejects.toBeInstanceOf(
          ConcurrencyConflictError
        );
        expect(await store.readInbox(parked.task.id)).toEqual([]);
        await guarded(parked.task.id, false);
        expect(await store.readInbox(parked.task.id)).toHaveLength(1);
      });

      it('of 50 concurrent senders all succeed, each item once, with distinct seqs', async () => {
        const created = await create(makeRecord(uid('task'), { state: 'TASK_STATE_WORKING' }));
        const taskId = created.task.id;
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, index) =>
            store.commit({
              kind: 'guarded',
              taskId,
              unparked: true,
              enqueue: [message(`s${index}`)],
            })
          )
        );
        const seqs = results.map((result) => result.enqueued[0]);
        expect(new Set(seqs).size).toBe(50);
        const inbox = await store.readInbox(taskId);
        expect(inbox.map((item) => item.id).sort()).toEqual(
          Array.from({ length: 50 }, (_, index) => `s${index}`).sort()
        );
        expect(inbox.map((item) => item.seq)).toEqual(
          [...inbox.map((item) => item.seq)].sort((a, b) => a - b)
        );
      });

      it('that enqueue advance the inbox count, whatever count they read; others leave it', async () => {
        const created = await create(makeRecord(uid('task')), { enqueue: [message('first')] });
        const taskId = created.task.id;
        expect(created.inboxCount).toBe(1);
        await store.commit({
          kind: 'guarded',
          taskId,
          unparked: false,
          seen: ['control-1'],
          audit: [{ key: 'control-1', value: 'audited' }],
        });
        expect(await store.get(taskId)).toEqual(created);
        await store.commit({
          kind: 'guarded',
          taskId,
          unparked: false,
          enqueue: [message('second'), message('third')],
        });
        expect((await store.get(taskId))?.inboxCount).toBe(3);
        // An update made on the record as created: its item counts on top of the two since, and
        // the record it answers with counts at least what it read and added.
        const { record: updated } = await store.commit({
          kind: 'update',
          base: created,
          record: changed(created, { turn: 1 }),
          enqueue: [message('fourth')],
        });
        expect(updated?.inboxCount).toBeGreaterThanOrEqual(2);
        expect(updated?.inboxCount).toBeLessThanOrEqual(4);
        expect((await store.get(taskId))?.inboxCount).toBe(4);
      });
    });

    describe('park commits', () => {
      const parkOf = (record: TaskRecord, token = 'token-1') => ({
        kind: 'park' as const,
        taskId: record.task.id,
        version: record.version,
        inboxCount: record.inboxCount,
        token,
      });

      it('store the token and a new version, and nothing else', async () => {
        const created = await create(makeRecord(uid('task')), { enqueue: [message('first')] });
        const committed = await store.commit(parkOf(created));
        expect(committed).toEqual({ enqueued: [] });
        expect(await store.get(created.task.id)).toEqual({
          ...created,
          version: created.version + 1,
          loop: { ...created.loop, parkToken: 'token-1' },
        });
      });

      it('are refused, writing nothing, once the record or its inbox moved on', async () => {
        const created = await create(makeRecord(uid('task')));
        const taskId = created.task.id;
        const turned = await update(created, changed(created, { turn: 1 }));
        await expect(store.commit(parkOf(created))).rejects.toBeInstanceOf(
          ConcurrencyConflictError
        );
        expect(await store.get(taskId)).toEqual(turned);

        await store.commit({
          kind: 'guarded',
          taskId,
          unparked: true,
          enqueue: [message('raced')],
        });
        await expect(store.commit(parkOf(turned))).rejects.toBeInstanceOf(ConcurrencyConflictError);
        expect((await store.get(taskId))?.loop.parkToken).toBeNull();
        expect((await store.get(taskId))?.version).toBe(turned.version);
      });

      it('park a task that a later update reads parked, and a guarded message to it refuses', async () => {
        const created = await create(makeRecord(uid('task')));
        const taskId = created.task.id;
        await store.commit(parkOf(created, 'tok'));
        const parked = (await store.get(taskId))!;
        expect(parked.loop.parkToken).toBe('tok');
        await expect(
          store.commit({
            kind: 'guarded',
            taskId,
            unparked: true,
            enqueue: [message('wakes')],
          })
        ).rejects.toBeInstanceOf(ConcurrencyConflictError);
        const claimed = await update(parked, {
          ...parked,
          loop: { ...parked.loop, parkToken: null },
        });
        expect(claimed.loop.parkToken).toBeNull();
        expect((await store.get(taskId))?.loop.parkToken).toBeNull();
      });
    });

    describe('budget accounts', () => {
      // Each reservation for a call of its own, unless a test names the call.
      const reserve = (...holds: { taskId: string; amounts: BudgetAmounts }[]) =>
        reserveFor(uid('call'), ...holds);
      const reserveFor = (call: string, ...holds: { taskId: string; amounts: BudgetAmounts }[]) =>
        store.commit({ kind: 'reserve', taskId: holds[0]?.taskId ?? 'none', call, holds });

      it('a created task opens its account with its own credit, and a record without one has none', async () => {
        const bare = await create(makeRecord(uid('task')));
        expect(bare.budgetAvailable).toBeUndefined();
        const record = makeRecord(uid('task'));
        const taskId = record.task.id;
        const created = await create(record, {
          budgetCredits: [{ taskId, amounts: { usd: 2.5, model_calls: 10 } }],
        });
        expect(created.budgetAvailable).toEqual({ usd: 2.5, model_calls: 10 });
        expect((await store.get(taskId))?.budgetAvailable).toEqual({ usd: 2.5, model_calls: 10 });
      });

      it('a reservation takes from every account, all or none, and names the first that is short', async () => {
        const parent = makeRecord(uid('task'));
        const child = makeRecord(uid('task'));
        await create(parent, {
          budgetCredits: [{ taskId: parent.task.id, amounts: { input_tokens: 1_000 } }],
        });
        const childStored = await create(child, {
          budgetCredits: [{ taskId: child.task.id, amounts: { model_calls: 2 } }],
        });
        const holds = [
          { taskId: child.task.id, amounts: { model_calls: 1 } },
          { taskId: parent.task.id, amounts: { input_tokens: 600 } },
        ];
        expect(await reserve(...holds)).toEqual({ enqueued: [] });
        // The parent has 400 left: the second call is refused whole, the child's call not taken.
        expect(await reserve(...holds)).toEqual({ enqueued: [], exhausted: parent.task.id });
        expect((await store.get(child.task.id))?.budgetAvailable).toEqual({ model_calls: 1 });
        expect((await store.get(parent.task.id))?.budgetAvailable).toEqual({ input_tokens: 400 });
        // A limit the account does not have has nothing left; the record's version never moved.
        expect(
          await reserve({ taskId: child.task.id, amounts: { model_calls: 1, usd: 0.01 } })
        ).toEqual({ enqueued: [], exhausted: child.task.id });
        expect((await store.get(child.task.id))?.version).toBe(childStored.version);
      });

      it('a reservation for a call reserved for already takes nothing again; the next call takes', async () => {
        const parent = makeRecord(uid('task'));
        const child = makeRecord(uid('task'));
        await create(parent, {
          budgetCredits: [{ taskId: parent.task.id, amounts: { model_calls: 5 } }],
        });
        await create(child);
        const holds = [{ taskId: parent.task.id, amounts: { model_calls: 2 } }];
        // The child reserves from its parent's account: the child's call is the one marked.
        const once = (call: string) =>
          store.commit({ kind: 'reserve', taskId: child.task.id, call, holds });
        expect(await once('1:1')).toEqual({ enqueued: [] });
        expect(await once('1:1')).toEqual({ enqueued: [] });
        expect((await store.get(parent.task.id))?.budgetAvailable).toEqual({ model_calls: 3 });
        expect(await once('1:2')).toEqual({ enqueued: [] });
        expect((await store.get(parent.task.id))?.budgetAvailable).toEqual({ model_calls: 1 });
        // A call refused for a short account is not marked: once raised, it is taken.
        expect(await once('1:3')).toEqual({ enqueued: [], exhausted: parent.task.id });
        await store.commit({
          kind: 'guarded',
          taskId: parent.task.id,
          unparked: false,
          budgetCredits: [{ taskId: parent.task.id, amounts: { model_calls: 1 } }],
        });
        expect(await once('1:3')).toEqual({ enqueued: [] });
        expect((await store.get(parent.task.id))?.budgetAvailable).toEqual({ model_calls: 0 });
        // Another task's call of the same name is its own.
        expect(await reserveFor('1:3', { taskId: parent.task.id, amounts: {} })).toEqual({
          enqueued: [],
        });
      });

      it('credits on an update add to the own account and to another task’s, whatever its version', async () => {
        const parent = makeRecord(uid('task'));
        const child = makeRecord(uid('task'));
        const parentStored = await create(parent, {
          budgetCredits: [{ taskId: parent.task.id, amounts: { usd: 1 } }],
        });
        const childStored = await create(child, {
          budgetCredits: [{ taskId: child.task.id, amounts: { output_tokens: 50 } }],
        });
        await reserve(
          { taskId: child.task.id, amounts: { output_tokens: 50 } },
          { taskId: parent.task.id, amounts: { usd: 0.75 } }
        );
        const settled = await update(childStored, changed(childStored, { turn: 1 }), {
          budgetCredits: [
            { taskId: child.task.id, amounts: { output_tokens: 30 } },
            { taskId: parent.task.id, amounts: { usd: 0.5, input_tokens: 7 } },
          ],
        });
        // The update's answer has the account as read: the reservation was made since.
        expect(settled.budgetAvailable).toEqual({ output_tokens: 50 });
        expect((await store.get(child.task.id))?.budgetAvailable).toEqual({ output_tokens: 30 });
        const parentNow = await store.get(parent.task.id);
        // A credit opens a limit the account lacked; the other record's version is untouched.
        expect(parentNow?.budgetAvailable).toEqual({ usd: 0.75, input_tokens: 7 });
        expect(parentNow?.version).toBe(parentStored.version);
      });

      it('a refused update writes none of its credits', async () => {
        const record = makeRecord(uid('task'));
        const created = await create(record, {
          budgetCredits: [{ taskId: record.task.id, amounts: { model_calls: 3 } }],
        });
        await update(created, changed(created, { turn: 1 }));
        await expect(
          update(created, changed(created, { turn: 2 }), {
            budgetCredits: [{ taskId: record.task.id, amounts: { model_calls: 5 } }],
          })
        ).rejects.toBeInstanceOf(ConcurrencyConflictError);
        expect((await store.get(record.task.id))?.budgetAvailable).toEqual({ model_calls: 3 });
      });
    });

    describe('list', () => {
      it('lists by contextId', async () => {
        const context = uid('ctx');
        const a = uid('task');
        const b = uid('task');
        await create(makeRecord(b, { contextId: context }));
        await create(makeRecord(a, { contextId: context }));
        await create(makeRecord(uid('task'), { contextId: uid('ctx') }));
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
        await create(makeRecord(both, { participants: [alice, bob] }));
        await create(makeRecord(onlyBob, { participants: [bob] }));
        expect(ids(await store.list({ participantId: alice }))).toEqual([both]);
        expect(ids(await store.list({ participantId: bob })).sort()).toEqual(
          [both, onlyBob].sort()
        );
        expect(await store.list({ participantId: uid('nobody') })).toEqual([]);
      });

      it('lists no task under the agent’s own id, and the others’ tasks as before', async () => {
        const { agentId } = fixture;
        if (agentId === undefined) return;
        const alice = uid('alice');
        const task = uid('task');
        const created = await create(makeRecord(task, { participants: [agentId, alice] }));
        await update(created, changed(created, { participants: [alice, agentId, uid('bob')] }));
        expect(ids(await store.list({ participantId: alice }))).toEqual([task]);
        expect(await store.list({ participantId: agentId })).toEqual([]);
        // The agent is still a participant of the task as read.
        const participants = readExtension((await store.get(task))!.task).participants;
        expect(participants.map((participant) => participant.id)).toContain(agentId);
      });

      it('with both filters lists the tasks matching both', async () => {
        const context = uid('ctx');
        const carol = uid('carol');
        const match = uid('task');
        await create(makeRecord(match, { contextId: context, participants: [carol] }));
        await create(makeRecord(uid('task'), { contextId: context, participants: ['x'] }));
        await create(makeRecord(uid('task'), { contextId: uid('ctx'), participants: [carol] }));
        expect(ids(await store.list({ contextId: context, participantId: carol }))).toEqual([
          match,
        ]);
      });

      it('follows participant changes made by update', async () => {
        const dave = uid('dave');
        const erin = uid('erin');
        const created = await create(makeRecord(uid('task'), { participants: [dave] }));
        const updated = await update(created, changed(created, { participants: [erin] }));
        expect(await store.list({ participantId: dave })).toEqual([]);
        expect(await store.list({ participantId: erin })).toEqual([updated]);
      });

      it('takes a whole cast of the most participants a task may have, replaced by another, in one commit', async () => {
        const cast = (name: string) =>
          Array.from({ length: MAX_PARTICIPANTS }, (_, index) => uid(`${name}${index}`));
        const [first, second] = [cast('p'), cast('q')];
        const created = await create(makeRecord(uid('task'), { participants: first }));
        const updated = await update(created, changed(created, { participants: second }));
        expect(await store.list({ participantId: first[0] })).toEqual([]);
        expect(await store.list({ participantId: second.at(-1) })).toEqual([updated]);
      });

      it('lists the open tasks whose start has been pending since before a time, and no others', async () => {
        const pendingSince = (id: string, since: string, options: TaskOptions = {}) => {
          const record = makeRecord(id, options);
          return { ...record, loop: { ...record.loop, startPendingSince: since } };
        };
        const [early, late, ended, arrived] = [uid('task'), uid('task'), uid('task'), uid('task')];
        await create(pendingSince(early, '2026-01-01T00:00:00.000Z'));
        await create(pendingSince(late, '2026-01-01T00:10:00.000Z'));
        await create(
          pendingSince(ended, '2026-01-01T00:00:00.000Z', { state: 'TASK_STATE_CANCELED' })
        );
        const written = await create(pendingSince(arrived, '2026-01-01T00:00:00.000Z'));
        await update(written, { ...written, loop: { ...written.loop, startPendingSince: null } });
        // The DynamoDB suites share a table: only this test's tasks are looked at.
        const mine = new Set([early, late, ended, arrived]);
        const listed = async (before: string) =>
          (await store.list({ startPendingBefore: before })).filter((record) =>
            mine.has(record.task.id)
          );

        const first = await listed('2026-01-01T00:05:00.000Z');
        expect(ids(first)).toEqual([early]);
        expect(first[0]).toEqual(await store.get(early));
        expect(ids(await listed('2026-01-01T00:20:00.000Z')).sort()).toEqual([early, late].sort());
        expect(await listed('2026-01-01T00:00:00.000Z')).toEqual([]);
      });

      it('lists the current version of each task', async () => {
        const context = uid('ctx');
        const created = await create(makeRecord(uid('task'), { contextId: context }));
        const updated = await update(created, changed(created, { state: 'TASK_STATE_WORKING' }));
        expect(await store.list({ contextId: context })).toEqual([updated]);
      });

      it('an empty filter matches nothing; no filter lists every task', async () => {
        const id = uid('task');
        await create(makeRecord(id));
        expect(await store.list({ contextId: '' })).toEqual([]);
        expect(await store.list({ participantId: '' })).toEqual([]);
        expect(ids(await store.list({}))).toContain(id);
      });
    });

    describe('history', () => {
      it('returns entries after afterSeq in ascending order, and keeps tasks apart', async () => {
        const one = await create(makeRecord(uid('task')), {
          history: [assistant(3), assistant(1)],
        });
        await update(one, one, { history: [assistant(2), assistant(10)] });
        const two = await create(makeRecord(uid('task')), { history: [assistant(1, 'two')] });
        expect(await store.readHistory(one.task.id)).toEqual([
          assistant(1),
          assistant(2),
          assistant(3),
          assistant(10),
        ]);
        expect(await store.readHistory(one.task.id, 2)).toEqual([assistant(3), assistant(10)]);
        expect(await store.readHistory(one.task.id, 10)).toEqual([]);
        expect(await store.readHistory(two.task.id)).toEqual([assistant(1, 'two')]);
        expect(await store.readHistory(uid('missing'))).toEqual([]);
      });

      it('returns entries up to throughSeq, when given, whatever the number', async () => {
        const one = await create(makeRecord(uid('task')), {
          history: [1, 2, 3, 4, 5].map((seq) => assistant(seq)),
        });
        const seqs = async (afterSeq: number, throughSeq: number) =>
          (await store.readHistory(one.task.id, afterSeq, throughSeq)).map((entry) => entry.seq);
        expect(await seqs(1, 3)).toEqual([2, 3]);
        expect(await seqs(0, 5)).toEqual([1, 2, 3, 4, 5]);
        expect(await seqs(0, 3.5)).toEqual([1, 2, 3]);
        expect(await seqs(0, Number.POSITIVE_INFINITY)).toEqual([1, 2, 3, 4, 5]);
        expect(await seqs(3, 3)).toEqual([]);
        expect(await seqs(3, 1)).toEqual([]);
        expect(await seqs(0, -1)).toEqual([]);
        expect(await seqs(0, Number.NaN)).toEqual([]);
      });

      it('keeps every kind of entry', async () => {
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
        const created = await create(makeRecord(uid('task')), { history: entries });
        expect(await store.readHistory(created.task.id)).toEqual(entries);
      });
    });

    describe('inbox', () => {
      it('gives increasing seqs per task from 1; read returns what is not consumed, ascending', async () => {
        const created = await create(makeRecord(uid('task')), { enqueue: [message('m1')] });
        const taskId = created.task.id;
        const other = await create(makeRecord(uid('task')), { enqueue: [message('m1')] });
        const note: InboxItemDraft = {
          kind: 'note',
          id: 'n1',
          fromTaskId: 'child',
          text: 'child finished',
          result: true,
        };
        const { enqueued } = await store.commit({
          kind: 'update',
          base: created,
          record: created,
          enqueue: [message('m2'), note],
        });
        expect(enqueued).toEqual([2, 3]);
        const inbox = await store.readInbox(taskId);
        expect(inbox).toEqual([
          { ...message('m1'), seq: 1 },
          { ...message('m2'), seq: 2 },
          { ...note, seq: 3 },
        ]);
        expect(await store.readInbox(other.task.id)).toEqual([{ ...message('m1'), seq: 1 }]);
        expect(await store.readInbox(uid('missing'))).toEqual([]);

        const current = (await store.get(taskId)) as TaskRecord;
        await update(current, current, { consumed: inbox.slice(0, 2) });
        expect(await store.readInbox(taskId)).toEqual([{ ...note, seq: 3 }]);
        // An id is remembered after its item is consumed.
        expect(await store.inboxSeqOf(taskId, 'm1')).toBe(1);
        expect(await store.inboxSeqOf(taskId, 'n1')).toBe(3);
        expect(await store.inboxSeqOf(taskId, 'never')).toBeUndefined();
      });

      it('refuses an id enqueued or seen before, writing nothing of that commit', async () => {
        const created = await create(makeRecord(uid('task')), {
          enqueue: [message('a', 'first')],
          seen: ['control-1'],
        });
        const taskId = created.task.id;
        expect(await store.inboxSeqOf(taskId, 'control-1')).toBe(0);
        for (const writes of [
          { enqueue: [message('a', 'retry')], history: [assistant(1)] },
          { seen: ['a'], history: [assistant(1)] },
          { enqueue: [message('control-1')], history: [assistant(1)] },
        ] satisfies CommitWrites[]) {
          await expect(update(created, created, writes)).rejects.toBeInstanceOf(
            ConcurrencyConflictError
          );
        }
        expect(await store.get(taskId)).toEqual(created);
        expect(await store.readHistory(taskId)).toEqual([]);
        expect(await store.readInbox(taskId)).toEqual([{ ...message('a', 'first'), seq: 1 }]);
      });

      it('deduplicates long ids too', async () => {
        const long = `m-${'é'.repeat(3000)}`;
        const created = await create(makeRecord(uid('task')), { enqueue: [message(long)] });
        const taskId = created.task.id;
        await expect(
          store.commit({
            kind: 'guarded',
            taskId,
            unparked: false,
            enqueue: [message(long)],
          })
        ).rejects.toBeInstanceOf(ConcurrencyConflictError);
        await store.commit({
          kind: 'guarded',
          taskId,
          unparked: false,
          enqueue: [message(`${long}x`)],
        });
        expect(await store.inboxSeqOf(taskId, long)).toBe(1);
        expect((await store.readInbox(taskId)).map((item) => item.id)).toEqual([long, `${long}x`]);
      });

      it('that a record says it has whole is what a read of the inbox returns then', async () => {
        const agrees = async (taskId: string) => {
          const { inbox } = (await store.get(taskId)) as TaskRecord;
          if (inbox !== undefined) expect(inbox).toEqual(await store.readInbox(taskId));
        };
        const created = await create(makeRecord(uid('task')), { enqueue: [message('m1')] });
        const taskId = created.task.id;
        // The record a commit answers with says what the store does.
        expect(created.inbox ?? (await store.readInbox(taskId))).toEqual(
          await store.readInbox(taskId)
        );
        await agrees(taskId);
        const added = await update(created, changed(created, { turn: 1 }), {
          enqueue: [message('m2', 'x'.repeat(5_000))],
        });
        if (added.inbox !== undefined) expect(added.inbox).toEqual(await store.readInbox(taskId));
        await agrees(taskId);
        await store.commit({ kind: 'guarded', taskId, unparked: false, enqueue: [message('m3')] });
        await agrees(taskId);
        const current = (await store.get(taskId)) as TaskRecord;
        const consumed = await update(current, changed(current, { turn: 2 }), {
          consumed: await store.readInbox(taskId),
        });
        await agrees(taskId);
        expect(await store.readInbox(taskId)).toEqual([]);
        // Once nothing waits apart from it, a record that began counting says its inbox whole.
        if (consumed.inbox !== undefined) expect(consumed.inbox).toEqual([]);
      });

      it('stores one item for concurrent commits of the same id', async () => {
        const created = await create(makeRecord(uid('task')));
        const taskId = created.task.id;
        const results = await Promise.allSettled(
          Array.from({ length: 5 }, () =>
            store.commit({
              kind: 'guarded',
              taskId,
              unparked: false,
              enqueue: [message('same')],
            })
          )
        );
        expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
        expect(await store.readInbox(taskId)).toHaveLength(1);
      });
    });

    describe('audit records and push configs', () => {
      it('are written by key with the commit: a later record replaces the earlier', async () => {
        const created = await create(makeRecord(uid('task')), {
          audit: [{ key: 'k', value: { answer: 1 } }],
        });
        const taskId = created.task.id;
        expect(await store.getAudit(taskId, 'k')).toEqual({ answer: 1 });
        await update(created, created, { audit: [{ key: 'k', value: { answer: 2 } }] });
        expect(await store.getAudit(taskId, 'k')).toEqual({ answer: 2 });
        expect(await store.getAudit(uid('task'), 'k')).toBeUndefined();
      });

      it('keep JSON values of any shape, under long keys', async () => {
        const value = { list: [1, 'two', null, { deep: [false] }], empty: '', zero: 0 };
        const longKey = `tool:${'k'.repeat(4000)}`;
        const created = await create(makeRecord(uid('task')), {
          audit: [
            { key: longKey, value },
            { key: 'null', value: null },
          ],
        });
        expect(await store.getAudit(created.task.id, longKey)).toEqual(value);
        expect(await store.getAudit(created.task.id, `${longKey}!`)).toBeUndefined();
        expect(await store.getAudit(created.task.id, 'null')).toBeNull();
      });

      it('stores push configs where the push-config store reads them', async () => {
        const record = makeRecord(uid('task'));
        const config = pushConfig(record.task.id, 'p1');
        const created = await create(record, { pushConfigs: [config] });
        expect(await fixture.pushConfigs.get(record.task.id, 'p1')).toEqual(config);
        expect(created.pushConfigured).toBe(true);
        expect((await store.get(record.task.id))?.pushConfigured).toBe(true);
      });

      it('a record read says whether the task has a push config; a config’s put or delete is not a new version', async () => {
        const created = await create(makeRecord(uid('task')));
        const taskId = created.task.id;
        expect(created.pushConfigured).toBeUndefined();
        await fixture.pushConfigs.put(pushConfig(taskId, 'p1'));
        await fixture.pushConfigs.put(pushConfig(taskId, 'p2'));
        const configured = (await store.get(taskId)) as TaskRecord;
        expect(configured).toMatchObject({ version: created.version, pushConfigured: true });
        await fixture.pushConfigs.delete(taskId, 'p1');
        expect((await store.get(taskId))?.pushConfigured).toBe(true);
        await fixture.pushConfigs.delete(taskId, 'p2');
        await fixture.pushConfigs.delete(taskId, 'p2');
        const none = (await store.get(taskId)) as TaskRecord;
        expect(none.pushConfigured).toBeUndefined();
        expect(none.version).toBe(created.version);
        const [listed] = await store
          .list({ participantId: 'alice' })
          .then((records) => records.filter((record) => record.task.id === taskId));
        expect(listed?.pushConfigured).toBeUndefined();
      });

      it('refuses a commit made on a record read before the task’s first push config came or its last went', async () => {
        const created = await create(makeRecord(uid('task')));
        const taskId = created.task.id;
        await fixture.pushConfigs.put(pushConfig(taskId, 'p1'));
        await expect(update(created, changed(created, { turn: 1 }))).rejects.toBeInstanceOf(
          ConcurrencyConflictError
        );
        const configured = (await store.get(taskId)) as TaskRecord;
        const next = await update(configured, changed(configured, { turn: 2 }));
        expect(next.pushConfigured).toBe(true);
        await fixture.pushConfigs.delete(taskId, 'p1');
        await expect(update(next, changed(next, { turn: 3 }))).rejects.toBeInstanceOf(
          ConcurrencyConflictError
        );
        const again = (await store.get(taskId)) as TaskRecord;
        expect((await update(again, changed(again, { turn: 4 }))).pushConfigured).toBeUndefined();
      });
    });

    describe('large payloads', () => {
      it('keeps a message, transcript entry and audit record of 1 MiB whole, and a consumed one leaves nothing', async () => {
        // Multi-byte characters and a character outside the BMP, so no piece splits one.
        const big = `${'é'.repeat(300_000)}🙂${'x'.repeat(748_000)}`;
        const created = await create(makeRecord(uid('task')), {
          enqueue: [message('big', big)],
          history: [assistant(1, big)],
          audit: [{ key: 'big', value: { text: big } }],
        });
        const taskId = created.task.id;
        const [item] = await store.readInbox(taskId);
        expect(item?.text).toBe(big);
        expect((await store.readHistory(taskId))[0]).toEqual(assistant(1, big));
        expect(await store.getAudit(taskId, 'big')).toEqual({ text: big });

        await update(created, created, { consumed: [item!] });
        expect(await store.readInbox(taskId)).toEqual([]);
        const after = (await store.get(taskId)) as TaskRecord;
        await update(after, after, { enqueue: [message('small')] });
        expect((await store.readInbox(taskId)).map((entry) => entry.id)).toEqual(['small']);
      });
    });

    describe('copies', () => {
      it('mutating a returned record or the input never changes the store', async () => {
        const input = makeRecord(uid('task'));
        const created = await create(input);
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

      it('a fork’s create lists the fork on its original and writes the original’s record of it, leaving its version', async () => {
        const original = await create(makeRecord(uid('task')));
        const originalId = original.task.id;
        const forks: string[] = [];
        for (const n of [1, 2]) {
          const fork = makeRecord(uid('fork'));
          forks.push(fork.task.id);
          await store.commit({
            kind: 'create',
            record: fork,
            forkOf: {
              taskId: originalId,
              forkId: fork.task.id,
              audit: { key: `fork:${fork.task.id}`, value: { n } },
            },
          });
        }
        const after = (await store.get(originalId)) as TaskRecord;
        expect(after.version).toBe(original.version);
        expect(forksOf(after)).toEqual(forks);
        expect(await store.getAudit(originalId, `fork:${forks[1]}`)).toEqual({ n: 2 });
        // A later write of the original (from a record read before a fork) keeps every fork.
        await update(original, original);
        const reread = (await store.get(originalId)) as TaskRecord;
        expect(forksOf(reread)).toEqual(forks);
      });

      it('refuses a fork’s create when its original is missing, writing nothing', async () => {
        const fork = makeRecord(uid('fork'));
        await expect(
          store.commit({
            kind: 'create',
            record: fork,
            history: [assistant(1)],
            forkOf: {
              taskId: uid('missing'),
              forkId: fork.task.id,
              audit: { key: 'fork:x', value: {} },
            },
          })
        ).rejects.toThrow(ConcurrencyConflictError);
        expect(await store.get(fork.task.id)).toBeUndefined();
      });

      it('creates a task carrying a transcript longer than one write holds', async () => {
        const record = makeRecord(uid('task'));
        const history = Array.from({ length: 250 }, (_, index) => assistant(index + 1));
        const created = await create(
          { ...record, loop: { ...record.loop, historySeq: 250 } },
          { history, events: [statusOf(record)] }
        );
        expect(created.loop.historySeq).toBe(250);
        expect(await store.readHistory(record.task.id)).toEqual(history);
        await expect(create(record, { history })).rejects.toThrow(AlreadyExistsError);
      });

      it('mutating returned history, inbox and audit values never changes the store', async () => {
        const entry: { seq: number; kind: 'assistant_message'; text: string } = {
          seq: 1,
          kind: 'assistant_message',
          text: 'original',
        };
        const draft = message('m', 'original');
        const value = { list: [1] };
        const created = await create(makeRecord(uid('task')), {
          history: [entry],
          enqueue: [draft],
          audit: [{ key: 'k', value }],
        });
        const taskId = created.task.id;
        entry.text = 'mutated input';
        (draft as { text: string }).text = 'mutated input';
        value.list.push(2);
        const [read] = await store.readHistory(taskId);
        (read as { text: string }).text = 'mutated output';
        const [item] = await store.readInbox(taskId);
        (item as { text: string }).text = 'mutated output';
        const kept = (await store.getAudit<{ list: number[] }>(taskId, 'k')) as { list: number[] };
        kept.list.push(3);
        expect(await store.readHistory(taskId)).toEqual([assistant(1, 'original')]);
        expect((await store.readInbox(taskId))[0]?.text).toBe('original');
        expect(await store.getAudit(taskId, 'k')).toEqual({ list: [1] });
      });
    });
  });
};
