import type { TaskRecord } from '../ports/task-store.js';
import type { SubTaskRow } from '../task/extension.schema.js';
import { addUsage, EMPTY_USAGE, type ReportedUsage, readUsage } from './usage.js';

/**
 * The most task ids a report names as unknown: a remote agent's list is its own, and a tree's
 * sum would grow with every child; past this, the first are named (the total stays a lower bound
 * either way, which `unknown` being non-empty already says).
 */
export const MAX_UNKNOWN_IDS = 20;

/** A report with at most `MAX_UNKNOWN_IDS` unknown ids (pure). */
export const boundedReport = <T extends ReportedUsage | null | undefined>(report: T): T =>
  report == null || report.unknown.length <= MAX_UNKNOWN_IDS
    ? report
    : ({ ...report, unknown: report.unknown.slice(0, MAX_UNKNOWN_IDS) } as T);

/**
 * What a task's children last reported for their whole trees, summed (pure), in row order. A
 * child whose agent reports nothing is unknown, never zero; a row with no report yet (a child that
 * has not changed since it was made) adds nothing.
 */
export const childrenUsageOf = (rows: readonly SubTaskRow[]): ReportedUsage => {
  let usage = EMPTY_USAGE;
  const unknown: string[] = [];
  for (const row of rows) {
    if (row.usage === undefined) continue;
    if (row.usage === null) {
      unknown.push(row.task_id);
      continue;
    }
    usage = addUsage(usage, row.usage.usage);
    unknown.push(...row.usage.unknown);
  }
  return boundedReport({ usage, unknown });
};

/**
 * What a task reports to its parent for its whole tree (pure): its own ledger plus its children's
 * reports as its loop state sums them, so a stream image of the record (without its rows) reports
 * the same.
 */
export const reportedTreeOf = (record: TaskRecord): ReportedUsage => ({
  usage: addUsage(readUsage(record.task), record.loop.childrenUsage.usage),
  unknown: record.loop.childrenUsage.unknown,
});

/** Whether two reports say the same (a report that says nothing new is not written). */
export const sameReport = (
  a: ReportedUsage | null | undefined,
  b: ReportedUsage | null | undefined
): boolean => JSON.stringify(a) === JSON.stringify(b);
