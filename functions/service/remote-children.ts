import type { Task } from '@a2a-js/sdk';
import { tokenMatches } from '../adapters/remote/push-token.js';
import { RemoteCallError, TaskNotFoundError } from '../core/errors.js';
import { recordChildChange } from '../core/intake/child-changed.js';
import type { LoopDeps } from '../core/loop/deps.js';
import type { Logger } from '../core/ports/logger.js';
import type { RemoteAgents } from '../core/ports/remote-agents.js';
import type { RemoteFollowers } from '../core/ports/remote-followers.js';
import type { RemoteLinks } from '../core/ports/remote-links.js';
import {
  callFailed,
  cancelPending,
  type FollowPolicy,
  failed,
  type LinkRef,
  nextWaitSeconds,
  observed,
  type RemoteLink,
  undeliveredChange,
  withCancelAttempt,
  withDelivered,
} from '../core/remote/remote-link.js';
import { snapshotOf } from '../core/remote/remote-snapshot.js';
import { changeLink } from './change-link.js';
import type { Executions } from './executions.js';

/** What following a remote child needs of the runtime. */
export interface RemoteChildrenDeps {
  loop: LoopDeps;
  executions: Executions;
  logger: Logger;
  remote: { agents: RemoteAgents; links: RemoteLinks; followers: RemoteFollowers };
}

/** One follower execution's state between its steps. */
export interface FollowState extends LinkRef {
  /** Which execution of the link's follower this is: its number, or `cancel`. */
  run: number | 'cancel';
  /** Steps taken by this execution (it hands over to a new one past RENEW_AFTER_STEPS). */
  steps: number;
}

export interface FollowOutcome extends FollowState {
  done: boolean;
  /** How long the follower waits before its next step. */
  waitSeconds: number;
}

/**
 * Steps one follower execution takes before it starts the next one and ends: each step is a few
 * history events, so the execution stays far below Step Functions' 25,000.
 */
export const RENEW_AFTER_STEPS = 500;

const FALLBACK_POLICY: FollowPolicy = {
  pollSeconds: 2,
  maxPollSeconds: 300,
  unreachableSeconds: 600,
};

const policyOf = (deps: RemoteChildrenDeps, link: RemoteLink): FollowPolicy =>
  deps.remote.agents.get(link.agent)?.policy ?? FALLBACK_POLICY;

const refOf = (link: RemoteLink): LinkRef => ({ parentId: link.parentId, linkId: link.linkId });

/**
 * Tells the parent what its row has not taken yet (the stand-in's rule: `recordChildChange`, one
 * commit on the parent; news wakes it), then notes it delivered. A parent that is gone takes
 * nothing, and is told nothing more.
 */
const deliver = async (deps: RemoteChildrenDeps, link: RemoteLink): Promise<RemoteLink> => {
  const change = undeliveredChange(link);
  if (change === undefined) return link;
  try {
    const wake = await recordChildChange(deps.loop, change);
    deps.logger.info('remote child change recorded', {
      taskId: link.parentId,
      childId: change.childId,
      agent: link.agent,
      state: link.state,
      remoteTurn: change.remoteTurn,
      wake: wake.action,
    });
  } catch (error) {
    if (!(error instanceof TaskNotFoundError)) throw error;
    deps.logger.warn('remote child outlived its parent', {
      taskId: link.parentId,
      agent: link.agent,
    });
  }
  return (
    (await changeLink(deps.remote.links, refOf(link), (current) =>
      withDelivered(current, change.order)
    )) ?? link
  );
};

/** The link after one GetTask of its remote task (or what the failed call teaches). */
const poll = async (deps: RemoteChildrenDeps, link: RemoteLink): Promise<RemoteLink> => {
  const remoteTaskId = link.remoteTaskId;
  if (remoteTaskId === null) return link;
  let learnt: (current: RemoteLink) => RemoteLink;
  try {
    const task = await deps.remote.agents.getTask(link.agent, remoteTaskId);
    const snapshot = snapshotOf(task, remoteTaskId);
    learnt = (current) => observed(current, snapshot, remoteTaskId);
  } catch (error) {
    if (!(error instanceof RemoteCallError)) throw error;
    learnt = learntFromFailure(deps, link, error);
  }
  return (await changeLink(deps.remote.links, refOf(link), learnt)) ?? link;
};

/**
 * What a failed call means for the child: an agent that no longer knows its task has lost it
 * (the child fails now); anything else (down, timing out, garbage) counts against its
 * unreachable allowance.
 */
const learntFromFailure = (
  deps: RemoteChildrenDeps,
  link: RemoteLink,
  error: RemoteCallError
): ((current: RemoteLink) => RemoteLink) => {
  deps.logger.warn('remote agent call failed', {
    taskId: link.parentId,
    agent: link.agent,
    kind: error.kind,
    errorMessage: error.message,
  });
  if (error.a2aError === 'TaskNotFoundError') {
    return (current) =>
      failed(
        current,
        `agent ${link.agent} no longer knows task ${link.remoteTaskId}: ${error.message}`
      );
  }
  const now = deps.loop.clock.now();
  return (current) => callFailed(current, error.message, now, policyOf(deps, current));
};

