import type { Task } from '@a2a-js/sdk';
import { USAGE_METADATA_KEY } from '../core/a2a/identifiers.js';
import type { LoopDeps } from '../core/loop/deps.js';
import {
  addUsage,
  EMPTY_USAGE,
  type ReportedUsage,
  readUsage,
  type TaskUsage,
} from '../core/loop/usage.js';
import { MAX_UNKNOWN_IDS } from '../core/loop/usage-roll-up.js';
import type { RemoteLinks } from '../core/ports/remote-links.js';
import type { TaskRecord, TaskStore } from '../core/ports/task-store.js';
import { childIdOf } from '../core/remote/remote-link.js';
import { readExtension } from '../core/task/a2a-task.js';
import { namesParent } from '../core/task/links.js';

/**
 * The task as a participant reads it over A2A: its usage metadata carries, beside its own usage,
 * the total of its whole sub-task tree (`tree`), children on remote agents included as their
 * agents report them, and the ids of the tasks whose usage is unknown (`tree.unknown`). `task` is
 * `record`'s task as the caller shows it (with its history).
 */
export const withUsageTree = async (
  deps: { loop: Pick<LoopDeps, 'store'>; remote: { links: RemoteLinks } },
  record: TaskRecord,
  task: Task
): Promise<Task> => {
  const tree = await usageTree(deps.loop.store, record, async (parentId) => {
    const links = await deps.remote.links.list(parentId);
    return new Map(links.map((link) => [childIdOf(link), link.usage]));
  });
  return {
    ...task,
    metadata: {
      ...task.metadata,
      [USAGE_METADATA_KEY]: {
        ...readUsage(task),
        tree: { ...tree.total, unknown: tree.unknown.slice(0, MAX_UNKNOWN_IDS) },
      },
    },
  };
};

export interface UsageTree {
  taskId: string;
  /** The remote agent the task is on; absent for a task on this harness. */
  agent?: string;
  /** This task's own usage (a remote child's: what its agent reports for its whole tree). */
  own: TaskUsage;
  children: UsageTree[];
  /** This task and every descendant whose usage is known. */
  total: TaskUsage;
  /** Tasks in the tree whose usage is unknown (a remote child whose agent reports none). */
  unknown: string[];
}

/**
 * What remote agents report for a parent's remote children, by child id; a child missing or
 * null reports nothing.
 */
export type RemoteUsageOf = (
  parentId: string
) => Promise<ReadonlyMap<string, ReportedUsage | null>>;

/** A child counted by what was reported for its tree: null or absent reports nothing (unknown). */
const leaf = (
  taskId: string,
  agent: string | undefined,
  reported: ReportedUsage | null | undefined
): UsageTree => {
  const at = agent === undefined ? {} : { agent };
  return reported == null
    ? { taskId, ...at, own: EMPTY_USAGE, children: [], total: EMPTY_USAGE, unknown: [taskId] }
    : {
        taskId,
        ...at,
        own: reported.usage,
        children: [],
        total: reported.usage,
        unknown: reported.unknown,
      };
};

/** How many children of one task are read at once. */
export const CHILDREN_READ_AT_ONCE = 25;

/**
 * The cost ledger of a task and its sub-task tree. Each child counts what it last reported on the
 * news that reached this task (its own tree's total, on its row), so a task whose children have
 * all reported is summed from its record alone. Only a row with no report yet is looked up:
 * a child on this harness from its record (the child has not changed since it was made, or the
 * data is from before the roll-up), one on a remote agent from what its agent reports under our
 * usage key; one that reports nothing is unknown, never zero.
 */
export const usageTree = async (
  store: TaskStore,
  record: TaskRecord,
  remoteUsageOf?: RemoteUsageOf
): Promise<UsageTree> => {
  const { task } = record;
  const taskId = task.id;
  const own = readUsage(task);
  const rows = readExtension(task).sub_tasks;
  const unreported = rows.filter((row) => row.usage === undefined);
  const reported =
    remoteUsageOf !== undefined && unreported.some((row) => row.agent !== null)
      ? await remoteUsageOf(taskId)
      : new Map<string, ReportedUsage | null>();
  const childOf = async (row: (typeof rows)[number]): Promise<UsageTree | undefined> => {
    if (row.usage !== undefined) return leaf(row.task_id, row.agent?.id, row.usage);
    if (row.agent !== null) return leaf(row.task_id, row.agent.id, reported.get(row.task_id));
    const child = await store.get(row.task_id);
    return child !== undefined && namesParent(child.task, taskId)
      ? usageTree(store, child, remoteUsageOf)
      : undefined;
  };
  // A few children at a time, in row order: a task of a thousand rows is not read one by one.
  const children: UsageTree[] = [];
  for (let start = 0; start < rows.length; start += CHILDREN_READ_AT_ONCE) {
    const batch = rows.slice(start, start + CHILDREN_READ_AT_ONCE);
    for (const child of await Promise.all(batch.map(childOf))) {
      if (child !== undefined) children.push(child);
    }
  }
  return {
    taskId,
    own,
    children,
    total: children.reduce((sum, child) => addUsage(sum, child.total), own),
    unknown: children.flatMap((child) => child.unknown),
  };
};
