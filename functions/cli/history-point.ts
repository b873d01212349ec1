/**
 * A point in a task's history as a person names it (`--at MESSAGE`, `--before-turn N`, or
 * neither: its latest), for `fork` and `show` and the chat's `/fork`. A message id may be typed
 * whole or as its first characters, as a task id may (task-id.ts): it is looked up among the
 * task's history.
 */
import type { Message } from '@a2a-js/sdk';
import type { HistoryPointRequest } from '../view/fork.js';
import { AgentError } from '../view/timeline.js';
import type { Agent } from './connection.js';

export type { HistoryPointRequest };

export const pointOf = (options: {
  at?: string | undefined;
  beforeTurn?: number | undefined;
}): HistoryPointRequest => {
  if (options.at !== undefined) return { messageId: options.at };
  if (options.beforeTurn !== undefined) return { beforeTurn: options.beforeTurn };
  return {};
};

/** The point in words, after "forked … " or "… as it was ". */
export const pointText = (point: HistoryPointRequest): string => {
  if ('messageId' in point) return `at message ${point.messageId}`;
  if ('beforeTurn' in point) return `just before turn ${point.beforeTurn}`;
  return 'at its latest point';
};

/**
 * The id of the one message of `history` that `typed` names: its whole id, or the first
 * characters of one message's id and no other's. One that names none goes to the agent as typed,
 * which says that the task has no such message; one that names several is refused here. Not a
 * CliError: in the chat, a point mistyped is the person's to retype, not the end of the chat.
 */
export const matchMessageId = (history: readonly Pick<Message, 'messageId'>[], typed: string) => {
  const ids = history.map((message) => message.messageId);
  if (ids.includes(typed)) return typed;
  const matches = ids.filter((id) => id.startsWith(typed));
  if (matches.length === 1) return matches[0] as string;
  if (matches.length === 0) return typed;
  throw new AgentError(
    `${typed} is ambiguous: ${matches.length} messages of the task start with it (${matches.slice(0, 3).join(', ')}${matches.length > 3 ? ', …' : ''}): type more of the id`
  );
};

/** The point with its message id made whole from the task's history as it is now. */
export const resolvePoint = async (
  agent: Pick<Agent, 'client'>,
  taskId: string,
  point: HistoryPointRequest
): Promise<HistoryPointRequest> => {
  if (!('messageId' in point)) return point;
  const task = await agent.client.getTask({ tenant: '', id: taskId });
  return { messageId: matchMessageId(task.history, point.messageId) };
};
