import type { Message } from '@a2a-js/sdk';
import { TaskClosedError } from '../errors.js';
import type { LoopDeps } from '../loop/deps.js';
import { withTokenClaimed } from '../loop/park-token.js';
import {
  changeOf,
  type Decision,
  decideAndCommit,
  decided,
  loadRecord,
  withRecord,
  withTaskEvent,
} from '../loop/records.js';
import type { ChildCreated } from '../ports/agent-directory.js';
import type { PushConfig } from '../ports/push-config-store.js';
import type { TaskRecord } from '../ports/task-store.js';
import { isTerminalState, readExtension, stateOf, withExtension } from '../task/a2a-task.js';
import { applyTaskEnvelope, findEnvelope, messageText, parseControl } from '../task/envelope.js';
import type { ControlPayload } from '../task/envelope.schema.js';
import { requirePermission } from '../task/permissions.js';
import { withApprovalAnswer } from './approval.js';
import { type AlongWith, cancelTask, requestCompletion, withAlong } from './control.js';
import { withCriteriaChangeForReview, withCriterionRejection } from './review.js';
import { AUDIT_TEXT_LIMIT, intakeAudit } from './start-task.js';
import { openSubTask, parseSubTaskCommand, withSubTaskOpened } from './sub-task-command.js';
import type { Wake } from './wake.js';

export type Receipt =
  /**
   * `seq`: the message's place in the inbox (0 when nothing was queued for the model). `record`:
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

/** A control that ends the task, each through its own operation after intake's decision. */
type EndingControl = Extract<ControlPayload, { action: 'complete' | 'cancel' }>;

const isEnding = (control: ControlPayload): control is EndingControl =>
  control.action === 'complete' || control.action === 'cancel';

type Step =
  | { kind: 'receipt'; receipt: Receipt }
  | { kind: 'control'; control: EndingControl; along: AlongWith };

const refused = (reason: string): Step => ({
  kind: 'receipt',
  receipt: { accepted: false, reason },
});

