import { randomUUID } from 'node:crypto';
import { type Message, Role } from '@a2a-js/sdk';
import { EVENT_MEDIA_TYPE } from '../core/a2a/identifiers.js';
import { userTextMessage } from '../core/loop/messages.js';
import type { ControlPayload } from '../core/task/envelope.schema.js';

/** A participant's text to a task (or, with no task id, the first message of a new one). */
export const textTo = (taskId: string | undefined, text: string): Message =>
  userTextMessage({ messageId: randomUUID(), taskId: taskId ?? '', text });

/**
 * The control envelope: a participant completes or cancels the task, or a reviewer rejects a met
 * criterion (docs/a2a/ext/README.md).
 */
export const controlTo = (taskId: string, payload: ControlPayload): Message => ({
  messageId: randomUUID(),
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
