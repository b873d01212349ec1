import type { TaskRecord, TaskStore } from '../core/ports/task-store.js';
import { readExtension } from '../core/task/a2a-task.js';
import { A2aError } from './a2a-errors.js';

/** A task id a request must name: refused as malformed when empty. */
export const requireTaskId = (taskId: string): string => {
  if (taskId === '') throw new A2aError('InvalidParams', 'a task id is required');
  return taskId;
};

/** Whether the participant is on the task: the one access rule of every task operation. */
export const isParticipant = (record: TaskRecord, participantId: string): boolean =>
  readExtension(record.task).participants.some((participant) => participant.id === participantId);

/**
 * The task record, if the participant is on it. Access is the participants' alone (docs/identity.md): to
 * anyone else a task is "not found", exactly as a missing one, so its existence does not leak.
 */
export const visibleRecord = async (
  store: TaskStore,
  taskId: string,
  participantId: string
): Promise<TaskRecord> => {
  const record = await store.get(requireTaskId(taskId));
  if (record === undefined || !isParticipant(record, participantId)) {
    throw new A2aError('TaskNotFound', 'task not found');
  }
  return record;
};
