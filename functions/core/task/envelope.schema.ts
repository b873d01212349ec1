import * as z from 'zod';

/**
 * The event envelope: a message data part of media type `application/vnd.tiny-harness.event+json`.
 * A message carries at most one. `task` creates or changes the task extension; `control` is how
 * a participant ends a conversation; `status_update` and `artifact_update` relay a remote
 * agent's events into the transcript.
 */
export const ENVELOPE_KINDS = ['task', 'control', 'status_update', 'artifact_update'] as const;

export const EventEnvelopeSchema = z
  .strictObject({
    kind: z.enum(ENVELOPE_KINDS),
    payload: z.record(z.string(), z.unknown()),
  })
  .describe('tiny-harness event envelope (media type application/vnd.tiny-harness.event+json).');
export type EventEnvelope = z.infer<typeof EventEnvelopeSchema>;

/**
 * The control envelope's payload. Ours: the reference's exact shape was not recoverable; this
 * follows its envelope mechanism (`kind: "control"`).
 */
export const ControlPayloadSchema = z
  .strictObject({
    action: z.enum(['complete', 'cancel']),
    reason: z.string().min(1).optional(),
  })
  .describe('Ends a conversation: complete (runs decide_completion) or cancel.');
export type ControlPayload = z.infer<typeof ControlPayloadSchema>;

/** Fields any participant may change through a task envelope on an existing task. */
export const OPEN_FIELDS = ['name', 'description', 'acceptance_criteria'] as const;
/** Fields only an admin may change through a task envelope. */
export const ADMIN_FIELDS = ['participants'] as const;
