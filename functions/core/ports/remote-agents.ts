import type { Message, Task } from '@a2a-js/sdk';
import type { RemoteCard } from '../remote/remote-card.js';
import type { FollowPolicy } from '../remote/remote-link.js';

/** A registered remote agent: what the model reads of it and how its children are followed. */
export interface RemoteAgent {
  id: string;
  description: string;
  /** Follow by push when the card offers it (configuration may turn it off). */
  push: boolean;
  policy: FollowPolicy;
}

/** Where the agent's push notifications for one child go, and the token that proves them ours. */
export interface PushTarget {
  url: string;
  token: string;
}

/** How registering an agent went: its card read and callable, refused, or not reachable yet. */
export type Registration =
  /** `push`: its children are followed by push (its card offers it, configuration allows it). */
  | { agent: string; outcome: 'ready'; card: RemoteCard; push: boolean }
  | { agent: string; outcome: 'refused' | 'unreachable'; reason: string };

export type BriefAnswer = { kind: 'task'; task: Task } | { kind: 'message'; message: Message };

/**
 * The registered remote A2A agents, called over A2A 1.0 (JSON-RPC or HTTP+JSON, as each card
 * offers). Every failure is a RemoteCallError (unreachable, answered with an A2A error, or
 * garbage); an agent whose card offers nothing callable is a RemoteAgentRefusedError.
 */
export interface RemoteAgents {
  /** The configured agents (those refused at registration included: they fail when called). */
  list(): readonly RemoteAgent[];
  get(agent: string): RemoteAgent | undefined;
  /**
   * Reads every agent's card: an agent whose card offers no interface the harness can call is
   * `refused` (a configuration error, said at start); one whose card cannot be read now is
   * `unreachable` and read again when it is first called.
   */
  register(): Promise<Registration[]>;
  /** The agent's card as the harness calls it (fetched, cached, revalidated by its ETag). */
  card(agent: string): Promise<RemoteCard>;
  /** SendMessage with `returnImmediately`; `push` registers our webhook for the new task. */
  send(agent: string, message: Message, push: PushTarget | undefined): Promise<BriefAnswer>;
  getTask(agent: string, taskId: string): Promise<Task>;
  cancelTask(agent: string, taskId: string): Promise<Task>;
  /**
   * The task the agent made of our message `messageId` (sent at or after `since`), if it can say:
   * how a creation retried after a crash finds the task its first attempt made.
   */
  findTask(agent: string, messageId: string, since: string): Promise<Task | undefined>;
}
