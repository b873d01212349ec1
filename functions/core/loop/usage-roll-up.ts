import type { TaskRecord } from '../ports/task-store.js';
import { readExtension } from '../task/a2a-task.js';
import { addUsage, type ReportedUsage, readUsage } from './usage.js';

/**
 * What a task reports to its parent for its whole tree (pure): its own ledger plus what each of
 * its children last reported, in row order. A child whose agent reports nothing is unknown, never
 * zero; a row with no report yet (a child that has not changed since it was made) adds nothing.
 */
export const reportedTreeOf = (record: TaskRecord): ReportedUsage => {
  let usage = readUsage(record.task);
  const unknown: string[] = [];
  for (const row of readExtension(record.task).sub_tasks) {
    const reported = record.loop.childUsage[row.task_id];
    if (reported === undefined) continue;
    if (reported === null) {
      unknown.push(row.task_id);
      continue;
    }
    usage = addUsage(usage, reported.usage);
    unknown.push(...reported.unknown);
  }
  return { usage, unknown };
};

/** Whether two reports say the same (a report that says nothing new is not written). */
export const sameReport = (
  a: ReportedUsage | null | undefined,
  b: ReportedUsage | null | undefined
): boolean => JSON.stringify(a) === JSON.stringify(b);