/** The receipt of a message whose change is committed: how the task learns of it. */
const acceptedReceipt = (record: TaskRecord, queuesText: boolean, seq: number): Receipt => {
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
export const receiveMessage = async (deps: LoopDeps, input: ReceiveInput): Promise<Receipt> => {
  const { taskId, message, sender } = input;
  const text = messageText(message);
  const envelope = findEnvelope(message);
  const subTask = parseSubTaskCommand(text);
  // The text waits in the inbox for the model, unless the message is a command.
  const queuesText = envelope?.kind !== 'control' && subTask === undefined && text.trim() !== '';
  let created: ChildCreated | undefined;
  // A review queues a harness note for the model: the sender's answer waits until it is read.
  let reviewed = false;
  let given = input.record;
  /** The task as the decision saw it: what the caller answers with (a receipt's `task`). */
  let seen: TaskRecord | undefined;
  // A message for the model is enqueued under its id, which the commit refuses when the id was
  // taken in before: its first decision assumes it new, so only a duplicate costs the id's read
  // (a second decision). Anything else acts before its commit (a control, a /sub-task's child)
  // and reads the id first.
  let assumeNew = queuesText && envelope === undefined;

  const { result: step, committed } = await decideAndCommit<[TaskRecord, number | undefined], Step>(
    deps,
    () => {
      const record = given ?? loadRecord(deps, taskId);
      const seenAt = assumeNew ? undefined : deps.store.inboxSeqOf(taskId, message.messageId);
      given = undefined;
      assumeNew = false;
      return Promise.all([record, seenAt]);
    },
    async ([record, seenAt]): Promise<Decision<Step>> => {
      seen = record;
      if (isTerminalState(stateOf(record.task))) throw new TaskClosedError(taskId);
      const now = deps.clock.now();
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
          result: refused('not a participant'),
          commit: {
            kind: 'guarded',
            taskId,
            unparked: false,
            audit: [audit(false, 'not a participant')],
          },
        };
      }
      if (seenAt !== undefined) {
        return {
          result: {
            kind: 'receipt',
            receipt: { accepted: true, duplicate: true, seq: seenAt, wake: { action: 'none' } },
          },
        };
      }
      const along: AlongWith = {
        audit: [audit(true, null)],
        pushConfigs: input.pushConfig === undefined ? [] : [input.pushConfig],
        seen: queuesText ? [] : [message.messageId],
      };
      if (envelope?.kind === 'control') {
        const control = parseControl(envelope);
        if (isEnding(control)) return { result: { kind: 'control', control, along } };
        // A review or an approval changes the task and wakes it, in this one commit (like a
        // task envelope); a refused one throws, and nothing is written.
        const answer =
          control.action === 'reject_criterion'
            ? withCriterionRejection(changeOf(record), {
                reviewer: sender,
                criterion: control.criterion,
                reason: control.reason,
                messageId: message.messageId,
                now,
              })
            : withApprovalAnswer(changeOf(record), {
                sender,
                verdict: control.action === 'approve' ? 'approved' : 'rejected',
                calls: control.calls,
                reason: control.reason ?? null,
                now,
              });
        reviewed = control.action === 'reject_criterion';
        return decided(record, withAlong(answer.change, along), {
          kind: 'receipt',
          receipt: { accepted: true, duplicate: false, seq: 0, wake: answer.wake },
        });
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
            return decided(record, withAlong(reviewed.change, along), {
              kind: 'receipt',
              receipt: { accepted: true, duplicate: false, seq: 0, wake: reviewed.wake },
            });
          }
        }
      }
      if (subTask !== undefined) {
        requirePermission(readExtension(record.task), sender, 'open_sub_task');
        created ??= await openSubTask(deps, {
          parent: record,
          sender,
          description: subTask,
          messageId: message.messageId,
        });
        change = withSubTaskOpened(change, created, { sender, description: subTask });
      }
      change = withAlong(change, along);
      if (queuesText) {
        change = {
          ...change,
          enqueue: [
            ...change.enqueue,
            {
              kind: 'message',
              id: message.messageId,
              participantId: sender,
              source: participant.kind === 'agent' ? 'agent' : 'human',
              text,
            },
          ],
        };
        // A parked task is woken for the message: its token is claimed in this commit.
        change = withTokenClaimed(change).change;
      }
      const receipt = (seq: number) => acceptedReceipt(record, queuesText, seq);
      if (change.record === record) {
        // Nothing of the task itself changes: the commit only checks the task may take the message
        // (open; and not parked, when a message waits for the model, so the park sees it).
        return {
          result: { kind: 'receipt', receipt: receipt(0) },
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
      return decided(record, change, { kind: 'receipt', receipt: receipt(0) });
    }
  );
  if (step.kind === 'control') return receiveControl(deps, input, step.control, step.along);
  const { receipt } = step;
  if (!receipt.accepted) return receipt;
  const record = committed?.record ?? seen;
  // The message is the last item its commit enqueued.
  const seq = committed?.enqueued.at(-1);
  return {
    ...receipt,
    ...(record === undefined ? {} : { record }),
    ...(!receipt.duplicate && (queuesText || reviewed) && seq !== undefined ? { seq } : {}),
  };
};

const receiveControl = async (
  deps: LoopDeps,
  input: ReceiveInput,
  control: EndingControl,
  along: AlongWith
): Promise<Receipt> => {
  const cancel = async (): Promise<Wake> => {
    const outcome = await cancelTask(deps, {
      taskId: input.taskId,
      requestedBy: input.sender,
      reason: control.reason,
      along,
    });
    return {
      action: 'ended',
      executions: outcome.canceled,
      remoteChildren: outcome.remoteChildren,
    };
  };
  const wake: Wake =
    control.action === 'complete'
      ? await requestCompletion(deps, {
          taskId: input.taskId,
          participantId: input.sender,
          reason: control.reason ?? null,
          along,
        })
      : await cancel();
  return { accepted: true, duplicate: false, seq: 0, wake };
};
