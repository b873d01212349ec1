import { type Message, Role } from '@a2a-js/sdk';

/** An agent message with one text part, as the harness writes it into a status. */
export const agentMessage = (options: {
  messageId: string;
  taskId: string;
  contextId: string;
  text: string;
}): Message => ({
  messageId: options.messageId,
  contextId: options.contextId,
  taskId: options.taskId,
  role: Role.ROLE_AGENT,
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
