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
  type ControlPayload,
  ControlPayloadSchema,
  type EventEnvelope,
  EventEnvelopeSchema,
} from './envelope.schema.js';
import {
  type AcceptanceCriterion,
  type Participant,
  SERVER_CONTROLLED_FIELDS,
  SERVER_OWNED_RELATIONS,
  type TaskExtension,
  TaskExtensionSchema,
  type TaskRef,
} from './extension.schema.js';
import { newTaskParticipants, requireDistinctIds, requireWithinCap } from './new-participants.js';
import { type Permission, participantOf, requirePermission } from './permissions.js';

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
 * Refuses, whole, a payload that names a server-controlled field or a relation the server owns —
 * from anyone, admins included. Runs before anything else so nothing in such an envelope is ever
 * applied.
 */
const refuseServerControlled = (payload: Record<string, unknown>): void => {
  const keys = [...SERVER_CONTROLLED_FIELDS, ...SERVER_OWNED_RELATIONS].filter((key) =>
    Object.hasOwn(payload, key)
  );
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

/**
 * `delegated_from` on a new task: the client says the task is delegated to us from a task of its
 * own (another tiny-harness does, for its remote children). The server records it as a parent on
 * the caller's agent, so the link can only name a task of the caller's, never one on this harness,
 * and nothing here follows it; the task is worked to its end, as delegated work is.
 */
const DelegatedFromSchema = z
  .strictObject({ task_id: z.string().min(1).max(256) })
  .describe("The client's own task this one is delegated from.");

export interface NewTaskSettings {
  /** The participant creating the task (the authenticated caller). */
  sender: string;
  agentId: string;
}

const parentOnCallersAgent = (value: unknown, sender: string): TaskRef[] => {
  if (value === undefined) return [];
  const parsed = DelegatedFromSchema.safeParse(value);
  if (!parsed.success) {
    throw new InvalidEnvelopeError(`invalid delegated_from: ${describeIssues(parsed.error)}`, {
      cause: parsed.error,
    });
  }
  return [{ task_id: parsed.data.task_id, agent: { kind: 'agent', id: sender, version: null } }];
};

/**
 * The extension of a task a client creates with a task envelope. Relations and server-controlled
 * fields are refused; the participants follow `newTaskParticipants` (the creator, this agent as
 * assignee, others as watchers).
 */
export const extensionFromEnvelope = (
  payload: Record<string, unknown>,
  settings: NewTaskSettings
): TaskExtension => {
  refuseServerControlled(payload);
  const { delegated_from: delegatedFrom, ...fields } = payload;
  // A new task's criteria start unmet: none may arrive met.
  const extension = parseExtension(withCriteriaMerged(fields, []));
  return {
    ...extension,
    participants: newTaskParticipants(extension.participants, settings),
    parent_tasks: parentOnCallersAgent(delegatedFrom, settings.sender),
  };
};

/**
 * What the harness itself decides of a task it creates (never a client): who takes part, and the
 * parent on this harness it is linked to (null for a task that has none: the harness's own tests
 * start tasks with a cast of participants this way).
 */
export interface ServerRelations {
  parentTaskId: string | null;
  participants: readonly Participant[];
}

/**
 * The extension of a task the harness creates (a child on this harness): what its brief's
 * envelope describes (name, goal, criteria), with the participants and the parent link the
 * harness made.
 */
export const extensionOfChild = (
  payload: Record<string, unknown>,
  relations: ServerRelations
): TaskExtension => {
  refuseServerControlled(payload);
  if (Object.hasOwn(payload, 'participants')) throw new EnvelopeRefusedError(['participants']);
  const extension = parseExtension(withCriteriaMerged(payload, []));
  const participants = [...relations.participants];
  requireDistinctIds(participants);
  requireWithinCap(participants.length);
  return {
    ...extension,
    participants,
    parent_tasks:
      relations.parentTaskId === null ? [] : [{ task_id: relations.parentTaskId, agent: null }],
  };
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
  const participants: TaskExtension['participants'] = [
    { id: settings.sender, kind: 'human', role: 'reporter', display_name: '' },
    { id: settings.agentId, kind: 'agent', role: 'assignee', display_name: '' },
  ];
  return TaskExtensionSchema.parse({
    name: truncate(firstLine, DEFAULT_NAME_LENGTH, '') || 'task',
    goal: truncate(text.trim(), DEFAULT_GOAL_LENGTH) || 'task',
    participants,
  });
};

/** Which permission each field a participant may change needs (permissions.ts). */
const FIELD_PERMISSIONS: Record<string, Permission> = {
  name: 'edit_details',
  description: 'edit_details',
  acceptance_criteria: 'edit_criteria',
  participants: 'edit_participants',
};

/**
 * Applies a task envelope to an existing task. Each key needs its role (permissions.ts: the name
 * and description are the assignee's, reporter's and admin's; the criteria the reporter's and
 * admin's; the participants an admin's); every other key is refused, named. Acceptance criteria
 * keep their met state (only meet_criterion and a review change it: criteria.ts). All checks run
 * before the merge, and the merged extension must parse, so an envelope is applied whole or not
 * at all.
 */
export const applyTaskEnvelope = (
  current: TaskExtension,
  payload: Record<string, unknown>,
  actor: string
): TaskExtension => {
  refuseServerControlled(payload);
  if (participantOf(current, actor) === undefined) {
    throw new NotAParticipantError('only a participant may change the task');
  }
  const refused = Object.keys(payload).filter((key) => !Object.hasOwn(FIELD_PERMISSIONS, key));
  if (refused.length > 0) throw new EnvelopeRefusedError(refused);
  for (const key of Object.keys(payload)) {
    const permission = FIELD_PERMISSIONS[key];
    if (permission === 'edit_participants') {
      if (participantOf(current, actor)?.role !== 'admin') {
        throw new AdminRequiredError('admin required to change participants');
      }
    } else if (permission !== undefined) {
      requirePermission(current, actor, permission);
    }
  }
  const next = parseExtension({
    ...current,
    ...withCriteriaMerged(payload, current.acceptance_criteria),
  });
  if (Object.hasOwn(payload, 'participants')) {
    requireDistinctIds(next.participants);
    requireWithinCap(next.participants.length);
  }
  return next;
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
