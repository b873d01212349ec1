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

/**
 * The most of a text a task's status carries (characters). A status is on the task record and in
 * every status event; a longer reply or reason is cut there with a note, and is whole in the
 * transcript.
 */
export const STATUS_TEXT_LIMIT = 32_000;

export const statusText = (text: string): string =>
  text.length <= STATUS_TEXT_LIMIT
    ? text
    : `${text.slice(0, STATUS_TEXT_LIMIT)}… [cut at ${STATUS_TEXT_LIMIT} of ${text.length} characters: the whole text is in the task's history]`;
