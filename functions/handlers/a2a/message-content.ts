import type { Message, Part, SendMessageRequest } from '@a2a-js/sdk';
import { EVENT_MEDIA_TYPE } from '../../core/a2a/identifiers.js';
import type { FieldViolation } from '../../service/a2a-errors.js';
import { invalidParams } from './request-params.js';

/**
 * What of a client's message this agent keeps: text parts, into the transcript (and the history
 * GetTask answers with), and at most one task event envelope (docs/a2a/ext/README.md), which it
 * applies; the sender goes in `metadata.participant_id`. Anything else a message can carry would
 * be dropped on the way to the transcript, so it is refused instead (A2A lets an agent decline
 * content it does not take; it must not pretend to have taken it): file parts (`raw`, `url`),
 * data parts that are not an envelope, a part's `metadata` or `filename`, message metadata other
 * than `participant_id`, referenced task ids and the request's own `metadata`.
 */

/** The one data part the agent reads, by the same test as the envelope's finder. */
const isEnvelope = (part: Part) =>
  part.content?.$case === 'data' && part.mediaType === EVENT_MEDIA_TYPE;

const KEPT_PARTS = `text parts and one task event envelope (a data part of media type ${EVENT_MEDIA_TYPE})`;

const partViolations = (part: Part, at: string): FieldViolation[] => {
  const violations: FieldViolation[] = [];
  const kind = part.content?.$case;
  if (kind === 'raw' || kind === 'url') {
    violations.push({
      field: at,
      description: `is a file part: this agent keeps only ${KEPT_PARTS}`,
    });
  } else if (kind === 'data' && !isEnvelope(part)) {
    violations.push({
      field: at,
      description: `is a data part ${part.mediaType === '' ? 'with no media type' : `of media type ${part.mediaType}`}: this agent keeps only ${KEPT_PARTS}`,
    });
  }
  if (part.metadata !== undefined && Object.keys(part.metadata).length > 0) {
    violations.push({ field: `${at}.metadata`, description: 'is not kept: send it as text' });
  }
  if (part.filename !== '') {
    violations.push({
      field: `${at}.filename`,
      description: 'names a file: file parts are not kept',
    });
  }
  return violations;
};

/** The message metadata a client may send: its own participant id (identity.ts checks it). */
const KEPT_METADATA: ReadonlySet<string> = new Set(['participant_id']);

const messageViolations = (message: Message): FieldViolation[] => [
  ...message.parts.flatMap((part, index) => partViolations(part, `message.parts[${index}]`)),
  ...Object.keys(message.metadata ?? {})
    .filter((key) => !KEPT_METADATA.has(key))
    .map((key) => ({
      field: `message.metadata.${key}`,
      description: 'is not kept: message metadata holds only participant_id',
    })),
  ...(message.referenceTaskIds.length > 0
    ? [{ field: 'message.referenceTaskIds', description: 'is not read by this agent' }]
    : []),
];

/** Refuses, naming each field, a SendMessage whose content the agent would not keep. */
export const checkKeptContent = (request: SendMessageRequest & { message: Message }): void => {
  const violations = [
    ...messageViolations(request.message),
    ...(Object.keys(request.metadata ?? {}).length > 0
      ? [{ field: 'metadata', description: 'is not kept by this agent' }]
      : []),
  ];
  if (violations.length > 0) throw invalidParams(violations);
};
