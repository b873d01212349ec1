import type { LoopDeps } from '../loop/deps.js';
import { changeOf } from '../loop/records.js';
import type { Wake } from '../ports/waker.js';
import { isTerminalState, stateOf } from '../task/a2a-task.js';
import { resultOf } from '../unit-of-work/interpreter.js';
import {
  answer,
  commitThen,
  type Facts,
  type NoEffects,
  type Outcome,
} from '../unit-of-work/operation.js';
import { withTurnCut } from './cut-turn.js';

/**
 * A task whose execution is gone (the process running it crashed, or it failed, timed out or
 * was stopped outside the loop) while work waits for it: a new generation takes it over from the
 * last committed state, as after a cut turn (calls of the lost turn that never ran get an error
 * result). Nothing happens when the task has ended, is parked (whoever wakes it resumes it;
 * unless its parked execution is gone too), or has moved to another generation since
 * `generation` was found gone.
 */
export async function reviveTask(
  deps: LoopDeps,
  taskId: string,
  generation: number,
  options: {
    /** The task's parked execution is known to be gone too (its token answers nobody). */
    parkedExecutionGone?: boolean;
  } = {}
): Promise<Wake> {
  return resultOf(deps, {
    taskId,
    decide: decideRevival(taskId, generation, options),
    wakes: (wake) => wake,
  });
}

/** The decision to revive a task (pure): a cut to a new generation, or nothing to do. */
export const decideRevival =
  (taskId: string, generation: number, options: { parkedExecutionGone?: boolean }) =>
  ({ record, now }: Facts<NoEffects, never>): Outcome<Wake, NoEffects, never> => {
    const { loop } = record;
    const parked = loop.parkToken !== null && options.parkedExecutionGone !== true;
    if (isTerminalState(stateOf(record.task)) || parked || loop.generation !== generation) {
      return answer({ action: 'none' });
    }
    const revived = withTurnCut(changeOf(record), now);
    return commitThen(record, revived, {
      action: 'cut',
      taskId,
      generation: revived.record.loop.generation,
    });
  };
