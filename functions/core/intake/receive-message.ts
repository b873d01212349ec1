import type { Message } from '@a2a-js/sdk';
import { TaskClosedError } from '../errors.js';
import type { LoopDeps } from '../loop/deps.js';
import { claimParkToken } from '../loop/park-token.js';
import { emitTask, loadRecord, mutateRecord } from '../loop/records.js';
import { isTerminalState, readExtension, stateOf, withExtension } from '../task/a2a-task.js';
import { applyTaskEnvelope, findEnvelope, messageText, parseControl } from '../task/envelope.js';
import { cancelTask, requestCompletion } from './control.js';
import { createSubTaskFromCommand, parseSubTaskCommand } from './sub-task-command.js';
import type { Wake } from './wake.js';

export type Receipt =
  | { accepted: true; duplicate: boolean; wake: Wake }
  | { accepted: false; reason: string };

/** One row per message intake decided on: who, accepted or not, and why. */
export interface IntakeAudit {
  message_id: string;
  participant_id: string;
  accepted: boolean;
  reason: string | null;
  at: string;
}

const audit = (deps: LoopDeps, taskId: string, row: Omit<IntakeAudit, 'at'>) =>
  deps.store.putOnce<IntakeAudit>(taskId, `audit:${row.message_id}`, {
    ...row,
    at: deps.clock.now(),
  });

/**
 * A message for an existing task (A2A SendMessage with a task id). Intake accepts participants
 * only: a refused message is audited and wakes nothing. A task envelope changes the extension
 * (refused whole on any violation), a control envelope completes or cancels, `/sub-task` creates
 * a child; anything with text waits in the inbox, and a parked task is woken for it.
 */
export const receiveMessage = async (
  deps: LoopDeps,
  input: { taskId: string; message: Message; sender: string }
): Promise<Receipt> => {
  const { taskId, message, sender } = input;
  const record = await loadRecord(deps, taskId);
  if (isTerminalState(stateOf(record.task))) throw new TaskClosedError(taskId);
  const extension = readExtension(record.task);
  const participant = extension.participants.find((p) => p.id === sender);
  if (participant === undefined) {
    await audit(deps, taskId, {
      message_id: message.messageId,
      participant_id: sender,
      accepted: false,
      reason: 'not a participant',
    });
    return { accepted: false, reason: 'not a participant' };
  }

  const envelope = findEnvelope(message);
  if (envelope?.kind === 'control') {
    const control = parseControl(envelope);
    await audit(deps, taskId, {
      message_id: message.messageId,
      participant_id: sender,
      accepted: true,
      reason: null,
    });
    if (control.action === 'complete') {
      const wake = await requestCompletion(deps, {
        taskId,
        participantId: sender,
        reason: control.reason ?? null,
      });
      return { accepted: true, duplicate: false, wake };
    }
    const canceled = await cancelTask(deps, {
      taskId,
      requestedBy: sender,
      reason: control.reason,
    });
    return {
      accepted: true,
      duplicate: false,
      wake:
        canceled.token === null
          ? { action: 'cut', taskId, generation: canceled.generation }
          : { action: 'resume', token: canceled.token },
    };
  }
  if (envelope?.kind === 'task') {
    const changed = await mutateRecord(deps, taskId, (current) => ({
      ...current,
      task: withExtension(
        current.task,
        applyTaskEnvelope(readExtension(current.task), envelope.payload, sender)
      ),
    }));
    await emitTask(deps, changed, `envelope:${message.messageId}`);
  }

  const text = messageText(message);
  const subTask = parseSubTaskCommand(text);
  if (subTask !== undefined) {
    await createSubTaskFromCommand(deps, {
      parent: record,
      sender,
      description: subTask,
      messageId: message.messageId,
    });
    await audit(deps, taskId, {
      message_id: message.messageId,
      participant_id: sender,
      accepted: true,
      reason: null,
    });
    return { accepted: true, duplicate: false, wake: { action: 'none' } };
  }
  if (text.trim() === '') {
    await audit(deps, taskId, {
      message_id: message.messageId,
      participant_id: sender,
      accepted: true,
      reason: null,
    });
    return { accepted: true, duplicate: false, wake: { action: 'none' } };
  }
  const { duplicate } = await deps.store.enqueue(taskId, {
    kind: 'message',
    id: message.messageId,
    participantId: sender,
    source: participant.kind === 'agent' ? 'agent' : 'human',
    text,
  });
  await audit(deps, taskId, {
    message_id: message.messageId,
    participant_id: sender,
    accepted: true,
    reason: null,
  });
  const token = duplicate ? null : await claimParkToken(deps, taskId);
  return {
    accepted: true,
    duplicate,
    wake: token === null ? { action: 'none' } : { action: 'resume', token },
  };
};
