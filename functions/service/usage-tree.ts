import type { Task } from '@a2a-js/sdk';
import { USAGE_METADATA_KEY } from '../core/a2a/identifiers.js';
import type { LoopDeps } from '../core/loop/deps.js';
import { readUsage, usageTree } from '../core/loop/usage.js';
import type { RemoteLinks } from '../core/ports/remote-links.js';
import { childIdOf } from '../core/remote/remote-link.js';

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
