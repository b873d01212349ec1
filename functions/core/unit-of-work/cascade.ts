import type { LoopDeps } from '../loop/deps.js';
import type { Wake } from '../ports/waker.js';
import { resultOf } from './interpreter.js';
import type { NoEffects, Operation, Wants } from './operation.js';

/** How one operation spreads to other tasks: the operations its result calls for, and the end. */
export interface Cascade<R, C, A> {
  /** The operations the first one's result calls for (a canceled task's children). */
  fromFirst(result: R): readonly Operation<C, NoEffects, never>[];
  /** The operations a cascaded one's result calls for in turn. */
  fromCascaded(result: C): readonly Operation<C, NoEffects, never>[];
  /** The answer, from the first result and every cascaded one, in the order they ran. */
  conclude(first: R, cascaded: readonly C[]): A;
  /** The wake the answer calls for (the ended tasks' executions), followed once all committed. */
  wakes?: ((answer: A) => Wake) | undefined;
  /** The wake one cascaded operation's result calls for, followed once its commit is in. */
  wakeOf?: ((cascaded: C) => Wake) | undefined;
}

/**
 * `operation` answering as a wider type: a cascade runs operations of more than one kind. Its
 * own wake is dropped: a cascade says how each result is woken (`wakeOf`).
 */
export const widened = <T extends U, U>(
  operation: Operation<T, NoEffects, never>
): Operation<U, NoEffects, never> => ({ ...operation, wakes: undefined });

/**
 * One operation, then those its result calls for on other tasks, depth first, each its own unit
 * of work (one read, one decision, one commit per task): a cancel and its cascade to children.
 */
export async function runCascade<R, W extends Wants, CP, C, A>(
  deps: LoopDeps,
  first: Operation<R, W, CP>,
  cascade: Cascade<R, C, A>
): Promise<A> {
  const result = await resultOf(deps, first);
  const cascaded: C[] = [];
  const run = async (operations: readonly Operation<C, NoEffects, never>[]) => {
    for (const operation of operations) {
      const next = await resultOf(deps, operation);
      cascaded.push(next);
      if (cascade.wakeOf !== undefined) await deps.waker.follow(cascade.wakeOf(next));
      await run(cascade.fromCascaded(next));
    }
  };
  await run(cascade.fromFirst(result));
  const concluded = cascade.conclude(result, cascaded);
  if (cascade.wakes !== undefined) await deps.waker.follow(cascade.wakes(concluded));
  return concluded;
}
