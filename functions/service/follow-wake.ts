import { reviveTask } from '../core/intake/revive.js';
import type { LoopDeps } from '../core/loop/deps.js';
import type { Logger } from '../core/ports/logger.js';
import type { RemoteFollowers } from '../core/ports/remote-followers.js';
import type { RemoteLinks } from '../core/ports/remote-links.js';
import type { Wake, Waker } from '../core/ports/waker.js';
import type { Executions } from './executions.js';
import { requestRemoteCancels } from './remote-cancel.js';

/** What following a wake needs; remote children are canceled only where the runtime has them. */
export interface WakeDeps {
  /** The loop the waker belongs to (it is one of its deps: read when a wake is followed). */
  loop: () => LoopDeps;
  executions: Executions;
  logger?: Logger | undefined;
  remote?: { links: RemoteLinks; followers: RemoteFollowers } | undefined;
}

/**
 * The turn executions' waker: does what an operation's wake says once its commit is in. It
 * resumes a parked execution, replaces a cut one by its next generation, revives a task whose
 * execution is gone (the revival is an operation whose own wake, a cut, comes back here), and
 * releases or stops the executions of ended tasks and has their remote children canceled.
 */
export const executionWaker = (deps: WakeDeps): Waker => {
  const { executions } = deps;
  /** Work waits for a task that is not parked: revived, unless its execution is still running. */
  const reviveIfGone = async (owner: { taskId: string; generation: number }): Promise<void> => {
    if (await executions.isRunning(owner.taskId, owner.generation)) return;
    await reviveTask(deps.loop(), owner.taskId, owner.generation);
  };
  const follow = async (wake: Wake): Promise<void> => {
    switch (wake.action) {
      case 'none':
        return;
      case 'resume':
        // A token nobody answers: the parked execution is gone (a crash between the park and its
        // checkpoint). The commit that claimed the token left the task unparked: revive it.
        if (!(await executions.resume(wake.token))) await reviveIfGone(wake);
        return;
      case 'cut':
        await executions.stop(wake.taskId, wake.generation - 1, 'the turn was cut');
        await executions.start({ taskId: wake.taskId, generation: wake.generation, turn: 0 });
        return;
      case 'ensure-running':
        await reviveIfGone(wake);
        return;
      case 'ended':
        for (const ended of wake.executions) {
          // A parked execution resumes and ends itself on the terminal state; a running one is
          // stopped.
          if (ended.token !== null) await executions.resume(ended.token);
          else await executions.stop(ended.taskId, ended.generation, 'canceled');
        }
        if ((wake.remoteChildren ?? []).length > 0) {
          const { remote, logger } = deps;
          if (remote === undefined || logger === undefined) {
            throw new Error('remote children to cancel, and no remote agents in this runtime');
          }
          await requestRemoteCancels(
            { logger, loop: deps.loop(), remote },
            wake.remoteChildren ?? []
          );
        }
    }
  };
  return { follow };
};
