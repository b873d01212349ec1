import { AlreadyExistsError, ConcurrencyConflictError, TaskNotFoundError } from '../errors.js';
import type { LoopDeps } from '../loop/deps.js';
import type { CommitResult, TaskCommit, TaskRecord } from '../ports/task-store.js';
import { belongsToSnapshot, type EffectResults } from './effects.js';
import type { Committing, Done, Need, Observed, Operation, Wants } from './operation.js';
import { perform } from './perform.js';

/**
 * How many conflicts an operation survives before it gives up a lost race: with the pause between
 * attempts (up to 100 ms each once a few are lost), about two seconds of trying, which fifty
 * senders racing for one parked task never exhaust. Giving up writes nothing and is retryable.
 */
export const MAX_ATTEMPTS = 40;

export interface Performed<T> {
  result: T;
  /** What the operation's last commit wrote; undefined when it wrote nothing. */
  committed: CommitResult | undefined;
}

/** The task's record; a task that is not stored is `TaskNotFoundError`. */
export const readRecord = async (
  deps: Pick<LoopDeps, 'store'>,
  taskId: string
): Promise<TaskRecord> => {
  const record = await deps.store.get(taskId);
  if (record === undefined) throw new TaskNotFoundError(taskId);
  return record;
};

/** Commits, answering the conflict instead when the task moved on since it was read. */
const tryCommit = async (
  deps: LoopDeps,
  { commit, stateChanges }: Committing
): Promise<CommitResult | ConcurrencyConflictError> => {
  let committed: CommitResult;
  try {
    committed = await deps.store.commit(commit);
  } catch (error) {
    if (error instanceof ConcurrencyConflictError) return error;
    throw error;
  }
  const taskId = 'taskId' in commit ? commit.taskId : commit.record.task.id;
  for (const changed of stateChanges ?? []) {
    await deps.hooks.run('task.state_changed', { taskId, ...changed }, () => undefined);
  }
  return committed;
};

/** A finished operation's answer, given the record it leaves (as committed, or as read). */
const answerOf = <T>(done: Done<T>, record: TaskRecord, enqueued: readonly number[] = []): T =>
  done.resultOn === undefined ? done.result : done.resultOn(record, enqueued);

/**
 * The unit of work: the one place an operation's I/O happens. It reads the task, asks the
 * operation to decide, performs each effect the decision needs (once: what it produced is kept
 * for every later decision of this run), decides again, and commits once. On a conflict it
 * pauses, reads again (or takes the record the store refused the commit on) and decides again on
 * the new record, keeping what effects on the world produced (a model call is never made twice)
 * and dropping what belonged to the old snapshot (an inbox read). A checkpoint commits mid-way and the decision goes on from the committed record.
 */
export async function runOperation<T, W extends Wants, C>(
  deps: LoopDeps,
  operation: Operation<T, W, C>
): Promise<Performed<T>> {
  const performed = await decideAndCommit(deps, operation);
  if (operation.wakes !== undefined) await deps.waker.follow(operation.wakes(performed.result));
  return performed;
}

