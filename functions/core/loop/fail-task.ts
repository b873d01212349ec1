import { TaskState } from '@a2a-js/sdk';
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
import { changeOf } from './records.js';
import type { StepResult, TurnRef } from './route.schema.js';
import { ended, endRoute } from './status.js';

/**
 * The failure's decision (pure): a task already ended stays as it is, and a superseded
 * generation's failure (a cut turn's step) is not the task's.
 */
export const decideFailure =
  (ref: TurnRef, reason: string) =>
  ({ record, now }: Facts<NoEffects, never>): Outcome<StepResult, NoEffects, never> => {
    const state = stateOf(record.task);
    if (isTerminalState(state)) return answer({ ref, route: endRoute(state) });
    if (record.loop.generation !== ref.generation) {
      return answer({ ref, route: { next: 'superseded' } });
    }
    const failed = TaskState.TASK_STATE_FAILED;
    return commitThen(record, ended(changeOf(record), ref, failed, reason, now), {
      ref,
      route: endRoute(failed),
    });
  };

/**
 * A state failed past its retries: the task fails with a readable reason, persisted and emitted
 * like any ending, so nobody waits on a task whose execution is gone.
 */
export function failTask(deps: LoopDeps, ref: TurnRef, reason: string): Promise<StepResult> {
  return resultOf(deps, { taskId: ref.taskId, decide: decideFailure(ref, reason) });
}
