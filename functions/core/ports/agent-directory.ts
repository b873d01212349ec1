import type { Message, Task } from '@a2a-js/sdk';

export interface RegisteredAgent {
  id: string;
  description: string;
}

/**
 * Where children live: remote A2A agents by registered id, and this harness itself
 * (`agentId` null). Every child — self included — is created with an A2A SendMessage.
 */
export interface AgentDirectory {
  /** The remote agents a task may delegate to. */
  agents(): readonly RegisteredAgent[];
  /**
   * Sends a child's brief (the first message of a new task) and returns the task the agent
   * created. MUST be idempotent on `message.messageId`: a retried send returns the same task.
   */
  sendMessage(agentId: string | null, message: Message): Promise<Task>;
}
