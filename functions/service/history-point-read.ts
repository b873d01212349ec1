import type { Task } from '@a2a-js/sdk';
import type { AuditSources } from '../core/audit/sources.js';
import type { CompactionRecord } from '../core/loop/compaction.js';
import type { HistoryEntry } from '../core/loop/history.schema.js';
import {
  type HistoryPoint,
  historyRecordsOf,
  type ResolvedPoint,
  resolvePoint,
} from '../core/loop/history-point.js';
import type { TaskRecord, TaskStore } from '../core/ports/task-store.js';
import { taskAtPoint } from '../core/task/task-at.js';

/** A task read at a point of its history, once: everything a fork or a look back needs. */
export interface TaskAtPoint {
  record: TaskRecord;
  point: ResolvedPoint;
  /** The transcript through the point. */
  entries: HistoryEntry[];
  /** The task as it was at the point (the record's task when its log has none: never). */
  asItWas: Task;
  compactions: CompactionRecord[];
}

/**
 * Reads a task at a point of its history, from the store alone (the transcript, the log and the
 * records; never an execution history): the transcript whole (the point is found in it), the
 * records (each turn's mark, the compactions), and the log (the task as it was).
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
  const { marks, compactions } = historyRecordsOf(records);
  const resolved = resolvePoint({ taskId, entries, point, marks, turnsTaken: record.loop.turn });
  return {
    record,
    point: resolved,
    entries: entries.filter((entry) => entry.seq <= resolved.throughSeq),
    asItWas: taskAtPoint(log, resolved.throughSeq) ?? record.task,
    compactions,
  };
};
