import type { AuditSources } from '../core/audit/sources.js';
import {
  type HistoryPoint,
  type TaskAtPoint,
  taskAtHistoryPoint,
} from '../core/loop/history-point.js';
import type { TaskRecord, TaskStore } from '../core/ports/task-store.js';

/**
 * Reads a task at a point of its history, once, from the store alone (never an execution
 * history): its transcript whole (the point is found in it), its records (each turn's mark, the
 * compactions) and its log (the task as it was), then finds the point in them.
 */
export const readTaskAtPoint = async (
  store: TaskStore,
  sources: Pick<AuditSources, 'log' | 'records'>,
  record: TaskRecord,
  point: HistoryPoint
): Promise<TaskAtPoint> => {
  const taskId = record.task.id;
  const [entries, records, log] = await Promise.all([
    store.readHistory(taskId, 0, record.loop.historySeq),
    sources.records(taskId),
    sources.log(taskId),
  ]);
  return taskAtHistoryPoint({ record, entries, records, log }, point);
};
