import type { TaskRecord } from '../ports/task-store.js';
import { isTerminalState, readExtension, stateFromName } from '../task/a2a-task.js';
import type { LoopDeps } from './deps.js';
import type { CompletionVerdict } from './hook-points.js';

/** The sub-tasks that have not reached a terminal state. */
export const unresolvedSubTasks = (record: TaskRecord) =>
  readExtension(record.task).sub_tasks.filter((row) => !isTerminalState(stateFromName(row.state)));

/**
 * decide_completion: the `task.complete` operation. The built-in body (priority 1000) waits while
 * any sub-task is unresolved; a lower-priority executor can complete anyway or fail the task.
 */
export const decideCompletion = (
  deps: LoopDeps,
  record: TaskRecord,
  requestedBy: string | null,
  result: string
): Promise<CompletionVerdict> =>
  deps.hooks.run(
    'task.complete',
    { taskId: record.task.id, unresolved: unresolvedSubTasks(record), requestedBy, result },
    ({ unresolved }): CompletionVerdict =>
      unresolved.length > 0
        ? {
            decision: 'wait',
            reason: `${unresolved.length} sub-task(s) unresolved: ${unresolved.map((row) => row.task_id).join(', ')}`,
          }
        : { decision: 'complete' }
  );
