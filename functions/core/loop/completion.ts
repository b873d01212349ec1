import type { TaskRecord } from '../ports/task-store.js';
import { isTerminalState, readExtension, stateFromName } from '../task/a2a-task.js';
import { criterionLabel, unmetCriteria } from '../task/criteria.js';
import type { AcceptanceCriterion, SubTaskRow, TaskExtension } from '../task/extension.schema.js';
import { mayDo, participantOf } from '../task/permissions.js';
import type { CompletionVerdict, HarnessHookPoints } from './hook-points.js';

/** The sub-tasks that have not reached a terminal state. */
export const unresolvedSubTasks = (record: TaskRecord) =>
  readExtension(record.task).sub_tasks.filter((row) => !isTerminalState(stateFromName(row.state)));

/**
 * The built-in body of decide_completion (priority 1000): wait while a sub-task is unresolved;
 * then refuse while an acceptance criterion is unmet, unless the participant asking may accept
 * it as it is (a reporter or an admin: docs/identity.md).
 */
export const builtInCompletion = (context: {
  unresolved: readonly SubTaskRow[];
  unmet: readonly AcceptanceCriterion[];
  acceptsUnmet: boolean;
}): CompletionVerdict => {
  const { unresolved, unmet, acceptsUnmet } = context;
  if (unresolved.length > 0) {
    return {
      decision: 'wait',
      reason: `${unresolved.length} sub-task(s) unresolved: ${unresolved.map((row) => row.task_id).join(', ')}`,
    };
  }
  if (!acceptsUnmet && unmet.length > 0) {
    return {
      decision: 'unmet',
      reason: `${unmet.length} acceptance criterion(s) unmet: ${unmet.map(criterionLabel).join(', ')}`,
      criteria: unmet.map((criterion) => criterion.id),
    };
  }
  return { decision: 'complete' };
};

/** Whether the participant asking may accept unmet criteria; the agent by itself never may. */
const mayAcceptUnmet = (extension: TaskExtension, requestedBy: string | null): boolean => {
  if (requestedBy === null) return false;
  const participant = participantOf(extension, requestedBy);
  return participant !== undefined && mayDo(participant.role, 'accept_unmet_criteria');
};

/**
 * What decide_completion (the `task.complete` hooks) decides on, for `record` asked by
 * `requestedBy` (null: the agent by itself). A lower-priority executor can complete anyway
 * (overriding the sub-task or the criteria rule) or fail the task.
 */
export const completionContext = (
  record: TaskRecord,
  requestedBy: string | null,
  result: string
): HarnessHookPoints['task.complete']['context'] => ({
  taskId: record.task.id,
  unresolved: unresolvedSubTasks(record),
  unmet: unmetCriteria(readExtension(record.task)),
  requestedBy,
  acceptsUnmet: mayAcceptUnmet(readExtension(record.task), requestedBy),
  result,
});
