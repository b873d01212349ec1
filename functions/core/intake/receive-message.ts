import type { Message } from '@a2a-js/sdk';
import { TaskClosedError } from '../errors.js';
import type { LoopDeps } from '../loop/deps.js';
import { foldedOnClaim } from '../loop/drain.js';
import { withTokenClaimed } from '../loop/park-token.js';
import { changeOf, withRecord, withTaskEvent } from '../loop/records.js';
import type { PushConfig } from '../ports/push-config-store.js';
import type { TaskRecord } from '../ports/task-store.js';
import type { Wake } from '../ports/waker.js';
import { isTerminalState, readExtension, stateOf, withExtension } from '../task/a2a-task.js';
import { applyTaskEnvelope, findEnvelope, messageText, parseControl } from '../task/envelope.js';
import type { ControlPayload } from '../task/envelope.schema.js';
import { requirePermission } from '../task/permissions.js';
import { type Cascade, runCascade, widened } from '../unit-of-work/cascade.js';
import {
  answer,
  commitThen,
  type Facts,
  mapResult,
  type Need,
  type NoEffects,
  need,
  type Operation,
  type Outcome,
} from '../unit-of-work/operation.js';
import { withApprovalAnswer } from './approval.js';
import { type BudgetSpread, budgetSpreadsFrom, furtherSpreads } from './budget-spread.js';
import {
  type AlongWith,
  type Canceled,
  cancelOutcomeOf,
  childCancels,
  decideCancel,
  decideCompletionRequest,
  withAlong,
} from './control.js';
import { withCriteriaChangeForReview, withCriterionRejection } from './review.js';
import { withBudgetSet } from './set-budget.js';
import { AUDIT_TEXT_LIMIT, intakeAudit } from './start-task.js';
import { parseSubTaskCommand, subTaskRequest, withSubTaskOpened } from './sub-task-command.js';

export type Receipt =
  /**
   * `seq`: the message's place in the inbox (0 when it waits in none: a command, or a message
   * the claim of a parked task folded into the transcript at once). `record`:
   * the task as the message left it (absent after a control envelope).
   */
  | { accepted: true; duplicate: boolean; wake: Wake; seq: number; record?: TaskRecord }
  | { accepted: false; reason: string };

export interface ReceiveInput {
  taskId: string;
  message: Message;
  sender: string;
  /** The sender's push-notification config, stored only if the message is accepted. */
  pushConfig?: PushConfig | undefined;
  /** The task as the caller has just read it: the first decision is made on it (not re-read). */
  record?: TaskRecord | undefined;
}

/** A control that ends the task: decided as its own operation decides it, in intake's commit. */
type EndingControl = Extract<ControlPayload, { action: 'complete' | 'cancel' }>;

const isEnding = (control: ControlPayload): control is EndingControl =>
  control.action === 'complete' || control.action === 'cancel';

/** What intake decides: the receipt, or a cancel whose cascade to children follows. */
export type Step =
  /** `budgetSet`: the task as a budget set left it, whose descendants the set reaches next. */
  | { kind: 'receipt'; receipt: Receipt; budgetSet?: TaskRecord }
  | { kind: 'canceled'; canceled: Canceled };

const refused = (reason: string): Step => ({
  kind: 'receipt',
  receipt: { accepted: false, reason },
});

/**
 * The receipt of an accepted message, from the task as the message left it (`record`) and what
 * its commit enqueued: `queued` when the message's own seq is the receipt's (a message for the
 * model, a review's note: the last item the commit enqueued).
 */
const receiptOn =
  (receipt: Extract<Receipt, { accepted: true }>, queued: boolean) =>
  (record: TaskRecord, enqueued: readonly number[]): Step => {
    const seq = enqueued.at(-1);
    return {
      kind: 'receipt',
      receipt: {
        ...receipt,
        record,
        ...(!receipt.duplicate && queued && seq !== undefined ? { seq } : {}),
      },
    };
  };

const NO_WAKE: Wake = { action: 'none' };

