/** The messages a participant sends through a renderer. */
import { type Message, Role } from '@a2a-js/sdk';
import { EVENT_MEDIA_TYPE } from '../core/a2a/identifiers.js';
import { userTextMessage } from '../core/loop/messages.js';
import type { ControlPayload } from '../core/task/envelope.schema.js';

/** `crypto.randomUUID` is global in browsers and in Node 19+. */
const newMessageId = () => globalThis.crypto.randomUUID();

/** A participant's text to a task (or, with no task id, the first message of a new one). */
export const textTo = (taskId: string | undefined, text: string): Message =>
  userTextMessage({ messageId: newMessageId(), taskId: taskId ?? '', text });

/** `/sub-task <description>`: the harness starts a sub-task with it as its goal. */
export const subTaskTo = (taskId: string | undefined, description: string): Message =>
  textTo(taskId, `/sub-task ${description}`);

/**
 * The control envelope: a participant completes or cancels the task, or a reviewer rejects a met
 * criterion (docs/a2a/ext/README.md).
 */
export const controlTo = (taskId: string, payload: ControlPayload): Message => ({
  messageId: newMessageId(),
  contextId: '',
  taskId,
  role: Role.ROLE_USER,
  parts: [
    {
      content: {
        $case: 'data',
        value: { kind: 'control', payload },
      },
      metadata: undefined,
      filename: '',
      mediaType: EVENT_MEDIA_TYPE,
    },
  ],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

/** A message's text parts, joined. */
export const messageText = (message: Pick<Message, 'parts'>): string =>
  message.parts
    .flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []))
    .join('\n');
