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
import type { RemoteLinks } from '../core/ports/remote-links.js';
import type { TaskStore } from '../core/ports/task-store.js';
import { childIdOf } from '../core/remote/remote-link.js';
import { readExtension } from '../core/task/a2a-task.js';
import { namesParent } from '../core/task/links.js';

/**
 * The task as a participant reads it over A2A: its usage metadata carries, beside its own usage,
 * the total of its whole sub-task tree (`tree`), children on remote agents included as their
 * agents report them, and the ids of the tasks whose usage is unknown (`tree.unknown`).
 */
export const withUsageTree = async (
  deps: { loop: Pick<LoopDeps, 'store'>; remote: { links: RemoteLinks } },
  task: Task
): Promise<Task> => {
  const tree = await usageTree(deps.loop.store, task, async (parentId) => {
    const links = await deps.remote.links.list(parentId);
    return new Map(links.map((link) => [childIdOf(link), link.usage]));
  });
  return {
    ...task,
    metadata: {
      ...task.metadata,
      [USAGE_METADATA_KEY]: {
        ...readUsage(task),
        tree: { ...tree.total, unknown: tree.unknown },
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

const remoteLeaf = (
  taskId: string,
  agent: string,
  reported: ReportedUsage | null | undefined
): UsageTree =>
  reported == null
    ? { taskId, agent, own: EMPTY_USAGE, children: [], total: EMPTY_USAGE, unknown: [taskId] }
    : {
        taskId,
        agent,
        own: reported.usage,
        children: [],
        total: reported.usage,
        unknown: reported.unknown,
      };

/** How many children of one task are read at once. */
export const CHILDREN_READ_AT_ONCE = 25;

/**
 * The cost ledger of a task (as the caller holds it: the root is not read again) and its
 * sub-task tree. Children on this harness are read from their records; a child on a remote agent
 * counts what its agent reports under our usage key (another tiny-harness reports its own tree),
 * and one that reports nothing is unknown, never zero. Read on demand, so it is never out of step
 * with the records.
 */
export const usageTree = async (
  store: TaskStore,
  task: Task,
  remoteUsageOf?: RemoteUsageOf
): Promise<UsageTree> => {
  const taskId = task.id;
  const own = readUsage(task);
  const rows = readExtension(task).sub_tasks;
  const reported =
    remoteUsageOf !== undefined && rows.some((row) => row.agent !== null)
      ? await remoteUsageOf(taskId)
      : new Map<string, ReportedUsage | null>();
  const childOf = async (row: (typeof rows)[number]): Promise<UsageTree | undefined> => {
    if (row.agent !== null) return remoteLeaf(row.task_id, row.agent.id, reported.get(row.task_id));
    const child = await store.get(row.task_id);
    return child !== undefined && namesParent(child.task, taskId)
      ? usageTree(store, child.task, remoteUsageOf)
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
