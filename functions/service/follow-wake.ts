import type { Wake } from '../core/intake/wake.js';
import type { LoopDeps } from '../core/loop/deps.js';
import type { Logger } from '../core/ports/logger.js';
import type { RemoteFollowers } from '../core/ports/remote-followers.js';
import type { RemoteLinks } from '../core/ports/remote-links.js';
import type { Executions } from './executions.js';
import { requestRemoteCancels } from './remote-cancel.js';
import { reviveIfGone } from './revive.js';

/** What following a wake needs; remote children are canceled only where the runtime has them. */
export interface WakeDeps {
  loop: LoopDeps;
  executions: Executions;
  logger?: Logger;
  remote?: { links: RemoteLinks; followers: RemoteFollowers };
}

/**
 * Does what an intake operation says must happen to executions once its commit is in: resume a
 * parked one, replace a cut one by its next generation, revive a task whose execution is gone,
 * release or stop the executions of ended tasks and have their remote children canceled.
 */
export const followWake = async (deps: WakeDeps, wake: Wake): Promise<void> => {
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
      if ((wake.remoteChildren ?? []).length > 0) {
        const { remote, logger } = deps;
        if (remote === undefined || logger === undefined) {
          throw new Error('remote children to cancel, and no remote agents in this runtime');
        }
        await requestRemoteCancels({ logger, loop, remote }, wake.remoteChildren ?? []);
      }
  }
};
