/**
 * The page's A2A client: the official @a2a-js/sdk client (JSON-RPC, then HTTP+JSON), every call
 * carrying the session's bearer token. A plain A2A client: it knows the harness only through the
 * agent card, the task extension and the audit extension.
 */
import type { AgentCard, Task } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import type { TaskSource } from '../../../functions/view/follow.js';
import {
  type ForkRequest,
  forkTask,
  type HistoryPointRequest,
  offersFork,
  taskAt,
} from '../../../functions/view/fork.js';
import { fetchTimeline, offersTimeline } from '../../../functions/view/timeline.js';
import { type Session, SignInRequired } from '../auth/session.js';
import type { TaskView } from '../generated/task-view.js';
import type { Timeline } from '../generated/timeline.js';
import { parseTimeline, viewOf } from './read.js';

export interface Agent extends TaskSource {
  client: Client;
  card: AgentCard;
  view(task: Task): TaskView;
  /** Whether the agent offers the audit extension (the Trace pane). */
  audits: boolean;
  timeline(taskId: string): Promise<Timeline>;
  /** Whether the agent offers ForkTask and GetTaskAt (the task extension's history methods). */
  forks: boolean;
  /** ForkTask: the new task. */
  fork(request: ForkRequest): Promise<Task>;
  /** GetTaskAt: the task as it was at a point of its history. */
  taskAt(taskId: string, point: HistoryPointRequest): Promise<Task>;
}

/** How often a throttled call (429) is tried again, and the longest wait between tries. */
const THROTTLE_RETRIES = 4;
const MAX_RETRY_AFTER_MS = 10_000;

const sleep = (ms: number, signal: AbortSignal | null | undefined) =>
  new Promise<void>((done) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      done();
    });
  });

/** `Retry-After` in milliseconds (seconds, or an HTTP date), bounded; 1 s when absent. */
export const retryAfterMs = (value: string | null, now = Date.now()): number => {
  if (value === null || value.trim() === '') return 1_000;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(250, Number.isFinite(ms) ? ms : 1_000));
};

/**
 * Every call with the session's token; a 401 says the session must be renewed. A throttled call
 * (429, refused before anything was read or stored) waits as told and goes again.
 */
export const authorizedFetch =
  (session: Session, onSignInRequired: (error: SignInRequired) => void): typeof fetch =>
  async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${await session.accessToken()}`);
    let response = await fetch(input, { ...init, headers });
    for (let retry = 0; response.status === 429 && retry < THROTTLE_RETRIES; retry++) {
      await sleep(retryAfterMs(response.headers.get('Retry-After')), init?.signal);
      if (init?.signal?.aborted) break;
      response = await fetch(input, { ...init, headers });
    }
    if (response.status === 401) {
      const error = new SignInRequired('the agent refused the credentials (401)');
      onSignInRequired(error);
      throw error;
    }
    return response;
  };

export const connectAgent = async (
  apiUrl: string,
  session: Session,
  onSignInRequired: (error: SignInRequired) => void
): Promise<Agent> => {
  const fetchImpl = authorizedFetch(session, onSignInRequired);
  const client = await new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({ fetchImpl }),
      new RestTransportFactory({ fetchImpl }),
    ],
  }).createFromUrl(apiUrl.replace(/\/+$/, ''));
  const card = await client.getAgentCard();
  return {
    client,
    card,
    view: viewOf,
    audits: offersTimeline(card),
    timeline: (taskId) =>
      fetchTimeline({ fetch: fetchImpl, card, taskId, subTasks: true, parse: parseTimeline }),
    forks: offersFork(card),
    fork: (request) => forkTask({ fetch: fetchImpl, card }, request),
    taskAt: (taskId, point) => taskAt({ fetch: fetchImpl, card }, taskId, point),
  };
};

/** An error as one line for people: the agent's own message (task not found, ...). */
export const describeError = (error: unknown): string => {
  const message = (error as Error)?.message ?? String(error);
  return message.replace(/^[A-Za-z]+Error:\s*/, '');
};
