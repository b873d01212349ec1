import { type Message, Role } from '@a2a-js/sdk';

export interface TextMessageOptions {
  messageId: string;
  taskId?: string | undefined;
  contextId?: string | undefined;
  text: string;
}

/** An A2A message with one text part, from the given role. */
export const textMessageFrom = (role: Role, options: TextMessageOptions): Message => ({
  messageId: options.messageId,
  contextId: options.contextId ?? '',
  taskId: options.taskId ?? '',
  role,
  parts: [
    {
      content: { $case: 'text', value: options.text },
      metadata: undefined,
      filename: '',
      mediaType: 'text/plain',
    },
  ],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

/** An agent message with one text part, as the harness writes it into a status. */
export const agentMessage = (options: TextMessageOptions): Message =>
  textMessageFrom(Role.ROLE_AGENT, options);

/** A user (participant) message with one text part: what a client sends. */
export const userTextMessage = (options: TextMessageOptions): Message =>
  textMessageFrom(Role.ROLE_USER, options);
