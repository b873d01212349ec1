import { randomUUID } from 'node:crypto';
import { type Message, Role } from '@a2a-js/sdk';
import { EVENT_MEDIA_TYPE } from '../core/a2a/identifiers.js';
import { userTextMessage } from '../core/loop/messages.js';

/** A participant's text to a task (or, with no task id, the first message of a new one). */
export const textTo = (taskId: string | undefined, text: string): Message =>
  userTextMessage({ messageId: randomUUID(), taskId: taskId ?? '', text });

/** The control envelope: a participant completes or cancels the task (docs/a2a/ext/README.md). */
export const controlTo = (
  taskId: string,
  action: 'complete' | 'cancel',
  reason: string | undefined
): Message => ({
  messageId: randomUUID(),
  contextId: '',
  taskId,
  role: Role.ROLE_USER,
  parts: [
    {
      content: {
        $case: 'data',
        value: { kind: 'control', payload: { action, ...(reason ? { reason } : {}) } },
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