/** The receipt of a message whose change is committed: how the task learns of it. */
const acceptedReceipt = (
  record: TaskRecord,
  queuesText: boolean,
  seq: number
): Extract<Receipt, { accepted: true }> => {
  if (queuesText) {
    const token = record.loop.parkToken;
    return {
      accepted: true,
      duplicate: false,
      seq,
      wake:
        token !== null
          ? { action: 'resume', token, taskId: record.task.id, generation: record.loop.generation }
          : {
              action: 'ensure-running',
              taskId: record.task.id,
              generation: record.loop.generation,
            },
    };
  }
  return { accepted: true, duplicate: false, seq, wake: { action: 'none' } };
};

/** What taking in a message may ask for: where its id was taken in before, the child it opens. */
export type ReceiveWants = { seenAt: 'read_message_seq'; child: 'create_child' };

/** A message as intake reads it, once, before deciding. */
export interface ParsedMessage {
  text: string;
  envelope: ReturnType<typeof findEnvelope>;
  subTask: string | undefined;
  /** The text waits in the inbox for the model, unless the message is a command. */
  queuesText: boolean;
}

export const parseMessage = (message: Message): ParsedMessage => {
  const text = messageText(message);
  const envelope = findEnvelope(message);
  const subTask = parseSubTaskCommand(text);
  const queuesText = envelope?.kind !== 'control' && subTask === undefined && text.trim() !== '';
  return { text, envelope, subTask, queuesText };
};

/**
 * A message for the model is enqueued under its id, which the commit refuses when the id was
 * taken in before: its first decision assumes it new, so only a duplicate costs the id's read (a
 * second decision), and so does a decision after a refusal the store could not clear of the id
 * (one it says was the task's alone, a lost race, keeps the assumption). Anything else acts
 * before its commit (a control, a /sub-task's child) and reads the id first.
 */
const assumedNew = (parsed: ParsedMessage, refusedForIds: number): boolean =>
  parsed.queuesText && parsed.envelope === undefined && refusedForIds === 0;