/** Sends the CancelTask the parent's cancel asked for; an agent that is down is asked again. */
const cancel = async (deps: RemoteChildrenDeps, link: RemoteLink): Promise<RemoteLink> => {
  const remoteTaskId = link.remoteTaskId;
  if (!cancelPending(link) || remoteTaskId === null) return link;
  let learnt: (current: RemoteLink) => RemoteLink;
  try {
    const task: Task = await deps.remote.agents.cancelTask(link.agent, remoteTaskId);
    const snapshot = snapshotOf(task, remoteTaskId);
    learnt = (current) => withCancelAttempt(observed(current, snapshot, remoteTaskId), null);
  } catch (error) {
    if (!(error instanceof RemoteCallError)) throw error;
    if (error.kind === 'answered' && error.a2aError !== 'TaskNotFoundError') {
      // TaskNotCancelable: it ended on its own meanwhile. The next poll reads how.
      learnt = (current) => withCancelAttempt(current, null);
    } else {
      const failure = learntFromFailure(deps, link, error);
      learnt = (current) => withCancelAttempt(failure(current), error.message);
    }
  }
  const next = (await changeLink(deps.remote.links, refOf(link), learnt)) ?? link;
  deps.logger.info('remote child cancel sent', {
    taskId: link.parentId,
    agent: link.agent,
    attempts: next.cancel?.attempts,
    done: next.cancel?.done,
    lastError: next.cancel?.lastError,
  });
  return next;
};

/**
 * One step of a remote child's stand-in: deliver what the parent has not taken, send a cancel the
 * parent asked for, read the remote task (GetTask) and deliver what changed, then say how long
 * to wait. The follower is done once the child ended and its parent took the ending (a cancel
 * follower, once its cancel went through).
 */
export const followRemoteChild = async (
  deps: RemoteChildrenDeps,
  state: FollowState
): Promise<FollowOutcome> => {
  const finished = { ...state, done: true, waitSeconds: 0 };
  let link = await deps.remote.links.get(state.parentId, state.linkId);
  // A link still `creating` belongs to its creation, which starts a follower when it is done.
  if (link === undefined || link.phase === 'creating') return finished;
  link = await deliver(deps, link);
  link = await deliver(deps, await cancel(deps, link));
  // A cancel follower only sends the cancel; the child's own follower reads what came of it.
  if (state.run === 'cancel') {
    if (!cancelPending(link)) return finished;
    return {
      ...state,
      steps: state.steps + 1,
      done: false,
      waitSeconds: nextWaitSeconds(link, policyOf(deps, link)),
    };
  }
  if (link.phase !== 'ended') link = await deliver(deps, await poll(deps, link));
  if (link.phase === 'ended' && link.delivered >= link.seq) return finished;
  const steps = state.steps + 1;
  if (steps >= RENEW_AFTER_STEPS && typeof state.run === 'number') {
    await deps.remote.followers.start(refOf(link), state.run + 1);
    return { ...finished, steps };
  }
  return { ...state, steps, done: false, waitSeconds: nextWaitSeconds(link, policyOf(deps, link)) };
};

/**
 * The follower itself failed past its retries: the child fails with the reason (a parent must
 * not wait for ever on a child nobody follows).
 */
export const failRemoteChild = async (
  deps: RemoteChildrenDeps,
  ref: LinkRef,
  reason: string
): Promise<void> => {
  const link = await changeLink(deps.remote.links, ref, (current) =>
    failed(current, `the stand-in following it failed: ${reason}`)
  );
  if (link !== undefined) await deliver(deps, link);
};

export type PushReceipt = 'accepted' | 'unauthorized' | 'unavailable';

/**
 * A push from a remote agent about one of our children. Its token must be the one generated for
 * the child (the link keeps its hash). The push says something changed: the remote task is read
 * (GetTask, the authoritative state, whatever the push carried) and the change delivered, as a
 * poll would. A GetTask that fails answers `unavailable`, so the agent pushes again; the
 * follower's own polls catch up anyway.
 */
export const receiveRemotePush = async (
  deps: RemoteChildrenDeps,
  ref: LinkRef,
  token: string | undefined
): Promise<PushReceipt> => {
  const link = await deps.remote.links.get(ref.parentId, ref.linkId);
  if (link === undefined || !tokenMatches(token, link.tokenHash)) return 'unauthorized';
  if (link.phase !== 'following') {
    await deliver(deps, link);
    return 'accepted';
  }
  const before = link.failures;
  const after = await poll(deps, link);
  await deliver(deps, after);
  return after.failures > before ? 'unavailable' : 'accepted';
};
