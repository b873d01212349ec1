import type { Clock } from '../core/ports/clock.js';
import { errorFields, type Logger } from '../core/ports/logger.js';
import type { RemoteFollowers } from '../core/ports/remote-followers.js';
import type { RemoteLinks } from '../core/ports/remote-links.js';
import type { RemoteChildRef } from '../core/ports/waker.js';
import { cancelPending, childIdOf, withCancelRequested } from '../core/remote/remote-link.js';
import { changeLink } from './change-link.js';

/**
 * A canceled parent's remote children: each link records the cancel (so it is retried until the
 * agent answers, across restarts) and a cancel follower starts at once to send CancelTask. Nothing
 * here waits on a remote agent: a parent's cancel is answered whether its children's agents are
 * up or not, and a failure to record one is logged, never thrown.
 */
export const requestRemoteCancels = async (
  deps: {
    logger: Logger;
    loop: { clock: Clock };
    remote: { links: RemoteLinks; followers: RemoteFollowers };
  },
  children: readonly RemoteChildRef[]
): Promise<void> => {
  for (const { parentId, row } of children) {
    try {
      const link = (await deps.remote.links.list(parentId)).find(
        (candidate) => childIdOf(candidate) === row.task_id && candidate.agent === row.agent?.id
      );
      if (link === undefined) {
        deps.logger.warn('remote child to cancel has no link', {
          taskId: parentId,
          childId: row.task_id,
        });
        continue;
      }
      const now = deps.loop.clock.now();
      const ref = { parentId, linkId: link.linkId };
      const requested = await changeLink(deps.remote.links, ref, (current) =>
        withCancelRequested(current, now)
      );
      if (requested !== undefined && cancelPending(requested)) {
        await deps.remote.followers.start(ref, 'cancel');
      }
      deps.logger.info('remote child cancel requested', {
        taskId: parentId,
        childId: row.task_id,
        agent: link.agent,
      });
    } catch (error) {
      deps.logger.error('remote child cancel not requested', {
        taskId: parentId,
        childId: row.task_id,
        ...errorFields(error),
      });
    }
  }
};
