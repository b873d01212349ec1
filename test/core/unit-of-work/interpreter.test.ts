import { describe, expect, it, vi } from 'vitest';
import { ConcurrencyConflictError, type ConflictDetail } from '../../../functions/core/errors.js';
import type { LoopDeps } from '../../../functions/core/loop/deps.js';
import { changeOf, withLoop } from '../../../functions/core/loop/records.js';
import type { TaskCommit, TaskStore } from '../../../functions/core/ports/task-store.js';
import type { Wake, Waker } from '../../../functions/core/ports/waker.js';
import { runOperation } from '../../../functions/core/unit-of-work/interpreter.js';
import {
  answer,
  checkpoint,
  commitThen,
  type Facts,
  need,
  type Operation,
  type Outcome,
} from '../../../functions/core/unit-of-work/operation.js';
import { ALICE, harnessWith } from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';

/** `store` with `commit` replaced; every other method is the store's own. */
const withCommit = (store: TaskStore, commit: TaskStore['commit']): TaskStore => {
  const names = Object.getOwnPropertyNames(Object.getPrototypeOf(store)) as (keyof TaskStore)[];
  const bound = Object.fromEntries(
    names
      .filter((name) => typeof store[name] === 'function' && (name as string) !== 'constructor')
      .map((name) => [name, (store[name] as (...args: unknown[]) => unknown).bind(store)])
  ) as unknown as TaskStore;
  return { ...bound, commit };
};

/**
 * A stored task, and deps whose store refuses the first `conflicts` commits (or fails every one
 * with `failure`) and that record the pauses asked for.
 */
const setUp = async (
  conflicts = 0,
  failure?: Error,
  refusal?: { withRecord: boolean; idsFree: boolean }
) => {
  const { harness, model } = harnessWith([{ text: 'one' }, { text: 'two' }]);
  const started = await harness.start(textMessage(''), ALICE);
  const taskId = started.task.id;
  const stored = harness.deps.store;
  const commits: TaskCommit[] = [];
  const store = withCommit(stored, async (commit) => {
    commits.push(commit);
    if (failure !== undefined) throw failure;
    if (commits.length <= conflicts) {
      // A store that says how the task stood (it had not moved: this store refuses anyway).
      const detail: ConflictDetail = {
        idsFree: refusal?.idsFree === true,
        ...(refusal?.withRecord === true ? { current: await stored.get(taskId) } : {}),
      };
      throw new ConcurrencyConflictError(`${taskId}: moved on`, detail);
    }
    return stored.commit(commit);
  });
  const reads = { record: vi.spyOn(store, 'get'), inbox: vi.spyOn(store, 'readInbox') };
  const pauses: number[] = [];
  const deps: LoopDeps = {
    ...harness.deps,
    store,
    pauseAfterConflict: async (attempt) => {
      pauses.push(attempt);
    },
  };
  return { deps, taskId, model, commits, pauses, reads, stored };
};

type CountWants = { inbox: 'read_inbox'; model: 'call_model' };

/** An operation that counts its decisions; it writes a turn count once it has what it asked for. */
const counting = (taskId: string, asks: 'nothing' | 'inbox and model') => {
  const seen: Facts<CountWants, never>[] = [];
  const operation: Operation<string, CountWants> = {
    taskId,
    decide: (facts): Outcome<string, CountWants, never> => {
      seen.push(facts);
      const { record, observed } = facts;
      if (asks === 'inbox and model') {
        if (observed.inbox === undefined) {
          return need<CountWants>({ key: 'inbox', effect: { kind: 'read_inbox', taskId } });
        }
        if (observed.model === undefined) {
          const context = {
            request: {
              instructions: '',
              input: [],
              tools: [],
              cacheKey: taskId,
              maxOutputTokens: 10,
            },
            characters: 0,
          };
          return need<CountWants>({
            key: 'model',
            effect: { kind: 'call_model', taskId, context },
          });
        }
      }
      const change = withLoop(changeOf(record), (loop) => ({ ...loop, turn: loop.turn + 1 }));
      return commitThen(record, change, observed.model?.response.text ?? 'done');
    },
  };
  return { operation, decisions: () => seen.length, seen };
};

