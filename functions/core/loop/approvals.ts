import { TaskState } from '@a2a-js/sdk';
import { REDACTED, redactSecrets } from '../intake/redact.js';
import type { ModelToolCall } from '../ports/model.js';
import type { ToolApproval } from '../ports/tool-runner.js';
import { stateOf, subStateOf } from '../task/a2a-task.js';
import { errorResultText } from '../tools/tool.js';
import type { ApprovalDecision, LoopState, PendingApproval } from './loop-state.schema.js';
import { agentMessage } from './messages.js';
import { type Change, statusMetadataOf, withLoop, withStatusChange } from './records.js';

/**
 * A participant's approval before a call that can do harm (pure). A call whose tool needs one is
 * not run: it is recorded in `loop.approvals`, the task parks `awaiting-approval` until every such
 * call of the turn is answered (or its deadline passes, which is a rejection), then each runs
 * once through the run-once path or gets a `tool.rejected` result.
 */

/** Calls of the current turn still waiting for an answer. */
export const awaitingApproval = (loop: LoopState): PendingApproval[] =>
  loop.approvals.filter(
    (approval) => approval.decision === null && !loop.appliedCalls.includes(approval.callId)
  );

export const approvalOf = (loop: LoopState, callId: string): PendingApproval | undefined =>
  loop.approvals.find((approval) => approval.callId === callId);

/** Whether an earlier call of the turn still waits for approval: calls apply in order. */
export const heldBehindApproval = (loop: LoopState, callId: string): boolean => {
  const calls = loop.response?.toolCalls ?? [];
  const index = calls.findIndex((call) => call.id === callId);
  return calls
    .slice(0, Math.max(0, index))
    .some(
      (call) => !loop.appliedCalls.includes(call.id) && approvalOf(loop, call.id)?.decision === null
    );
};

/** The key of an approval's audit record: turns count across generations, so `turn` is unique. */
export const approvalAuditKey = (
  turn: number,
  callId: string,
  event: 'requested' | 'decided' | 'asked_again' | 'decided_again'
) => `approval:${turn}:${callId}:${event}`;

/**
 * Who is asked, and for how long, about a call that may run only once and whose fate a crash left
 * unknown, when its tool names no approvers of its own: those who may complete or cancel the task.
 */
export const FATE_UNKNOWN_APPROVAL: ToolApproval = {
  approvers: ['reporter', 'admin'],
  timeoutSeconds: 86_400,
};

/** What approvers are told of a call whose fate is unknown. */
export const FATE_UNKNOWN_TEXT =
  'this call may or may not have run (the harness stopped while it was being sent): approve to send it again, reject to leave it';

/**
 * A once-only call whose attempt was committed but whose result never was (the step died while
 * the call was being sent): the task does not guess. The call goes back to its approvers (the
 * tool's, or those of `FATE_UNKNOWN_APPROVAL`) as waiting, its attempt cleared so an approval
 * sends it again through the run-once path; a rejection leaves it (pure).
 */
export const withFateUnknown = (change: Change, request: ApprovalAsked): Change => {
  const { call } = request;
  const cleared = withLoop(change, (loop) => ({
    ...loop,
    attemptedCalls: loop.attemptedCalls.filter((id) => id !== call.id),
    approvals: loop.approvals.filter((existing) => existing.callId !== call.id),
  }));
  return withApprovalAsked(cleared, request, true);
};

/** Names whose value is a credential, whatever the schema says. */
const SECRET_NAME =
  /pass(word|phrase)?|secret|token|api[-_]?key|credential|authorization|private[-_]?key/i;

type Schema = Record<string, unknown> | undefined;

const propertySchema = (schema: Schema, key: string): Schema => {
  const properties = schema?.properties as Record<string, Schema> | undefined;
  return properties?.[key];
};

/** A property the schema marks as a secret (`writeOnly`, `format: password`). */
const secretBySchema = (schema: Schema): boolean =>
  schema?.writeOnly === true || schema?.format === 'password';

const masked = (value: unknown, schema: Schema): unknown => {
  if (typeof value === 'string') return redactSecrets(value);
  if (Array.isArray(value)) return value.map((item) => masked(item, schema?.items as Schema));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => {
      const itemSchema = propertySchema(schema, key);
      return [
        key,
        SECRET_NAME.test(key) || secretBySchema(itemSchema) ? REDACTED : masked(item, itemSchema),
      ];
    })
  );
};

