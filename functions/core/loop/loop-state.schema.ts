import * as z from 'zod';
import { APPROVER_ROLES } from '../ports/tool-runner.js';
import { BUDGET_LIMITS } from '../task/extension.schema.js';
import { ModelResponseSchema } from './model-response.schema.js';
import { EMPTY_USAGE, ReportedUsageSchema, TaskUsageSchema } from './usage.js';

/** An ancestor whose budget a task's calls draw on, and the limits it has. */
export const BudgetHolderSchema = z.strictObject({
  taskId: z.string().min(1),
  limits: z.array(z.enum(BUDGET_LIMITS)).min(1),
});
export type BudgetHolder = z.infer<typeof BudgetHolderSchema>;

export const PendingQuestionSchema = z.strictObject({
  participantId: z.string(),
  question: z.string(),
  options: z.array(z.string()),
  callId: z.string(),
});
export type PendingQuestion = z.infer<typeof PendingQuestionSchema>;

/** A participant's answer to a call waiting for approval, or the timeout's. */
export const ApprovalDecisionSchema = z.strictObject({
  verdict: z.enum(['approved', 'rejected', 'expired']),
  /** The participant who decided; null for an expiry. */
  by: z.string().nullable(),
  reason: z.string().nullable(),
  at: z.string(),
});
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

/** A call of the current turn that needs a participant's approval before it runs. */
export const PendingApprovalSchema = z.strictObject({
  callId: z.string(),
  tool: z.string(),
  /** The call's arguments as JSON, secrets masked: what the approvers are shown. */
  arguments: z.string(),
  approvers: z.array(z.enum(APPROVER_ROLES)),
  requestedAt: z.string(),
  /** When an unanswered request counts as rejected (ISO 8601). */
  deadline: z.string(),
  timeoutSeconds: z.int().min(1),
  decision: ApprovalDecisionSchema.nullable(),
  /**
   * Asked again because the call may or may not have run: the harness stopped while it was being
   * sent. Approving sends it again; rejecting leaves it as it is.
   */
  fateUnknown: z.boolean().optional(),
});
export type PendingApproval = z.infer<typeof PendingApprovalSchema>;

export const CompletionRequestSchema = z.strictObject({
  requestedBy: z.string(),
  reason: z.string().nullable(),
});

/**
 * Everything the loop must remember between states. It lives on the task record, never in a
 * Lambda's memory or a state payload, so renewal and restarts lose nothing.
 */