/** The intake's decision on one message (pure); `record` in its result is the task as decided on. */
export const decideReceipt =
  (input: ReceiveInput, parsed: ParsedMessage, agentId: string) =>
  (facts: Facts<ReceiveWants, never>): Outcome<Step, ReceiveWants, never> => {
    const { record, observed, refusedForIds, now } = facts;
    const { taskId, message, sender } = input;
    const { text, envelope, subTask, queuesText } = parsed;
    if (isTerminalState(stateOf(record.task))) throw new TaskClosedError(taskId);
    const audit = (accepted: boolean, reason: string | null) =>
      intakeAudit(
        message.messageId,
        accepted
          ? { participant_id: sender, accepted, reason, text: text.slice(0, AUDIT_TEXT_LIMIT) }
          : { participant_id: sender, accepted, reason },
        now
      );
    const participant = readExtension(record.task).participants.find((p) => p.id === sender);
    if (participant === undefined) {
      return {
        kind: 'done',
        result: refused('not a participant'),
        commit: {
          kind: 'guarded',
          taskId,
          unparked: false,
          audit: [audit(false, 'not a participant')],
        },
      };
    }
    if (!assumedNew(parsed, refusedForIds)) {
      const { seenAt } = observed;
      if (seenAt === undefined) {
        const effect = { kind: 'read_message_seq', taskId, messageId: message.messageId } as const;
        return need<ReceiveWants>({ key: 'seenAt', effect });
      }
      if (seenAt !== null) {
        const duplicate = { accepted: true, duplicate: true, seq: seenAt, wake: NO_WAKE } as const;
        const resultOn = receiptOn(duplicate, false);
        return answer(resultOn(record, []), resultOn);
      }
    }
    const along: AlongWith = {
      audit: [audit(true, null)],
      pushConfigs: input.pushConfig === undefined ? [] : [input.pushConfig],
      seen: queuesText ? [] : [message.messageId],
    };
    const receiptWith = (wake: Wake, queued: boolean) =>
      receiptOn({ accepted: true, duplicate: false, seq: 0, wake }, queued);
    if (envelope?.kind === 'control') {
      const control = parseControl(envelope);
      if (isEnding(control)) {
        return endingControl({ ...facts, observed: {} }, { taskId, sender, control, along });
      }
      // A review, an approval or a budget changes the task and wakes it, in this one commit
      // (like a task envelope); a refused one throws, and nothing is written.
      const answered =
        control.action === 'reject_criterion'
          ? withCriterionRejection(changeOf(record), {
              reviewer: sender,
              criterion: control.criterion,
              reason: control.reason,
              messageId: message.messageId,
              now,
            })
          : control.action === 'set_budget'
            ? withBudgetSet(changeOf(record), { sender, budget: control.budget })
            : withApprovalAnswer(changeOf(record), {
                sender,
                verdict: control.action === 'approve' ? 'approved' : 'rejected',
                calls: control.calls,
                reason: control.reason ?? null,
                now,
              });
      const receiptOnRecord = receiptWith(answered.wake, control.action === 'reject_criterion');
      const resultOn =
        control.action === 'set_budget'
          ? (committed: TaskRecord, enqueued: readonly number[]): Step => {
              const step = receiptOnRecord(committed, enqueued);
              return step.kind === 'receipt' ? { ...step, budgetSet: committed } : step;
            }
          : receiptOnRecord;
      return commitThen(record, withAlong(answered.change, along), resultOn(record, []), resultOn);
    }

    let change = changeOf(record);
    if (envelope?.kind === 'task') {
      change = withTaskEvent(
        withRecord(change, (current) => ({
          ...current,
          task: withExtension(
            current.task,
            applyTaskEnvelope(readExtension(current.task), envelope.payload, sender)
          ),
        }))
      );
      if (!queuesText) {
        const reviewed = withCriteriaChangeForReview(change, record, {
          sender,
          messageId: message.messageId,
        });
        if (reviewed !== undefined) {
          const resultOn = receiptWith(reviewed.wake, false);
          return commitThen(
            record,
            withAlong(reviewed.change, along),
            resultOn(record, []),
            resultOn
          );
        }
      }
    }
    if (subTask !== undefined) {
      requirePermission(readExtension(record.task), sender, 'open_sub_task');
      const { child } = observed;
      if (child === undefined) {
        const request = subTaskRequest({
          parent: record,
          sender,
          description: subTask,
          messageId: message.messageId,
          agentId,
        });
        return need<ReceiveWants>({ key: 'child', effect: { kind: 'create_child', request } });
      }
      change = withSubTaskOpened(change, child, {
        sender,
        description: subTask,
        message: {
          id: message.messageId,
          text,
          source: participant.kind === 'agent' ? 'agent' : 'human',
        },
      });
    }
    change = withAlong(change, along);
    if (queuesText) {
      const item = {
        kind: 'message',
        id: message.messageId,
        participantId: sender,
        source: participant.kind === 'agent' ? 'agent' : 'human',
        text,
      } as const;
      // A parked task's claim folds the message into the transcript itself when the drain it
      // wakes would do just that (its id then only seen); otherwise the message waits in the inbox.
      const folded = foldedOnClaim(change, item, agentId, now);
      change =
        folded === undefined
          ? { ...change, enqueue: [...change.enqueue, item] }
          : { ...folded, seen: [...folded.seen, item.id] };
      // A parked task is woken for the message: its token is claimed in this commit.
      change = withTokenClaimed(change).change;
    }
    const resultOn = receiptOn(acceptedReceipt(record, queuesText, 0), queuesText);
    if (change.record === record) {
      // Nothing of the task itself changes: the commit only checks the task may take the message
      // (open; and not parked, when a message waits for the model, so the park sees it).
      return {
        kind: 'done',
        result: resultOn(record, []),
        resultOn,
        commit: {
          kind: 'guarded',
          taskId,
          // Only a message for the model needs the task unparked; a /sub-task's note does not
          // wake it, and a parked parent would otherwise refuse the commit on every retry.
          unparked: queuesText,
          enqueue: change.enqueue,
          seen: change.seen,
          audit: change.audit,
          pushConfigs: change.pushConfigs,
        },
      };
    }
    return commitThen(record, change, resultOn(record, []), resultOn);
  };

