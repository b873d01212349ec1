import { TaskState } from '@a2a-js/sdk';
import { isTerminalState, stateOf } from '../task/a2a-task.js';
import type { LoopDeps } from './deps.js';
import { changeOf, decided, decideOnRecord } from './records.js';
import type { StepResult, TurnRef } from './route.schema.js';
import { ended, endRoute } from './status.js';

/**
 * A state failed past its retries: the task fails with a readable reason, persisted and emitted
 * like any ending, so nobody waits on a task whose execution is gone. A task already ended stays
 * as it is, and a superseded generation's failure (a cut turn's step) is not the task's.
 */
export const failTask = async (
  deps: LoopDeps,
  ref: TurnRef,
  reason: string
): Promise<StepResult> => {
  const { result } = await decideOnRecord<StepResult>(deps, ref.taskId, (record) => {
    const state = stateOf(record.task);
    if (isTerminalState(state)) return { result: { ref, route: endRoute(state) } };
    if (record.loop.generation !== ref.generation)
      return { result: { ref, route: { next: 'superseded' } } };
    const failed = TaskState.TASK_STATE_FAILED;
    const change = ended(changeOf(record), ref, failed, reason, deps.clock.now());
    return decided(record, change, { ref, route: endRoute(failed) });
  });
  return result;
};