/** `runOperation` up to its commit: the wake it calls for is the caller's to follow. */
async function decideAndCommit<T, W extends Wants, C>(
  deps: LoopDeps,
  operation: Operation<T, W, C>
): Promise<Performed<T>> {
  const { presumed, taskId } = operation;
  if (presumed !== undefined) {
    const committed = await tryCommit(deps, { commit: presumed.commit });
    if (!(committed instanceof ConcurrencyConflictError)) {
      return { result: presumed.result, committed };
    }
  }
  const observed: { [key: string]: EffectResults[keyof EffectResults] } = {};
  const ofTheSnapshot = new Set<string>();
  const forgetSnapshot = () => {
    for (const key of ofTheSnapshot) delete observed[key];
    ofTheSnapshot.clear();
  };
  const performNeed = async ({ key, effect }: Need<W>) => {
    if (key in observed) throw new Error(`${taskId}: an operation asked twice for ${key}`);
    observed[key] = await perform(deps, effect);
    if (belongsToSnapshot(effect.kind)) ofTheSnapshot.add(key);
  };
  let reached: C | undefined;
  let record = operation.first;
  let conflicts = 0;
  let refusedForIds = 0;
  /** A new attempt or a new record: what the operation reads beside the record is read again. */
  let fresh = true;
  for (;;) {
    if (fresh) {
      const beside = operation.readsBesideRecord?.(refusedForIds) ?? [];
      const [read] = await Promise.all([
        record ?? deps.store.get(taskId),
        ...beside.map(performNeed),
      ]);
      if (read === undefined) {
        if (operation.ifAbsent === undefined) throw new TaskNotFoundError(taskId);
        return { result: operation.ifAbsent.result, committed: undefined };
      }
      record = read;
      fresh = false;
    }
    if (record === undefined) throw new Error(`${taskId}: no record to decide on`);
    const outcome = operation.decide({
      record,
      // Each key is filled only by the effect its operation asked for under it.
      observed: { ...observed } as Observed<W>,
      reached,
      conflicts,
      refusedForIds,
      now: deps.clock.now(),
    });
    if (outcome instanceof Promise) {
      // The types refuse an async decision; this refuses one that slipped past them (a cast).
      throw new Error(`${taskId}: a decision returned a promise; decisions cannot await`);
    }
    if (outcome.kind === 'need') {
      for (const need of outcome.needs) await performNeed(need);
      continue;
    }
    if (outcome.kind === 'checkpoint' && outcome.commit === undefined) {
      reached = outcome.reached;
      continue;
    }
    const { commit, stateChanges } = outcome;
    if (commit === undefined) {
      return { result: answerOf(outcome as Done<T>, record), committed: undefined };
    }
    const committed = await tryCommit(deps, { commit, stateChanges });
    if (committed instanceof ConcurrencyConflictError) {
      conflicts++;
      if (!committed.idsFree) refusedForIds++;
      if (conflicts >= MAX_ATTEMPTS) throw committed;
      await deps.pauseAfterConflict?.(conflicts);
      // The task as the store refused the commit on, when it said: decided on again, unread.
      record = committed.current;
      forgetSnapshot();
      fresh = true;
      continue;
    }
    const written = committed.record ?? record;
    if (outcome.kind === 'checkpoint') {
      reached = outcome.reached;
      record = written;
      forgetSnapshot();
      fresh = true;
      continue;
    }
    return { result: answerOf(outcome, written, committed.enqueued), committed };
  }
}

/** `runOperation` for its answer alone. */
export async function resultOf<T, W extends Wants, C>(
  deps: LoopDeps,
  operation: Operation<T, W, C>
): Promise<T> {
  return (await runOperation(deps, operation)).result;
}

/**
 * A task's creation: one create commit, nothing read before it. A create refused because the id
 * exists (a caller-reserved id, created before) runs `existing` instead, on the stored task.
 */
export async function runCreation<T, W extends Wants, C>(
  deps: LoopDeps,
  creation: {
    commit: Extract<TaskCommit, { kind: 'create' }>;
    /** The `task.state_changed` hooks the creation calls for (its first message folded). */
    stateChanges?: Committing['stateChanges'];
    created: (committed: CommitResult) => T;
    existing?: Operation<T, W, C> | undefined;
  }
): Promise<T> {
  let committed: CommitResult | ConcurrencyConflictError;
  try {
    committed = await tryCommit(deps, {
      commit: creation.commit,
      stateChanges: creation.stateChanges,
    });
  } catch (error) {
    if (creation.existing === undefined || !(error instanceof AlreadyExistsError)) throw error;
    return resultOf(deps, creation.existing);
  }
  // A create is conditioned on the id's absence alone: it never conflicts.
  if (committed instanceof ConcurrencyConflictError) throw committed;
  return creation.created(committed);
}
