import { reviveTask } from '../core/intake/revive.js';
import type { Wake } from '../core/intake/wake.js';
import type { LoopDeps } from '../core/loop/deps.js';
import type { Executions } from './executions.js';

/**
 * Work was added to a task that is not parked: its running execution takes it at its next drain.
 * When that execution is gone (a crash, or it ended outside the loop), the task is revived in a
 * new generation, so no accepted message or child's news waits for an execution nobody runs.
 * Returns what the caller must still do (start the new generation), or nothing.
 */
export const reviveIfGone = async (
  loop: LoopDeps,
  executions: Executions,
  owner: { taskId: string; generation: number }
): Promise<Wake> => {
  if (await executions.isRunning(owner.taskId, owner.generation)) return { action: 'none' };
  return reviveTask(loop, owner.taskId, owner.generation);
};
