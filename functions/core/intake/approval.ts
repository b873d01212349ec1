import { ApprovalNotAllowedError, ApprovalNotPendingError } from '../errors.js';
import { awaitingApproval, withApprovalsDecided } from '../loop/approvals.js';
import type { PendingApproval } from '../loop/loop-state.schema.js';
import type { Change } from '../loop/records.js';
import type { Wake } from '../ports/waker.js';
import { readExtension } from '../task/a2a-task.js';
import type { Participant } from '../task/extension.schema.js';
import { wakingTheTask } from './wake.js';

export interface ApprovalAnswer {
  /** The participant answering. */
  sender: string;
  verdict: 'approved' | 'rejected';
  /** The call ids answered; undefined: every call waiting. */
  calls: readonly string[] | undefined;
  reason: string | null;
  now: string;
}

/** Whether `participant` may answer for a call: its role is an approver, an assignee only if human. */
const mayDecide = (participant: Participant | undefined, approval: PendingApproval): boolean =>
  participant !== undefined &&
  participant.role !== 'watcher' &&
  approval.approvers.includes(participant.role) &&
  (participant.role !== 'assignee' || participant.kind === 'human');

/**
 * A participant approves or rejects calls waiting for approval (pure): each named call (all that
 * wait, when none is named) gets the answer, with an audit record naming who gave it; the task is
 * woken only once no call of its turn is left waiting, so several calls may be answered together
 * or one by one. Refused whole, with nothing applied and the task left parked: no call waiting or
 * one named that does not wait (`approval.not_pending`), a deadline passed (the timeout answers),
 * or a sender whose role may not decide one of them (`approval.not_allowed`).
 */
export const withApprovalAnswer = (
  change: Change,
  answer: ApprovalAnswer
): { change: Change; wake: Wake } => {
  const { record } = change;
  const waiting = awaitingApproval(record.loop);
  if (waiting.length === 0) {
    throw new ApprovalNotPendingError(`no tool call of ${record.task.id} waits for approval`);
  }
  const named = answer.calls ?? waiting.map((approval) => approval.callId);
  const chosen = named.map((callId) => {
    const approval = waiting.find((candidate) => candidate.callId === callId);
    if (approval === undefined) {
      const ids = waiting.map((candidate) => candidate.callId).join(', ');
      throw new ApprovalNotPendingError(
        `tool call ${JSON.stringify(callId)} does not wait for approval; waiting: ${ids}`
      );
    }
    return approval;
  });
  for (const approval of chosen) {
    if (Date.parse(approval.deadline) <= Date.parse(answer.now)) {
      throw new ApprovalNotPendingError(
        `the approval of ${approval.callId} (${approval.tool}) timed out at ${approval.deadline}: it is rejected`
      );
    }
  }
  const participant = readExtension(record.task).participants.find((p) => p.id === answer.sender);
  const refused = chosen.find((approval) => !mayDecide(participant, approval));
  if (refused !== undefined) {
    const who =
      participant === undefined
        ? 'not a participant'
        : `a${participant.role === 'admin' || participant.role === 'assignee' ? 'n' : ''} ${participant.role}${participant.role === 'assignee' && participant.kind !== 'human' ? ' (an agent)' : ''}`;
    throw new ApprovalNotAllowedError(
      `${answer.sender} is ${who}: ${refused.tool} (${refused.callId}) may be approved or rejected by its ${refused.approvers.join(', ')}${refused.approvers.includes('assignee') ? ' (a human assignee)' : ''}`
    );
  }
  const decided = withApprovalsDecided(
    change,
    chosen.map((approval) => approval.callId),
    { verdict: answer.verdict, by: answer.sender, reason: answer.reason, at: answer.now }
  );
  if (awaitingApproval(decided.record.loop).length > 0) {
    return { change: decided, wake: { action: 'none' } };
  }
  return wakingTheTask(decided);
};
