import * as z from 'zod';
import type { ChildChange } from '../intake/child-changed.js';
import { ReportedUsageSchema } from '../loop/usage.js';
import { isTerminalState, stateFromName } from '../task/a2a-task.js';
import { SubStateSchema, TaskStateNameSchema } from '../task/extension.schema.js';
import type { RemoteSnapshot } from './remote-snapshot.js';

/**
 * The stand-in's record of one child on a remote agent (kept in the parent's partition): which
 * remote task it is, what the parent has been told of it, how following it goes, and a cancel
 * the parent asked for. Every decision about it is a pure function here; the store writes it
 * conditioned on `version`.
 */
export const RemoteLinkSchema = z.strictObject({
  parentId: z.string().min(1),
  /** Derived from the parent and the brief's message id: a retried creation finds the link. */
  linkId: z.string().regex(/^[0-9a-f]{32}$/),
  /** The registered agent id. */
  agent: z.string().min(1),
  /** The brief's message id (SendMessage's `messageId`). */
  messageId: z.string().min(1),
  /**
   * `creating`: the brief is being sent (a retry first looks for the task it may have made);
   * `following`: the remote task runs; `ended`: it ended, or the child failed on our side.
   */
  phase: z.enum(['creating', 'following', 'ended']),
  /** The remote task's own id; null until the agent answered with one. */
  remoteTaskId: z.string().min(1).nullable(),
  /** How the stand-in hears of changes: the agent's push notifications, or polling GetTask. */
  delivery: z.enum(['push', 'poll']),
  /** SHA-256 (hex) of the token our webhook expects in pushes for this child; null when polled. */
  tokenHash: z.string().nullable(),
  createdAt: z.string(),
  state: TaskStateNameSchema,
  subState: SubStateSchema.nullable(),
  /** The id of the agent's latest message seen: a new one is a remote turn. */
  lastTurnId: z.string().nullable(),
  /** What the parent's model reads of the latest change (the reason, when the child failed). */
  summary: z.string(),
  /** The remote task's usage as it reports it; null while it reports none (unknown, not zero). */
  usage: ReportedUsageSchema.nullable(),
  /** Changes observed so far: each is delivered to the parent with this order. */
  seq: z.int().min(0),
  /** The last change the parent's row took. */
  delivered: z.int().min(0),
  /** The latest change is a remote turn (an agent message), news for the parent. */
  turn: z.boolean(),
  /** Polls since the last change (the backoff). */
  quietPolls: z.int().min(0),
  /** Calls that failed in a row, since when, and the last one's reason. */
  failures: z.int().min(0),
  failingSince: z.string().nullable(),
  lastError: z.string().nullable(),
  /** The parent was canceled: the remote task must be too (retried until the agent answers). */
  cancel: z
    .strictObject({
      requestedAt: z.string(),
      attempts: z.int().min(0),
      lastError: z.string().nullable(),
      done: z.boolean(),
    })
    .nullable(),
  version: z.int().min(1),
});
export type RemoteLink = z.infer<typeof RemoteLinkSchema>;

/** How the stand-in follows a remote agent's tasks (from its configuration). */
export interface FollowPolicy {
  pollSeconds: number;
  maxPollSeconds: number;
  unreachableSeconds: number;
}

/** Where a link lives and how a follower names it. */
export interface LinkRef {
  parentId: string;
  linkId: string;
}

/** The id the parent's row names: the remote task's, or, before there is one, the link's own. */
export const childIdOf = (link: RemoteLink): string =>
  link.remoteTaskId ?? `${link.agent}:${link.linkId}`;

/** How much of a remote agent's answer a link keeps for the parent's note. */
export const REMOTE_SUMMARY_LIMIT = 8_000;

const cut = (text: string): string =>
  text.length <= REMOTE_SUMMARY_LIMIT
    ? text
    : `${text.slice(0, REMOTE_SUMMARY_LIMIT)}\n[… cut: the agent's answer had ${text.length} characters]`;

/** A link for a brief about to be sent. */
export const creatingLink = (options: {
  parentId: string;
  linkId: string;
  agent: string;
  messageId: string;
  delivery: RemoteLink['delivery'];
  tokenHash: string | null;
  now: string;
}): RemoteLink => ({
  parentId: options.parentId,
  linkId: options.linkId,
  agent: options.agent,
  messageId: options.messageId,
  phase: 'creating',
  remoteTaskId: null,
  delivery: options.delivery,
  tokenHash: options.tokenHash,
  createdAt: options.now,
  state: 'TASK_STATE_SUBMITTED',
  subState: null,
  lastTurnId: null,
  summary: '',
  usage: null,
  seq: 0,
  delivered: 0,
  turn: false,
  quietPolls: 0,
  failures: 0,
  failingSince: null,
  lastError: null,
  cancel: null,
  version: 1,
});

const ended = (link: RemoteLink): boolean => link.phase === 'ended';

/** States in which a remote agent has finished its turn and waits for someone. */
const INTERRUPTED: ReadonlySet<string> = new Set([
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
]);

