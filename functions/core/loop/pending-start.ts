import type { TaskRecord } from '../ports/task-store.js';
import { isTerminalState, stateOf } from '../task/a2a-task.js';
import { resultOf } from '../unit-of-work/interpreter.js';
import {
  answer,
  commitThen,
  type Facts,
  type NoEffects,
  type Outcome,
} from '../unit-of-work/operation.js';
import type { LoopDeps } from './deps.js';
import { changeOf, withLoop } from './records.js';
import type { TurnRef } from './route.schema.js';

/**
 * A generation's start, pending: a commit handed the task to a generation (a new task, a cut, a
 * renewal, a revival) and whoever made it starts the execution after it, so a starter that dies in
 * between leaves the task with no execution. Until the execution's first write clears it, the
 * record says since when (`loop.startPendingSince`), and the pending-start sweep starts what has
 * waited past its grace. A start of an execution that exists is a no-op, so a sweep that races
 * the starter, or finds the execution already running, costs one refused start.
 */

/** Since when the task's generation has waited for its execution; undefined when it has not. */
export const pendingStartOf = (record: Pick<TaskRecord, 'task' | 'loop'>): string | undefined => {
  const since = record.loop.startPendingSince;
  return since === null || isTerminalState(stateOf(record.task)) ? undefined : since;
};

/** Whether the task's generation has waited for its execution since before `before`. */
export const startPendingBefore = (
  record: Pick<TaskRecord, 'task' | 'loop'>,
  before: string
): boolean => {
  const since = pendingStartOf(record);
  return since !== undefined && since < before;
};

/** The ref the sweep starts the task's generation with (its name is the starter's: same execution). */
export const generationStartOf = (record: TaskRecord): TurnRef => ({
  taskId: record.task.id,
  generation: record.loop.generation,
  turn: record.loop.generationStartTurn,
});

/**
 * The sweep has started generation `generation` (or found it started): its start is no longer
 * pending (pure). Nothing to do when the task moved to another generation or its execution wrote
 * first.
 */
export const decideStartDelivered =
  (generation: number) =>
  ({ record }: Facts<NoEffects, never>): Outcome<boolean, NoEffects, never> => {
    if (record.loop.generation !== generation || record.loop.startPendingSince === null) {
      return answer(false);
    }
    const delivered = withLoop(changeOf(record), (loop) => ({ ...loop, startPendingSince: null }));
    return commitThen(record, delivered, true);
  };

/** Clears generation `generation`'s pending start; true when this call cleared it. */
export function markStartDelivered(
  deps: LoopDeps,
  taskId: string,
  generation: number
): Promise<boolean> {
  return resultOf(deps, { taskId, decide: decideStartDelivered(generation) });
}
