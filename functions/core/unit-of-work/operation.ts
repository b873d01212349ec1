import type { Change, StateChanged } from '../loop/records.js';
import { updateOf } from '../loop/records.js';
import type { TaskCommit, TaskRecord } from '../ports/task-store.js';
import type { Wake } from '../ports/waker.js';
import type { Effect, EffectKind, EffectResults } from './effects.js';

/** What an operation may ask for: under each key, the kind of effect that answers it. */
export type Wants = Record<string, EffectKind>;

/** An operation that needs nothing but the task record. */
export type NoEffects = Record<never, EffectKind>;

/** What the effects asked for so far produced, by key. */
export type Observed<W extends Wants> = { readonly [K in keyof W]?: EffectResults[W[K]] };

/** One effect asked for under `key`; its result is handed back as `observed[key]`. */
export type Need<W extends Wants> = {
  [K in keyof W & string]: { key: K; effect: Extract<Effect, { kind: W[K] }> };
}[keyof W & string];

/** A commit, and the `task.state_changed` hooks to run once it applies. */
export interface Committing {
  commit: TaskCommit;
  stateChanges?: readonly StateChanged[] | undefined;
}

/**
 * What a decision comes to: effects it needs before it can decide; a checkpoint (a point the
 * operation has reached and decides on from then on, `reached`: with a commit that must apply
 * before what follows is performed, such as a once-only tool's attempt marker, the operation
 * decides again on the committed record); or its end, with what to commit (if anything) and
 * what to answer.
 */
export type Outcome<T, W extends Wants, C> = Needs<W> | Checkpoint<C> | Done<T>;

export interface Needs<W extends Wants> {
  kind: 'need';
  needs: readonly Need<W>[];
}

/** A point the operation reached: decided on from now on, whatever conflict follows. */
export interface Checkpoint<C> extends Partial<Committing> {
  kind: 'checkpoint';
  reached: C;
}

export interface Done<T> extends Partial<Committing> {
  kind: 'done';
  result: T;
  /**
   * The answer from the record the operation leaves (as committed, or as read if unwritten) and
   * the inbox seqs its commit gave what it enqueued.
   */
  resultOn?: ((record: TaskRecord, enqueued: readonly number[]) => T) | undefined;
}

/** Everything a decision decides on: all of it data, nothing to await. */
export interface Facts<W extends Wants, C> {
  /** The task record as read (or as the last checkpoint committed it). */
  record: TaskRecord;
  observed: Observed<W>;
  /** The last checkpoint this run of the operation reached, if any. */
  reached: C | undefined;
  /** How many of this operation's commits were refused so far (the task had moved on). */
  conflicts: number;
  /**
   * How many of those may have been refused for an id they took in (taken in before): all of
   * them, unless the store said the ids were still free.
   */
  refusedForIds: number;
  /** The clock, read once per decision. */
  now: string;
}

/**
 * One operation on one task: read it, decide (a pure function that cannot await: its result is
 * an `Outcome`, never a promise), perform what the decision asks for, decide again, commit once.
 */
export interface Operation<T, W extends Wants = NoEffects, C = never> {
  taskId: string;
  /**
   * A commit tried before anything is read, answered with `result` if it applies (a park decided
   * on by the turn before it); refused, the operation reads and decides as it would without.
   */
  presumed?: { commit: TaskCommit; result: T } | undefined;
  /** The answer for a task that is not stored; without it, that is `TaskNotFoundError`. */
  ifAbsent?: { result: T } | undefined;
  /** The record as the caller has just committed or read it: the first decision's, unread. */
  first?: TaskRecord | undefined;
  /**
   * Reads performed beside each read of the record, at the same time: only reads whose order
   * against the record does not matter (`refusedForIds`: as in `Facts`).
   */
  readsBesideRecord?: ((refusedForIds: number) => readonly Need<W>[]) | undefined;
  decide(facts: Facts<W, C>): Outcome<T, W, C>;
  /**
   * The wake the operation's answer calls for, followed once its commit is in (and only then):
   * an operation that adds work to a task, or ends tasks, says how their executions are woken.
   */
  wakes?: ((result: T) => Wake) | undefined;
}

export const need = <W extends Wants>(...needs: Need<W>[]): Needs<W> => ({
  kind: 'need',
  needs,
});

/** The end of an operation that writes nothing. */
export const answer = <T>(result: T, resultOn?: Done<T>['resultOn']): Done<T> => ({
  kind: 'done',
  result,
  resultOn,
});

/** The end of an operation: commit `change`, made on `base`, and answer `result`. */
export const commitThen = <T>(
  base: TaskRecord,
  change: Change,
  result: T,
  resultOn?: Done<T>['resultOn']
): Done<T> => ({
  kind: 'done',
  result,
  resultOn,
  commit: updateOf(base, change),
  stateChanges: change.stateChanges,
});

/** Go on knowing `reached`, with nothing written. */
export const reach = <C>(reached: C): Checkpoint<C> => ({ kind: 'checkpoint', reached });

/** Commit `change` (made on `base`) now, then decide again knowing `reached`. */
export const checkpoint = <C>(base: TaskRecord, change: Change, reached: C): Checkpoint<C> => ({
  kind: 'checkpoint',
  reached,
  commit: updateOf(base, change),
  stateChanges: change.stateChanges,
});

/** The same outcome, answering `map` of what it would have answered. */
export const mapResult = <T, U, W extends Wants, C>(
  outcome: Outcome<T, W, C>,
  map: (result: T) => U
): Outcome<U, W, C> => {
  if (outcome.kind !== 'done') return outcome;
  const { resultOn } = outcome;
  return {
    ...outcome,
    result: map(outcome.result),
    resultOn:
      resultOn === undefined ? undefined : (record, enqueued) => map(resultOn(record, enqueued)),
  };
};