/**
 * A message for an existing task (A2A SendMessage with a task id), taken in with one commit:
 * the extension change of a task envelope, the row and note of a `/sub-task`, the text waiting
 * in the inbox, the claim of a parked task's token, the audit row and an inline push config are
 * all written, or none is. Intake accepts participants only: a refused message is audited and
 * changes nothing else. A message id seen before is a duplicate and changes nothing. A control
 * envelope completes or cancels (with its audit row and push config in that commit), rejects a
 * met acceptance criterion (a reviewer's finding), or approves or rejects tool calls waiting for
 * approval (an approver's answer), each taken in with the rest in the one commit.
 */
export function receiveMessage(deps: LoopDeps, input: ReceiveInput): Promise<Receipt> {
  const { taskId, message } = input;
  const parsed = parseMessage(message);
  const receipt: Operation<Step, ReceiveWants> = {
    taskId,
    first: input.record,
    readsBesideRecord: (refusedForIds): Need<ReceiveWants>[] =>
      assumedNew(parsed, refusedForIds)
        ? []
        : [
            {
              key: 'seenAt',
              effect: { kind: 'read_message_seq', taskId, messageId: message.messageId },
            },
          ],
    decide: decideReceipt(input, parsed, deps.config.agentId),
  };
  return runCascade(deps, receipt, INTAKE_CASCADE);
}

/** What the intake cascade runs on other tasks: a cancel's, or a budget set's. */
type Cascaded = Canceled | BudgetSpread;

const isSpread = (cascaded: Cascaded): cascaded is BudgetSpread =>
  cascaded !== undefined && 'holder' in cascaded;

/**
 * A cancel taken in cascades to the task's children, a budget set to its descendants (each
 * woken by its own operation); anything else is its receipt.
 */
const INTAKE_CASCADE: Cascade<Step, Cascaded, Receipt> = {
  fromFirst: (step) =>
    step.kind === 'canceled'
      ? childCancels(step.canceled).map(widened<Canceled, Cascaded>)
      : step.budgetSet === undefined
        ? []
        : budgetSpreadsFrom(step.budgetSet).map(widened<BudgetSpread, Cascaded>),
  fromCascaded: (cascaded) =>
    isSpread(cascaded)
      ? furtherSpreads(cascaded).map(widened<BudgetSpread, Cascaded>)
      : childCancels(cascaded).map(widened<Canceled, Cascaded>),
  wakeOf: (cascaded) => (isSpread(cascaded) ? cascaded.wake : NO_WAKE),
  conclude: (step, cascaded) => {
    if (step.kind === 'receipt') return step.receipt;
    const canceled = cascaded.filter((one): one is Canceled => !isSpread(one));
    const { canceled: executions, remoteChildren } = cancelOutcomeOf([step.canceled, ...canceled]);
    return {
      accepted: true,
      duplicate: false,
      seq: 0,
      wake: { action: 'ended', executions, remoteChildren },
    };
  },
  wakes: (receipt) => (receipt.accepted ? receipt.wake : NO_WAKE),
};

/**
 * A completion request or a cancel, decided by their own decisions on the record intake read,
 * with intake's audit row and push config in their commit.
 */
const endingControl = (
  facts: Facts<NoEffects, never>,
  options: { taskId: string; sender: string; control: EndingControl; along: AlongWith }
): Outcome<Step, NoEffects, never> => {
  const { taskId, sender, control, along } = options;
  if (control.action === 'complete') {
    const request = { taskId, participantId: sender, reason: control.reason ?? null, along };
    return mapResult(
      decideCompletionRequest(request)(facts),
      (wake): Step => ({
        kind: 'receipt',
        receipt: { accepted: true, duplicate: false, seq: 0, wake },
      })
    );
  }
  const request = { by: { participantId: sender }, reason: control.reason, along };
  return mapResult(
    decideCancel(taskId, request)(facts),
    (canceled): Step => ({ kind: 'canceled', canceled })
  );
};
