import type { Message, Part } from '@a2a-js/sdk';
import * as z from 'zod';
import { EVENT_MEDIA_TYPE } from '../a2a/identifiers.js';
import {
  AdminRequiredError,
  EnvelopeRefusedError,
  InvalidEnvelopeError,
  NotAParticipantError,
  ServerControlledFieldError,
} from '../errors.js';
import { criteriaFromEnvelope } from './criteria.js';
import {
  ADMIN_FIELDS,
  type ControlPayload,
  ControlPayloadSchema,
  type EventEnvelope,
  EventEnvelopeSchema,
  OPEN_FIELDS,
} from './envelope.schema.js';
import {
  type AcceptanceCriterion,
  SERVER_CONTROLLED_FIELDS,
  type TaskExtension,
  TaskExtensionSchema,
} from './extension.schema.js';

/** The message part that carries a task envelope (a brief for a child task). */
export const taskEnvelopePart = (payload: unknown): Part => ({
  content: { $case: 'data', value: { kind: 'task', payload } },
  metadata: undefined,
  filename: '',
  mediaType: EVENT_MEDIA_TYPE,
});

const describeIssues = (error: z.ZodError): string => z.prettifyError(error).replaceAll('\n', '; ');

/** The message's event envelope, if it has one. More than one, or a malformed one, is refused. */
export const findEnvelope = (message: Message): EventEnvelope | undefined => {
  const parts = message.parts.filter(
    (part) => part.mediaType === EVENT_MEDIA_TYPE && part.content?.$case === 'data'
  );
  if (parts.length === 0) return undefined;
  if (parts.length > 1)
    throw new InvalidEnvelopeError('a message carries at most one event envelope');
  const content = parts[0]?.content;
  const parsed = EventEnvelopeSchema.safeParse(
    content?.$case === 'data' ? content.value : undefined
  );
  if (!parsed.success) {
    throw new InvalidEnvelopeError(`invalid event envelope: ${describeIssues(parsed.error)}`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
};

/** The text of a message: its text parts, joined by newlines. */
export const messageText = (message: Message): string =>
  message.parts
    .map((part) => (part.content?.$case === 'text' ? part.content.value : undefined))
    .filter((text): text is string => text !== undefined)
    .join('\n');

/**
 * Refuses, whole, a payload that names a server-controlled field — from anyone, admins included.
 * Runs before anything else so nothing in such an envelope is ever applied.
 */
const refuseServerControlled = (payload: Record<string, unknown>): void => {
  const keys = SERVER_CONTROLLED_FIELDS.filter((key) => Object.hasOwn(payload, key));
  if (keys.length > 0) throw new ServerControlledFieldError(keys);
};

/**
 * The most a task extension a participant writes may weigh, as JSON (characters). It lives on the
 * task record (one store item) and travels in every Task event, so it is bounded: the transcript
 * is where long content belongs.
 */
export const MAX_EXTENSION_CHARACTERS = 100_000;

const parseExtension = (value: unknown): TaskExtension => {
  const parsed = TaskExtensionSchema.safeParse(value);
  if (!parsed.success) {
    throw new InvalidEnvelopeError(
      `invalid task extension: ${parsed.error.issues.length} error(s): ${describeIssues(parsed.error)}`,
      { cause: parsed.error }
    );
  }
  const size = JSON.stringify(parsed.data).length;
  if (size > MAX_EXTENSION_CHARACTERS) {
    throw new InvalidEnvelopeError(
      `the task extension would be ${size} characters as JSON; at most ${MAX_EXTENSION_CHARACTERS} (put long content in a message)`
    );
  }
  return parsed.data;
};

/** The payload with its criteria merged over the task's (criteria.ts): their met state is kept. */
const withCriteriaMerged = (
  payload: Record<string, unknown>,
  current: readonly AcceptanceCriterion[]
): Record<string, unknown> =>
  Object.hasOwn(payload, 'acceptance_criteria')
    ? {
        ...payload,
        acceptance_criteria: criteriaFromEnvelope(current, payload.acceptance_criteria),
      }
    : payload;

export interface NewTaskSettings {
  /** The participant creating the task (asserted by the request), if any. */
  sender: string | null;
  agentId: string;
}

/**
 * The extension of a task created by a task envelope. The sender joins as reporter when the
 * payload does not name them (else they could not reach their own task), and the agent joins as
 * assignee when no one is.
 */
export const extensionFromEnvelope = (
  payload: Record<string, unknown>,
  settings: NewTaskSettings
): TaskExtension => {
  refuseServerControlled(payload);
  // A new task's criteria start unmet: none may arrive met.
  const extension = parseExtension(withCriteriaMerged(payload, []));
  const participants = [...extension.participants];
  const { sender, agentId } = settings;
  if (sender !== null && !participants.some((participant) => participant.id === sender)) {
    participants.unshift({ id: sender, kind: 'human', role: 'reporter', display_name: '' });
  }
  if (!participants.some((participant) => participant.role === 'assignee')) {
    participants.push({ id: agentId, kind: 'agent', role: 'assignee', display_name: '' });
  }
  return { ...extension, participants };
};

const DEFAULT_NAME_LENGTH = 60;
/**
 * The goal of a task made from plain text is the text, cut to this length: the goal sits in the
 * never-compacted task section, so an oversized first message must not live there whole (it stays
 * whole in the transcript, where compaction can summarise it).
 */
const DEFAULT_GOAL_LENGTH = 1_000;

/** Cuts by code point, so a character outside the BMP (an emoji) is never split in half. */
const truncate = (text: string, length: number, ellipsis = '…'): string => {
  const characters = Array.from(text);
  return characters.length <= length
    ? text
    : `${characters.slice(0, length - ellipsis.length).join('')}${ellipsis}`;
};

/** The extension of a task created by a plain text message. */
export const extensionFromText = (text: string, settings: NewTaskSettings): TaskExtension => {
  const firstLine = text.split('\n', 1)[0]?.trim() ?? '';
  const participants: TaskExtension['participants'] = [];
  if (settings.sender !== null) {
    participants.push({ id: settings.sender, kind: 'human', role: 'reporter', display_name: '' });
  }
  participants.push({ id: settings.agentId, kind: 'agent', role: 'assignee', display_name: '' });
  return TaskExtensionSchema.parse({
    name: truncate(firstLine, DEFAULT_NAME_LENGTH, '') || 'task',
    goal: truncate(text.trim(), DEFAULT_GOAL_LENGTH) || 'task',
    participants,
  });
};

/**
 * Applies a task envelope to an existing task. Open fields are anyone's on the task;
 * `participants` is an admin's; every other key is refused, named. Acceptance criteria keep their
 * met state (only meet_criterion and a review change it: criteria.ts). All checks run before the
 * merge, and the merged extension must parse, so an envelope is applied whole or not at all.
 */
export const applyTaskEnvelope = (
  current: TaskExtension,
  payload: Record<string, unknown>,
  actor: string | null
): TaskExtension => {
  refuseServerControlled(payload);
  const participant = current.participants.find((candidate) => candidate.id === actor);
  if (participant === undefined) {
    throw new NotAParticipantError('only a participant may change the task');
  }
  const allowed: readonly string[] = [...OPEN_FIELDS, ...ADMIN_FIELDS];
  const refused = Object.keys(payload).filter((key) => !allowed.includes(key));
  if (refused.length > 0) throw new EnvelopeRefusedError(refused);
  const touchesAdminFields = ADMIN_FIELDS.some((key) => Object.hasOwn(payload, key));
  if (touchesAdminFields && participant.role !== 'admin') {
    throw new AdminRequiredError('admin required to change participants');
  }
  return parseExtension({
    ...current,
    ...withCriteriaMerged(payload, current.acceptance_criteria),
  });
};

export const parseControl = (envelope: EventEnvelope): ControlPayload => {
  const parsed = ControlPayloadSchema.safeParse(envelope.payload);
  if (!parsed.success) {
    throw new InvalidEnvelopeError(`invalid control envelope: ${describeIssues(parsed.error)}`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
};
