import { type Message, type Part, Role, type Task } from '@a2a-js/sdk';
import { EVENT_MEDIA_TYPE } from '../../functions/core/a2a/identifiers.js';

let counter = 0;

const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

const envelopePart = (kind: string, payload: unknown): Part => ({
  content: { $case: 'data', value: { kind, payload } },
  metadata: undefined,
  filename: '',
  mediaType: EVENT_MEDIA_TYPE,
});

const message = (parts: Part[], options: { messageId?: string; contextId?: string }): Message => ({
  messageId: options.messageId ?? `msg-test-${++counter}`,
  contextId: options.contextId ?? '',
  taskId: '',
  role: Role.ROLE_USER,
  parts,
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

/** A user message with one text part. */
export const textMessage = (
  text: string,
  options: { messageId?: string; contextId?: string } = {}
) => message([textPart(text)], options);

/** A user message carrying an event envelope (and optionally text). */
export const envelopeMessage = (
  kind: string,
  payload: unknown,
  options: { text?: string; messageId?: string } = {}
) =>
  message(
    options.text === undefined
      ? [envelopePart(kind, payload)]
      : [textPart(options.text), envelopePart(kind, payload)],
    options
  );

/** A raw data part with the event media type, for malformed-envelope tests. */
export const rawEnvelopeMessage = (value: unknown) =>
  message([{ ...envelopePart('task', {}), content: { $case: 'data', value } }], {});

/** The text of a task's status message (its parts' text, joined). */
export const statusText = (task: Task): string =>
  (task.status?.message?.parts ?? [])
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .join('');
