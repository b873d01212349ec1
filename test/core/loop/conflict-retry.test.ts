import { describe, expect, it } from 'vitest';
import { ConcurrencyConflictError } from '../../../functions/core/errors.js';
import type { LoopDeps } from '../../../functions/core/loop/deps.js';
import { decideAndCommit } from '../../../functions/core/loop/records.js';
import type { TaskCommit, TaskStore } from '../../../functions/core/ports/task-store.js';
import { harnessWith } from '../../support/harness.js';

const COMMIT: TaskCommit = { kind: 'guarded', taskId: 'task-1', unparked: false };

/** Deps whose store refuses the first `conflicts` commits, and that record the pauses asked for. */
const depsWith = (conflicts: number, failure?: Error) => {
  const { harness } = harnessWith([]);
  let commits = 0;
  const store: TaskStore = {
    ...harness.deps.store,
    commit: async () => {
      commits++;
      if (failure !== undefined) throw failure;
      if (commits <= conflicts) throw new ConcurrencyConflictError('task-1: moved on');
      return { enqueued: [] };
    },
  };
  const pauses: number[] = [];
  const deps: LoopDeps = {
    ...harness.deps,
    store,
    pauseAfterConflict: async (attempt) => {
      pauses.push(attempt);
    },
  };
  let decisions = 0;
  const run = () =>
    decideAndCommit(
      deps,
      async () => undefined,
      () => {
        decisions++;
        return { result: 'done', commit: COMMIT };
      }
    );
  return { run, pauses, decisions: () => decisions };
};

describe('an operation that lost a race reads and decides again after a pause', () => {
  it('pauses after each conflict, longer as they mount, and commits once the race is won', async () => {
    const { run, pauses, decisions } = depsWith(2);
    expect((await run()).result).toBe('done');
    expect(pauses).toEqual([1, 2]);
    expect(decisions()).toBe(3);
  });

  it('does not pause when nothing conflicts', async () => {
    const { run, pauses } = depsWith(0);
    await run();
    expect(pauses).toEqual([]);
  });

  it('gives up with the conflict after forty attempts, pausing between them', async () => {
    const { run, pauses, decisions } = depsWith(Number.POSITIVE_INFINITY);
    await expect(run()).rejects.toBeInstanceOf(ConcurrencyConflictError);
    expect(decisions()).toBe(40);
    expect(pauses).toEqual(Array.from({ length: 39 }, (_, index) => index + 1));
  });

  it('does not pause or retry on any other failure', async () => {
    const { run, pauses, decisions } = depsWith(0, new Error('table missing'));
    await expect(run()).rejects.toThrow('table missing');
    expect(pauses).toEqual([]);
    expect(decisions()).toBe(1);
  });
});