export const LoopStateSchema = z.strictObject({
  schemaVersion: z.literal(1),
  /** The execution generation (renewal starts the next one). */
  generation: z.int().min(1),
  /** Model turns taken so far. */
  turn: z.int().min(0),
  /** `turn` when the current generation began: renewal counts from here. */
  generationStartTurn: z.int().min(0),
  /** Tool calls the model has made so far, and how many when this generation began. */
  toolCalls: z.int().min(0),
  generationStartToolCalls: z.int().min(0),
  /** Something the model has not seen yet (a message, a child's result, a tool result). */
  needsModel: z.boolean(),
  /** Seq of the last transcript entry written. */
  historySeq: z.int().min(0),
  /** Seq of the last inbox item folded into the transcript. */
  inboxCursor: z.int().min(0),
  /** Transcript entries up to this seq are replaced by `summary`. */
  compactedThrough: z.int().min(0),
  summary: z.string().nullable(),
  /** Input tokens the model reported last turn and the transcript size then, for the estimate. */
  lastInputTokens: z.int().min(0).nullable(),
  lastRequestChars: z.int().min(0),
  /** Sections that survived the last compaction (`compaction.keep`); null before any. */
  keptSections: z.array(z.string()).nullable(),
  /** The participant of the last accepted message: intrinsics check admin rights against it. */
  actor: z.string().nullable(),
  pendingQuestion: PendingQuestionSchema.nullable(),
  /** Child results folded into the transcript since the model last ran. */
  unreadResults: z.int().min(0),
  /** The current turn's model response, recorded before routing so a retry reuses it. */
  response: ModelResponseSchema.nullable(),
  /** Tool calls of the current turn whose results are applied: a retried state skips them. */
  appliedCalls: z.array(z.string()),
  /**
   * Calls of the current turn to a tool that may be attempted only once (not idempotent) whose
   * attempt began: one found here without its result was interrupted, and is not run again.
   */
  attemptedCalls: z.array(z.string()).default([]),
  /**
   * Calls of the current turn that need a participant's approval, with the answer once given:
   * the call runs (approved) or gets a `tool.rejected` result only once every one is answered.
   */
  approvals: z.array(PendingApprovalSchema).default([]),
  /** Tokens used by every model call of the task so far. */
  usage: z.strictObject({
    inputTokens: z.int().min(0),
    cachedInputTokens: z.int().min(0),
    outputTokens: z.int().min(0),
  }),
  /** The order of the last change applied per child: older, redelivered changes are ignored. */
  childOrder: z.record(z.string(), z.int()),
  /**
   * Turns ended, in a row, with acceptance criteria unmet and the model told so; at the bound the
   * task parks for its reporter's review. A met criterion or a review starts the count again.
   */
  criteriaReminders: z.int().min(0).default(0),
  /** A participant's completion request waiting for `decide_completion`. */
  completionRequest: CompletionRequestSchema.nullable(),
  /** The task token of the parked execution; claimed (cleared) by whoever wakes it. */
  parkToken: z.string().nullable(),
  /**
   * The last token a waker claimed, kept after the claim: a waker that died between committing
   * its claim and sending the task success (a crash) leaves it here, and recovery sends it again.
   * A token whose execution moved on answers nobody, so a stale one is harmless.
   */
  claimedToken: z.string().nullable().default(null),
  /**
   * When the task was handed to its generation (created, cut, renewed, revived), while that
   * generation's execution has not written yet; null once it has. Whoever handed it over starts
   * the execution after its commit and may die first: the pending-start sweep starts every
   * generation pending for longer than its grace (`functions/service/pending-starts.ts`).
   */
  startPendingSince: z.string().nullable().default(null),
  /**
   * The parent on this harness the harness created this task for (null for any other task): the
   * server's own record of the link, which no envelope writes. A parent takes news of a child it
   * has no row for yet (the child's first change can overtake the row's commit) only from a child
   * whose record says the harness made it for that parent.
   */
  parentTaskId: z.string().nullable().default(null),
  /**
   * The ancestors on this harness whose budgets this task's model calls draw on (nearest first),
   * with the limits each has: set by the harness when it creates the task, and kept current by a
   * budget set on an ancestor. A call is made only once every one of them (and the task's own
   * budget) has given it its worst case (`reserve` commit).
   */
  budgetHolders: z.array(BudgetHolderSchema).default([]),
  /**
   * What each remote child's reported usage has been charged to the budgets this task draws on
   * so far, by child id: a remote agent's calls are counted after the fact, from what it reports,
   * and each report charges only what the last one did not.
   */
  remoteCharged: z.record(z.string(), TaskUsageSchema).default({}),
  /**
   * What the task's children last reported for their whole trees, summed (each child's report is
   * on its row, which is kept apart from the record with the rows): so a stream image of the
   * record, without its rows, still says what the tree below it has used, and the task reports it
   * up with its own ledger.
   */
  childrenUsage: ReportedUsageSchema.default({ usage: EMPTY_USAGE, unknown: [] }),
});
export type LoopState = z.infer<typeof LoopStateSchema>;

export const initialLoopState = (): LoopState => ({
  schemaVersion: 1,
  generation: 1,
  turn: 0,
  generationStartTurn: 0,
  toolCalls: 0,
  generationStartToolCalls: 0,
  needsModel: false,
  historySeq: 0,
  inboxCursor: 0,
  compactedThrough: 0,
  summary: null,
  lastInputTokens: null,
  lastRequestChars: 0,
  keptSections: null,
  actor: null,
  pendingQuestion: null,
  unreadResults: 0,
  response: null,
  appliedCalls: [],
  attemptedCalls: [],
  approvals: [],
  usage: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 },
  childOrder: {},
  criteriaReminders: 0,
  completionRequest: null,
  parkToken: null,
  claimedToken: null,
  startPendingSince: null,
  parentTaskId: null,
  budgetHolders: [],
  remoteCharged: {},
  childrenUsage: { usage: EMPTY_USAGE, unknown: [] },
});
