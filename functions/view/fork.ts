/**
 * The task extension's fork and time-travel methods (docs/a2a/fork.md), as a renderer asks for
 * them: JSON-RPC `tiny-harness/ForkTask` and `tiny-harness/GetTaskAt`, answered with a Task.
 */
import { type AgentCard, Task } from '@a2a-js/sdk';
import {
  FORK_JSON_RPC_METHOD,
  TASK_AT_JSON_RPC_METHOD,
  TASK_EXTENSION_URI,
} from '../core/a2a/identifiers.js';
import { AgentError } from './timeline.js';

/** A point in a task's history: a message of its history, just before a turn, or its latest. */
export type HistoryPointRequest =
  | { messageId: string }
  | { beforeTurn: number }
  | Record<string, never>;

export interface ForkRequest {
  taskId: string;
  point: HistoryPointRequest;
  /** The fork's name (the original's with " (fork)" when absent). */
  name?: string | undefined;
  /** The fork's first message: the fork runs a turn on it. Absent: it waits for one. */
  text?: string | undefined;
}

/** Whether the agent offers forks: the task extension on a JSON-RPC interface. */
export const offersFork = (card: AgentCard) =>
  card.capabilities?.extensions.some((extension) => extension.uri === TASK_EXTENSION_URI) ===
    true && card.supportedInterfaces.some((i) => i.protocolBinding === 'JSONRPC');

const callJsonRpc = async (
  options: { fetch: typeof fetch; card: AgentCard; taskId: string },
  method: string,
  params: Record<string, unknown>
): Promise<Task> => {
  const { card, taskId } = options;
  const jsonRpc = card.supportedInterfaces.find((i) => i.protocolBinding === 'JSONRPC');
  if (!offersFork(card) || jsonRpc === undefined) {
    throw new AgentError(`${card.name} does not offer the tiny-harness task extension`);
  }
  const response = await options.fetch(jsonRpc.url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'A2A-Version': '1.0',
      'A2A-Extensions': TASK_EXTENSION_URI,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { id: taskId, ...params } }),
  });
  const body = (await response.json().catch(() => ({
    error: { code: response.status, message: `HTTP ${response.status}` },
  }))) as { result?: unknown; error?: { code: number; message: string } };
  if (body.error !== undefined) {
    // The server's refusals of a point name the task already; "not found" does not.
    const { message } = body.error;
    throw new AgentError(message.includes(taskId) ? message : `${message} (${taskId})`);
  }
  return Task.fromJSON(body.result);
};

/** ForkTask: the new task, forked from `taskId` at `point`. */
export const forkTask = (
  options: { fetch: typeof fetch; card: AgentCard },
  request: ForkRequest
): Promise<Task> =>
  callJsonRpc({ ...options, taskId: request.taskId }, FORK_JSON_RPC_METHOD, {
    ...request.point,
    ...(request.name === undefined ? {} : { name: request.name }),
    ...(request.text === undefined ? {} : { text: request.text }),
  });

/** GetTaskAt: the task as it was at `point` (its history through it). */
export const taskAt = (
  options: { fetch: typeof fetch; card: AgentCard },
  taskId: string,
  point: HistoryPointRequest
): Promise<Task> => callJsonRpc({ ...options, taskId }, TASK_AT_JSON_RPC_METHOD, { ...point });
