import type { Wake } from '../core/intake/wake.js';
import type { LoopDeps } from '../core/loop/deps.js';
import type { Executions } from './executions.js';
import { reviveIfGone } from './revive.js';

/**
 * Does what an intake operation says must happen to executions once its commit is in: resume a
 * parked one, replace a cut one by its next generation, revive a task whose execution is gone,
 * release or stop the executions of ended tasks.
 */
export const followWake = async (
  deps: { loop: LoopDeps; executions: Executions },
  wake: Wake
): Promise<void> => {
  const { executions, loop } = deps;
  switch (wake.action) {
    case 'none':
      return;
    case 'resume':
      // A token nobody answers: the parked execution is gone (a crash between the park and its
      // checkpoint). The commit that claimed the token left the task unparked: revive it.
      if (!(await executions.resume(wake.token))) {
        const { taskId, generation } = wake;
        await followWake(deps, await reviveIfGone(loop, executions, { taskId, generation }));
      }
      return;
    case 'cut':
      await executions.stop(wake.taskId, wake.generation - 1, 'the turn was cut');
      await executions.start({ taskId: wake.taskId, generation: wake.generation, turn: 0 });
      return;
    case 'ensure-running':
      await followWake(deps, await reviveIfGone(loop, executions, wake));
      return;
    case 'ended':
      for (const ended of wake.executions) {
        // A parked execution resumes and ends itself on the terminal state; a running one is stopped.
        if (ended.token !== null) await executions.resume(ended.token);
        else await executions.stop(ended.taskId, ended.generation, 'canceled');
      }
  }
};
