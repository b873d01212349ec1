import { TaskState } from '@a2a-js/sdk';
import type { TaskRecord } from '../ports/task-store.js';
import {
  isTerminalState,
  lifecycleOf,
  readExtension,
  stateName,
  stateOf,
} from '../task/a2a-task.js';
import { agentIsAssignee } from './assignee.js';
import { decideCompletion } from './completion.js';
import type { LoopDeps } from './deps.js';
import { loadRecord, mutateRecord } from './records.js';
import type { StepResult, TurnRef } from './route.schema.js';
import { endTask, parkWaitingForInput } from './status.js';

/** Whether something arrived that the model has not read: a message, or a child's result. */
export const hasUnreadWork = async (deps: LoopDeps, record: TaskRecord): Promise<boolean> => {
  const items = await deps.store.readInbox(record.task.id, record.loop.inboxCursor);
  return items.some((item) => item.kind === 'message' || item.result);
};

const lastText = (record: TaskRecord): string | undefined =>
  record.loop.response?.text || undefined;

/**
 * The end of a turn with no tool call. A participant's completion request runs
 * decide_completion with `requested_by` (refused while a sub-task is unresolved: the task parks
 * again). Otherwise anything unread takes one more turn; a conversation parks
 * (INPUT_REQUIRED, awaiting-next-message) and never completes by itself; a delegated task runs
 * decide_completion and completes, fails, or waits for its children.
 */
export const finish = async (deps: LoopDeps, ref: TurnRef): Promise<StepResult> => {
  const record = await loadRecord(deps, ref.taskId);
  const state = stateOf(record.task);
  if (isTerminalState(state)) return { ref, route: { next: 'end', state: stateName(state) } };
  if (record.loop.generation !== ref.generation) return { ref, route: { next: 'superseded' } };
  const extension = readExtension(record.task);

  const request = record.loop.completionRequest;
  if (request !== null) {
    const result = request.reason ?? lastText(record) ?? '';
    const verdict = await decideCompletion(deps, record, request.requestedBy, result);
    const clearRequest = (current: TaskRecord): TaskRecord => ({
      ...current,
      loop: { ...current.loop, completionRequest: null },
    });
    if (verdict.decision === 'complete') {
      return endTask(deps, record, ref, TaskState.TASK_STATE_COMPLETED, result, clearRequest);
    }
    if (verdict.decision === 'fail') {
      return endTask(deps, record, ref, TaskState.TASK_STATE_FAILED, verdict.reason, clearRequest);
    }
    await mutateRecord(deps, ref.taskId, clearRequest);
    return parkWaitingForInput(
      deps,
      record,
      ref,
      'awaiting-next-message',
      `completion refused: ${verdict.reason}`
    );
  }

  if (await hasUnreadWork(deps, record)) return { ref, route: { next: 'drain' } };

  if (!agentIsAssignee(extension, deps.config.agentId)) {
    return parkWaitingForInput(deps, record, ref, 'awaiting-next-message', extension.goal);
  }
  if (lifecycleOf(extension) === 'conversation') {
    return parkWaitingForInput(deps, record, ref, 'awaiting-next-message', lastText(record));
  }
  const verdict = await decideCompletion(deps, record, null, lastText(record) ?? '');
  if (verdict.decision === 'complete') {
    return endTask(deps, record, ref, TaskState.TASK_STATE_COMPLETED, lastText(record));
  }
  if (verdict.decision === 'fail') {
    return endTask(deps, record, ref, TaskState.TASK_STATE_FAILED, verdict.reason);
  }
  // Waiting for children: the task stays WORKING, parked on a token until a child's news.
  return { ref, route: { next: 'park', subState: null } };
};
