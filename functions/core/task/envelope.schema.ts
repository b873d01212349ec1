import * as z from 'zod';
import { BudgetSchema } from './extension.schema.js';

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

/** An answer to tool calls waiting for approval (sub-state `awaiting-approval`). */
const ApprovalControlSchema = <A extends 'approve' | 'reject'>(action: A) =>
  z.strictObject({
    action: z.literal(action),
    calls: z
      .array(z.string().min(1))
      .min(1)
      .max(100)
      .optional()
      .describe(
        'The tool call ids answered (the status message lists them); absent: every call waiting.'
      ),
    reason: z
      .string()
      .min(1)
      .max(2_000)
      .optional()
      .describe('Why: kept in the audit timeline; for a rejection, what the model reads.'),
  });

/**
 * The control envelope's payload. Ours: the reference's exact shape was not recoverable; this
 * follows its envelope mechanism (`kind: "control"`). `complete` and `cancel` end the task;
 * `reject_criterion` is a reviewer's (a reporter's or an admin's) finding that a met acceptance
 * criterion is not met; `approve` and `reject` answer tool calls waiting for a participant's
 * approval; `set_budget` is a reporter's or an admin's new budget for the task.
 */
export const ControlPayloadSchema = z
  .discriminatedUnion('action', [
    z
      .strictObject({ action: z.literal('complete'), reason: z.string().min(1).optional() })
      .describe(
        'Completes the task (runs decide_completion); criteria still unmet are recorded as accepted by the sender.'
      ),
    z
      .strictObject({ action: z.literal('cancel'), reason: z.string().min(1).optional() })
      .describe('Cancels the task and its unfinished children.'),
    z
      .strictObject({
        action: z.literal('reject_criterion'),
        criterion: z
          .string()
          .min(1)
          .describe("The criterion's id (c1, c2, ...) or its position (1, 2, ...)."),
        reason: z
          .string()
          .min(1)
          .max(2_000)
          .describe('Why it is not met: what the agent reads next (kept on the criterion).'),
      })
      .describe('A reporter or admin finds a met criterion unmet: it is unmet again.'),
    ApprovalControlSchema('approve').describe(
      'An approver lets tool calls waiting for approval run (each exactly once).'
    ),
    ApprovalControlSchema('reject').describe(
      'An approver refuses tool calls waiting for approval: they never run, and the model reads why.'
    ),
    z
      .strictObject({
        action: z.literal('set_budget'),
        budget: BudgetSchema.describe(
          'The limits to set; a limit not named keeps its value. A task waiting in awaiting-budget resumes.'
        ),
        reason: z.string().min(1).max(2_000).optional().describe('Kept in the audit timeline.'),
      })
      .describe("A reporter or admin sets or raises the task's budget."),
  ])
  .describe(
    'A participant completes or cancels the task, a reviewer rejects a criterion, an approver answers tool calls waiting for approval, or a reporter or admin sets the budget.'
  );
export type ControlPayload = z.infer<typeof ControlPayloadSchema>;