/**
 * A call's arguments as approvers are shown them (and the audit keeps them): values under a
 * credential's name or a property the tool's JSON Schema marks `writeOnly` or `format: password`
 * masked whole, and every recognised secret in other strings masked (as intake masks messages).
 */
export const maskedArguments = (args: unknown, parameters: Record<string, unknown>): string =>
  JSON.stringify(masked(args, parameters));

/**
 * A call's arguments as the model wrote them (JSON text), masked as `maskedArguments` masks them
 * when the tool's schema is not at hand (the audit timeline's reading): credentials by name and
 * by shape. Text that is not JSON is masked by shape alone.
 */
export const maskedArgumentsText = (text: string): string => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return redactSecrets(text);
  }
  return maskedArguments(parsed, {});
};

/** A call to ask approval for: on which turn, with what arguments (masked), from whom. */
export interface ApprovalAsked {
  turn: number;
  call: ModelToolCall;
  /** The tool's approvers and deadline; null for a tool that names none (`FATE_UNKNOWN_APPROVAL`). */
  approval: ToolApproval | null;
  arguments: string;
  now: string;
}

/** The call recorded as waiting for approval, with its audit record (pure). */
const withApprovalAsked = (
  change: Change,
  request: ApprovalAsked,
  fateUnknown: boolean
): Change => {
  const { call, now } = request;
  const approval = request.approval ?? FATE_UNKNOWN_APPROVAL;
  const entry: PendingApproval = {
    callId: call.id,
    tool: call.name,
    arguments: request.arguments,
    approvers: [...approval.approvers],
    requestedAt: now,
    deadline: new Date(Date.parse(now) + approval.timeoutSeconds * 1000).toISOString(),
    timeoutSeconds: approval.timeoutSeconds,
    decision: null,
    ...(fateUnknown ? { fateUnknown } : {}),
  };
  const asked = withLoop(change, (loop) => ({ ...loop, approvals: [...loop.approvals, entry] }));
  return {
    ...asked,
    audit: [
      ...asked.audit,
      {
        key: approvalAuditKey(request.turn, call.id, fateUnknown ? 'asked_again' : 'requested'),
        value: {
          call_id: call.id,
          tool: call.name,
          arguments: entry.arguments,
          approvers: entry.approvers,
          deadline: entry.deadline,
          ...(fateUnknown ? { fate_unknown: true } : {}),
          at: now,
        },
      },
    ],
  };
};

/** A call whose tool needs approval, recorded as waiting for it (pure). */
export const withApprovalRequested = (
  change: Change,
  request: ApprovalAsked & { approval: ToolApproval }
): Change => withApprovalAsked(change, request, false);

/**
 * A task parked for approval whose status lists calls answered since: it lists only those still
 * waiting, so a client that approves what the status names is never told they are not pending.
 */
const withWaitingRelisted = (change: Change, now: string): Change => {
  const { task, loop } = change.record;
  const message = task.status?.message;
  const waiting = awaitingApproval(loop);
  if (
    message === undefined ||
    waiting.length === 0 ||
    stateOf(task) !== TaskState.TASK_STATE_INPUT_REQUIRED ||
    subStateOf(task) !== 'awaiting-approval'
  ) {
    return change;
  }
  const relisted = agentMessage({
    messageId: message.messageId,
    taskId: task.id,
    contextId: task.contextId,
    text: approvalStatusText(waiting),
  });
  const next = withStatusChange(
    change,
    {
      state: TaskState.TASK_STATE_INPUT_REQUIRED,
      subState: 'awaiting-approval',
      message: relisted,
    },
    now
  );
  // The same state again is no event by itself; the calls a client may still answer are news to
  // whoever follows the task, so they are told.
  const { status } = next.record.task;
  const metadata = statusMetadataOf(next.record.task);
  return {
    ...next,
    events: [
      ...next.events,
      {
        kind: 'status_update',
        statusUpdate: { taskId: task.id, contextId: task.contextId, status, metadata },
      },
    ],
  };
};

