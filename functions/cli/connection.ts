/**
 * Which agent the command talks to, and as whom: `--url` and `--token` (or TINY_HARNESS_URL and
 * TINY_HARNESS_TOKEN), else the endpoint file `npm start` writes to its data directory. The
 * client is the official @a2a-js/sdk one, so any A2A 1.0 agent answers.
 */
import type { AgentCard, Task } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { type Timeline, TimelineSchema } from '../core/audit/timeline.schema.js';
import { DEFAULT_DATA_DIR, endpointPath, readEndpoint } from '../local/endpoint-file.js';
import type { TaskSource } from '../view/follow.js';
import { type ForkRequest, forkTask, type HistoryPointRequest, taskAt } from '../view/fork.js';
import { AgentError, fetchTimeline } from '../view/timeline.js';
import { agentFetch } from './agent-fetch.js';
import { CliError } from './cli-error.js';
import { taskView } from './task-view.js';

export interface ConnectionOptions {
  url?: string | undefined;
  token?: string | undefined;
  dataDir?: string | undefined;
}

export interface Connection {
  url: string;
  token: string | undefined;
  /** Where the URL came from, for error messages. */
  from: string;
  /** Where the token came from, for error messages. */
  tokenFrom: string;
}

export { CliError };

export const resolveConnection = (
  options: ConnectionOptions,
  env: NodeJS.ProcessEnv = process.env
): Connection => {
  const token = options.token ?? (env.TINY_HARNESS_TOKEN || undefined);
  const tokenFrom = options.token !== undefined ? '--token' : 'TINY_HARNESS_TOKEN';
  const url = options.url ?? (env.TINY_HARNESS_URL || undefined);
  if (url !== undefined) {
    return {
      url: url.replace(/\/+$/, ''),
      token,
      from: options.url !== undefined ? '--url' : 'TINY_HARNESS_URL',
      tokenFrom,
    };
  }
  const dataDir = options.dataDir ?? env.TINY_HARNESS_DATA_DIR ?? DEFAULT_DATA_DIR;
  const endpoint = readEndpoint(dataDir);
  if (endpoint === undefined) {
    throw new CliError(
      `no agent to talk to: ${endpointPath(dataDir)} does not exist: ` +
        'start one with `npm start` (in another terminal), or name one with --url (and --token)'
    );
  }
  return {
    url: endpoint.url,
    token: token ?? endpoint.token ?? undefined,
    from: endpointPath(dataDir),
    tokenFrom: token === undefined ? endpointPath(dataDir) : tokenFrom,
  };
};

export interface Agent extends TaskSource {
  client: Client;
  card: AgentCard;
  connection: Connection;
  /** GetTaskTimeline, when the agent offers the tiny-harness audit extension. */
  timeline(taskId: string, subTasks: boolean): Promise<Timeline>;
  /** ForkTask, when the agent offers the tiny-harness task extension: the new task. */
  fork(request: ForkRequest): Promise<Task>;
  /** GetTaskAt: the task as it was at `point`, its history through it. */
  taskAt(taskId: string, point: HistoryPointRequest): Promise<Task>;
}

export const connect = async (connection: Connection): Promise<Agent> => {
  const fetchImpl = agentFetch(connection);
  let client: Client;
  try {
    client = await new ClientFactory({
      transports: [
        new JsonRpcTransportFactory({ fetchImpl }),
        new RestTransportFactory({ fetchImpl }),
      ],
    }).createFromUrl(connection.url);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(
      `cannot reach the agent at ${connection.url} (from ${connection.from}): ${(error as Error).message}: ` +
        'is `npm start` running? Or pass --url'
    );
  }
  const card = await client.getAgentCard();
  return {
    client,
    card,
    connection,
    view: taskView,
    timeline: (taskId, subTasks) =>
      fetchTimeline({
        fetch: fetchImpl,
        card,
        taskId,
        subTasks,
        parse: (raw) => TimelineSchema.parse(raw),
      }),
    fork: (request) => forkTask({ fetch: fetchImpl, card }, request),
    taskAt: (taskId, point) => taskAt({ fetch: fetchImpl, card }, taskId, point),
  };
};

/** An SDK error as one line: the A2A error's message (task not found, ...). */
export const describeError = (error: unknown): string => {
  if (error instanceof CliError || error instanceof AgentError) return error.message;
  const message = (error as Error).message ?? String(error);
  return message.replace(/^[A-Za-z]+Error:\s*/, '').replace(/\s*\n\s*/g, ' ');
};
