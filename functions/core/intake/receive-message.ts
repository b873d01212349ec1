import type { Message } from '@a2a-js/sdk';
import { TaskClosedError } from '../errors.js';
import type { LoopDeps } from '../loop/deps.js';
import { claimParkToken } from '../loop/park-token.js';
import { emitTask, loadRecord, mutateRecord } from '../loop/records.js';
import { isTerminalState, readExtension, stateOf, withExtension } from '../task/a2a-task.js';
import { applyTaskEnvelope, findEnvelope, messageText, parseControl } from '../task/envelope.js';
import type { ControlPayload } from '../task/envelope.schema.js';
import { cancelTask, requestCompletion } from './control.js';
import { createSubTaskFromCommand, parseSubTaskCommand } from './sub-task-command.js';
import type { Wake } from './wake.js';

export type Receipt =
  /** `seq`: the message's place in the inbox (0 when nothing was queued for the model). */
  | { accepted: true; duplicate: boolean; wake: Wake; seq: number }
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
  const participant = readExtension(record.task).participants.find((p) => p.id === sender);
  const decided = (accepted: boolean, reason: string | null) =>
    audit(deps, taskId, {
      message_id: message.messageId,
      participant_id: sender,
      accepted,
      reason,
    });
  if (participant === undefined) {
    await decided(false, 'not a participant');
    return { accepted: false, reason: 'not a participant' };
  }

  const envelope = findEnvelope(message);
  if (envelope?.kind === 'control') {
    const control = parseControl(envelope);
    await decided(true, null);
    return {
      accepted: true,
      duplicate: false,
      seq: 0,
      wake: await applyControl(deps, taskId, sender, control),
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
  }
  if (subTask !== undefined || text.trim() === '') {
    await decided(true, null);
    return { accepted: true, duplicate: false, seq: 0, wake: { action: 'none' } };
  }
  const { duplicate, seq } = await deps.store.enqueue(taskId, {
    kind: 'message',
    id: message.messageId,
    participantId: sender,
    source: participant.kind === 'agent' ? 'agent' : 'human',
    text,
  });
  await decided(true, null);
  const token = duplicate ? null : await claimParkToken(deps, taskId);
  return {
    accepted: true,
    duplicate,
    seq,
    wake: token === null ? { action: 'none' } : { action: 'resume', token },
  };
};

const applyControl = async (
  deps: LoopDeps,
  taskId: string,
  sender: string,
  control: ControlPayload
): Promise<Wake> => {
  if (control.action === 'complete') {
    return requestCompletion(deps, {
      taskId,
      participantId: sender,
      reason: control.reason ?? null,
    });
  }
  const { canceled } = await cancelTask(deps, {
    taskId,
    requestedBy: sender,
    reason: control.reason,
  });
  return { action: 'ended', executions: canceled };
};