/**
 * The link after the agent's task was read (or answered a brief). A change of state or of
 * sub-state is one more change for the parent, and so is a remote turn: the agent stopped
 * (input or auth required) with a new message. A message while it works (a progress update) is
 * not a turn. Anything else only resets the failure count and lengthens the next wait.
 */
export const observed = (
  link: RemoteLink,
  snapshot: RemoteSnapshot,
  remoteTaskId: string | null
): RemoteLink => {
  if (ended(link)) return link;
  const base: RemoteLink = {
    ...link,
    remoteTaskId: link.remoteTaskId ?? remoteTaskId,
    usage: snapshot.usage ?? link.usage,
    failures: 0,
    failingSince: null,
    lastError: null,
  };
  const terminal = isTerminalState(stateFromName(snapshot.state));
  const lastTurnId = snapshot.turn?.id ?? link.lastTurnId;
  const turn = lastTurnId !== link.lastTurnId && INTERRUPTED.has(snapshot.state);
  const changed = snapshot.state !== link.state || snapshot.subState !== link.subState || turn;
  if (!changed) {
    return { ...base, phase: 'following', lastTurnId, quietPolls: link.quietPolls + 1 };
  }
  return {
    ...base,
    phase: terminal ? 'ended' : 'following',
    state: snapshot.state,
    subState: snapshot.subState,
    lastTurnId,
    summary: cut(snapshot.result),
    seq: link.seq + 1,
    turn,
    quietPolls: 0,
  };
};

/** The child failed on our side (the agent never took the brief, or cannot be followed). */
export const failed = (link: RemoteLink, reason: string): RemoteLink => {
  if (ended(link)) return link;
  return {
    ...link,
    phase: 'ended',
    state: 'TASK_STATE_FAILED',
    subState: null,
    summary: cut(reason),
    seq: link.seq + 1,
    turn: false,
  };
};

const seconds = (from: string, to: string): number => (Date.parse(to) - Date.parse(from)) / 1000;

/**
 * A call to the agent failed (it is down, timed out, or answered garbage). The child fails once
 * the agent has gone unanswered for the policy's `unreachableSeconds`; until then the stand-in
 * tries again with backoff.
 */
export const callFailed = (
  link: RemoteLink,
  error: string,
  now: string,
  policy: FollowPolicy
): RemoteLink => {
  if (ended(link)) return link;
  const failingSince = link.failingSince ?? now;
  const next = { ...link, failures: link.failures + 1, failingSince, lastError: error };
  const silent = seconds(failingSince, now);
  if (silent < policy.unreachableSeconds) return next;
  return failed(
    next,
    `agent ${link.agent} has not answered for ${Math.round(silent)} s (the limit is ${policy.unreachableSeconds} s): ${error}`
  );
};

/** How long the stand-in waits before it looks again (0: it is done). */
export const nextWaitSeconds = (link: RemoteLink, policy: FollowPolicy): number => {
  if (ended(link)) return 0;
  const backoff = (n: number) => Math.min(policy.maxPollSeconds, policy.pollSeconds * 2 ** n);
  if (link.failures > 0) return backoff(link.failures - 1);
  if (link.delivery === 'push') return policy.maxPollSeconds;
  return backoff(link.quietPolls);
};

/** The change the parent has not taken yet, as the parent's stand-in rule reads it. */
export const undeliveredChange = (link: RemoteLink): ChildChange | undefined => {
  if (link.delivered >= link.seq) return undefined;
  return {
    parentId: link.parentId,
    childId: childIdOf(link),
    agent: { kind: 'agent', id: link.agent, version: null },
    state: stateFromName(link.state),
    subState: link.subState ?? undefined,
    // Every child this harness sends to another agent is delegated to it.
    childLifecycle: 'delegated',
    participantTask: false,
    remoteTurn: link.turn,
    // The link is the harness's own record of a child it created for this parent.
    linkedByHarness: true,
    summary: link.summary,
    reportedUsage: link.usage?.usage ?? null,
    usage: link.usage,
    changeKey: `remote:${link.seq}`,
    order: link.seq,
  };
};

export const withDelivered = (link: RemoteLink, seq: number): RemoteLink =>
  link.delivered >= seq ? link : { ...link, delivered: seq };

/** The parent was canceled: the stand-in cancels the remote task (nothing to do if it ended). */
export const withCancelRequested = (link: RemoteLink, now: string): RemoteLink => {
  if (link.cancel !== null) return link;
  const done = ended(link) || link.remoteTaskId === null;
  return { ...link, cancel: { requestedAt: now, attempts: 0, lastError: null, done } };
};

/** One CancelTask sent: `error` is why it did not go through (it is tried again), or null. */
export const withCancelAttempt = (link: RemoteLink, error: string | null): RemoteLink => {
  if (link.cancel === null) return link;
  return {
    ...link,
    cancel: {
      ...link.cancel,
      attempts: link.cancel.attempts + 1,
      lastError: error,
      done: error === null,
    },
  };
};

/** Whether the stand-in must still send a CancelTask. */
export const cancelPending = (link: RemoteLink): boolean =>
  link.cancel !== null && !link.cancel.done && link.remoteTaskId !== null && !ended(link);