describe('the unit of work: read, decide, perform, decide again, commit once', () => {
  it('pauses after each conflict, longer as they mount, and commits once the race is won', async () => {
    const { deps, taskId, pauses } = await setUp(2);
    const { operation, decisions } = counting(taskId, 'nothing');
    const { result, committed } = await runOperation(deps, operation);
    expect(result).toBe('done');
    expect(committed?.record?.loop.turn).toBe(1);
    expect(pauses).toEqual([1, 2]);
    expect(decisions()).toBe(3);
  });

  it('does not pause when nothing conflicts', async () => {
    const { deps, taskId, pauses } = await setUp(0);
    await runOperation(deps, counting(taskId, 'nothing').operation);
    expect(pauses).toEqual([]);
  });

  it('gives up with the conflict after forty attempts, pausing between them', async () => {
    const { deps, taskId, pauses } = await setUp(Number.POSITIVE_INFINITY);
    const { operation, decisions } = counting(taskId, 'nothing');
    await expect(runOperation(deps, operation)).rejects.toBeInstanceOf(ConcurrencyConflictError);
    expect(decisions()).toBe(40);
    expect(pauses).toEqual(Array.from({ length: 39 }, (_, index) => index + 1));
  });

  it('does not pause or retry on any other failure', async () => {
    const { deps, taskId, pauses } = await setUp(0, new Error('table missing'));
    const { operation, decisions } = counting(taskId, 'nothing');
    await expect(runOperation(deps, operation)).rejects.toThrow('table missing');
    expect(pauses).toEqual([]);
    expect(decisions()).toBe(1);
  });

  it('calls the model once across conflicts, and reads the record and the inbox again for each decision', async () => {
    const { deps, taskId, model, reads } = await setUp(2);
    reads.record.mockClear();
    const { operation, seen } = counting(taskId, 'inbox and model');
    const { result } = await runOperation(deps, operation);
    expect(result).toBe('one');
    expect(model.requests).toHaveLength(1);
    expect(reads.record).toHaveBeenCalledTimes(3);
    expect(reads.inbox).toHaveBeenCalledTimes(3);
    // Each attempt's first decision knows the model's answer but not the new inbox.
    expect(
      seen.map((facts) => [facts.conflicts, 'inbox' in facts.observed, 'model' in facts.observed])
    ).toEqual([
      [0, false, false],
      [0, true, false],
      [0, true, true],
      [1, false, true],
      [1, true, true],
      [2, false, true],
      [2, true, true],
    ]);
  });

  it('commits a checkpoint before going on, then decides on the record it wrote, knowing it got there', async () => {
    const { deps, taskId, commits, reads } = await setUp(0);
    reads.record.mockClear();
    const seen: (string | undefined)[] = [];
    const result = await runOperation<number, CountWants, 'marked'>(deps, {
      taskId,
      decide: ({ record, reached }) => {
        seen.push(reached);
        const change = withLoop(changeOf(record), (loop) => ({ ...loop, turn: loop.turn + 1 }));
        return reached === undefined
          ? checkpoint(record, change, 'marked')
          : commitThen(record, change, record.loop.turn);
      },
    });
    expect(seen).toEqual([undefined, 'marked']);
    expect(result.result).toBe(1);
    expect(commits).toHaveLength(2);
    // The record after the checkpoint is the one it committed: not read again.
    expect(reads.record).toHaveBeenCalledTimes(1);
  });

  it('keeps a checkpoint across a later conflict: the operation never goes back before it', async () => {
    const { deps, taskId, stored: store } = await setUp(0);
    const conflictOnce = { done: false };
    const racing: LoopDeps = {
      ...deps,
      store: withCommit(store, async (commit) => {
        const written = await store.commit(commit);
        if (!conflictOnce.done) {
          conflictOnce.done = true;
          // Someone else writes the task right after the checkpoint.
          const record = (await store.get(taskId))!;
          await store.commit({
            kind: 'update',
            base: record,
            record: { ...record, task: { ...record.task } },
          });
        }
        return written;
      }),
    };
    const reachedSeen: (string | undefined)[] = [];
    await runOperation<string, CountWants, 'marked'>(racing, {
      taskId,
      decide: ({ record, reached, conflicts }) => {
        reachedSeen.push(`${reached}:${conflicts}`);
        const change = withLoop(changeOf(record), (loop) => ({ ...loop, turn: loop.turn + 1 }));
        if (reached === undefined) return checkpoint(record, change, 'marked');
        // The checkpoint's record was overtaken: the first final commit conflicts.
        return commitThen(record, change, 'ok');
      },
    });
    expect(reachedSeen).toEqual(['undefined:0', 'marked:0', 'marked:1']);
  });

  it('tries a presumed commit before any read, and reads and decides when it is refused', async () => {
    const { deps, taskId, reads } = await setUp(0);
    const record = (await deps.store.get(taskId))!;
    reads.record.mockClear();
    const presumed = {
      commit: { kind: 'guarded', taskId, unparked: false } as const,
      result: 'presumed',
    };
    const applied = await runOperation(deps, { taskId, presumed, decide: () => answer('decided') });
    expect(applied.result).toBe('presumed');
    expect(reads.record).not.toHaveBeenCalled();

    const stale = {
      commit: {
        kind: 'park',
        taskId,
        token: 't',
        version: record.version - 1,
        inboxCount: 0,
      } as const,
      result: 'presumed',
    };
    const refused = await runOperation(deps, {
      taskId,
      presumed: stale,
      decide: () => answer('decided'),
    });
    expect(refused.result).toBe('decided');
    expect(reads.record).toHaveBeenCalledTimes(1);
  });

  it('reads beside the record on every attempt, and hands the decision what was read', async () => {
    const { deps, taskId, reads } = await setUp(1);
    const beside = vi.fn((conflicts: number) =>
      conflicts === 0
        ? []
        : [{ key: 'inbox' as const, effect: { kind: 'read_inbox' as const, taskId } }]
    );
    const inboxKnown: boolean[] = [];
    await runOperation<string, CountWants, never>(deps, {
      taskId,
      readsBesideRecord: beside,
      decide: ({ record, observed }) => {
        inboxKnown.push(observed.inbox !== undefined);
        return commitThen(
          record,
          withLoop(changeOf(record), (loop) => ({ ...loop })),
          'ok'
        );
      },
    });
    expect(beside.mock.calls).toEqual([[0], [1]]);
    expect(inboxKnown).toEqual([false, true]);
    expect(reads.inbox).toHaveBeenCalledTimes(1);
  });

  it('decides again on the record a refusal carries, unread, and counts it against the ids only when the store could not clear them', async () => {
    const { deps, taskId, reads } = await setUp(1, undefined, { withRecord: true, idsFree: true });
    const beside = vi.fn((_refusedForIds: number) => []);
    const seen: Array<{ conflicts: number; refusedForIds: number }> = [];
    await runOperation<string, CountWants, never>(deps, {
      taskId,
      readsBesideRecord: beside,
      decide: ({ record, conflicts, refusedForIds }) => {
        seen.push({ conflicts, refusedForIds });
        return commitThen(
          record,
          withLoop(changeOf(record), (loop) => ({ ...loop })),
          'ok'
        );
      },
    });
    // One read, before the first decision: the second is taken on the record the refusal carried.
    expect(reads.record).toHaveBeenCalledTimes(1);
    expect(seen).toEqual([
      { conflicts: 0, refusedForIds: 0 },
      { conflicts: 1, refusedForIds: 0 },
    ]);
    expect(beside.mock.calls).toEqual([[0], [0]]);

    const unclear = await setUp(1);
    const counted: number[] = [];
    await runOperation<string, CountWants, never>(unclear.deps, {
      taskId: unclear.taskId,
      decide: ({ record, refusedForIds }) => {
        counted.push(refusedForIds);
        return commitThen(
          record,
          withLoop(changeOf(record), (loop) => ({ ...loop })),
          'ok'
        );
      },
    });
    expect(counted).toEqual([0, 1]);
    expect(unclear.reads.record).toHaveBeenCalledTimes(2);
  });

  it('refuses a decision that asks again for what it was given', async () => {
    const { deps, taskId } = await setUp(0);
    const operation: Operation<string, CountWants> = {
      taskId,
      decide: () => need<CountWants>({ key: 'inbox', effect: { kind: 'read_inbox', taskId } }),
    };
    await expect(runOperation(deps, operation)).rejects.toThrow('asked twice for inbox');
  });
  it('follows the wake its answer calls for once, after the commit is in, and none for a refused or failed one', async () => {
    const { deps, taskId, commits } = await setUp(2);
    const followed: Array<{ wake: Wake; commitsBefore: number }> = [];
    const waker: Waker = {
      follow: async (wake) => {
        followed.push({ wake, commitsBefore: commits.length });
      },
    };
    const { operation } = counting(taskId, 'nothing');
    const wake: Wake = { action: 'ensure-running', taskId, generation: 1 };
    await runOperation({ ...deps, waker }, { ...operation, wakes: () => wake });
    // Two commits refused, the third applied: followed once, after it.
    expect(followed).toEqual([{ wake, commitsBefore: 3 }]);

    const failing = await setUp(0, new Error('table missing'));
    const failed = counting(failing.taskId, 'nothing').operation;
    const failedWakes: Wake[] = [];
    await expect(
      runOperation(
        { ...failing.deps, waker: { follow: async (next) => void failedWakes.push(next) } },
        { ...failed, wakes: () => wake }
      )
    ).rejects.toThrow('table missing');
    expect(failedWakes).toEqual([]);
  });
});
