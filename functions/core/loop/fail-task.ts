import { TaskState } from '@a2a-js/sdk';
import { isTerminalState, stateName, stateOf } from '../task/a2a-task.js';
import type { LoopDeps } from './deps.js';
import { loadRecord } from './records.js';
import type { StepResult, TurnRef } from './route.schema.js';
import { endTask } from './status.js';

/**
 * A state failed past its retries: the task fails with a readable reason, persisted and emitted
 * like any ending, so nobody waits on a task whose execution is gone. A task already ended stays
 * as it is.
 */
export const failTask = async (
  deps: LoopDeps,
  ref: TurnRef,
  reason: string
): Promise<StepResult> => {
  const record = await loadRecord(deps, ref.taskId);
  const state = stateOf(record.task);
  if (isTerminalState(state)) return { ref, route: { next: 'end', state: stateName(state) } };
  return endTask(deps, record, ref, TaskState.TASK_STATE_FAILED, reason);
};