/** Each named call's answer recorded, with an audit record per call (pure). */
export const withApprovalsDecided = (
  change: Change,
  callIds: readonly string[],
  decision: ApprovalDecision
): Change => {
  const { loop } = change.record;
  const decided = loop.approvals.filter((approval) => callIds.includes(approval.callId));
  const next = withLoop(change, (current) => ({
    ...current,
    approvals: current.approvals.map((approval) =>
      callIds.includes(approval.callId) ? { ...approval, decision } : approval
    ),
  }));
  return {
    ...withWaitingRelisted(next, decision.at),
    audit: [
      ...next.audit,
      ...decided.map((approval) => ({
        key: approvalAuditKey(
          loop.turn,
          approval.callId,
          approval.fateUnknown === true ? 'decided_again' : 'decided'
        ),
        value: {
          call_id: approval.callId,
          tool: approval.tool,
          arguments: approval.arguments,
          verdict: decision.verdict,
          by: decision.by,
          reason: decision.reason,
          requested_at: approval.requestedAt,
          at: decision.at,
        },
      })),
    ],
  };
};

/**
 * What settles calls still waiting without a participant's answer (pure): a deadline passed is a
 * rejection (`expired`); a participant's request to complete the task rejects them all, since the
 * turn they belong to will not go on.
 */
export const withApprovalsSettled = (change: Change, now: string): Change => {
  const { loop } = change.record;
  const waiting = awaitingApproval(loop);
  if (waiting.length === 0) return change;
  const request = loop.completionRequest;
  if (request !== null) {
    return withApprovalsDecided(
      change,
      waiting.map((approval) => approval.callId),
      {
        verdict: 'rejected',
        by: request.requestedBy,
        reason: 'the task was completed before the call was approved',
        at: now,
      }
    );
  }
  let settled = change;
  for (const approval of waiting) {
    if (Date.parse(approval.deadline) > Date.parse(now)) continue;
    settled = withApprovalsDecided(settled, [approval.callId], {
      verdict: 'expired',
      by: null,
      reason: `no approver answered within ${approval.timeoutSeconds} s`,
      at: now,
    });
  }
  return settled;
};

/** Whole seconds until the earliest deadline of the calls waiting (at least 1). */
export const secondsToDeadline = (waiting: readonly PendingApproval[], now: string): number => {
  const earliest = Math.min(...waiting.map((approval) => Date.parse(approval.deadline)));
  return Math.max(1, Math.ceil((earliest - Date.parse(now)) / 1000));
};

/**
 * The status message of a task awaiting approval: each call (tool, masked arguments, who may
 * approve), how to answer and when the silence becomes a rejection. The last line is the closed
 * set of answers, as a question's is.
 */
export const approvalStatusText = (waiting: readonly PendingApproval[]): string => {
  const count = waiting.length === 1 ? 'this tool call' : `these ${waiting.length} tool calls`;
  const earliest = waiting
    .map((approval) => approval.deadline)
    .sort()
    .at(0);
  return [
    `Approval needed before ${count} can run:`,
    ...waiting.map(
      (approval) =>
        `- ${approval.callId}: ${approval.tool} ${approval.arguments} (approvers: ${approval.approvers.join(', ')})${approval.fateUnknown === true ? `: ${FATE_UNKNOWN_TEXT}` : ''}`
    ),
    `Answer with a control envelope {"action":"approve"} or {"action":"reject","reason":"…"} ("calls" names some of them); unanswered by ${earliest}, a call is rejected.`,
    'Options: approve, reject',
  ].join('\n');
};

/** The result the model reads for a call that was not approved: it did not run. */
export const rejectedResultText = (approval: PendingApproval): string => {
  const { decision } = approval;
  const why =
    decision?.verdict === 'expired'
      ? (decision.reason ?? 'the approval timed out')
      : `${decision?.by ?? 'an approver'} rejected it${decision?.reason ? `: ${decision.reason}` : ''}`;
  if (approval.fateUnknown === true) {
    return errorResultText(
      'tool.rejected',
      `${approval.tool} may or may not have run (the harness stopped while it was being sent), and is not sent again: ${why}`
    );
  }
  return errorResultText('tool.rejected', `${approval.tool} did not run: ${why}`);
};
