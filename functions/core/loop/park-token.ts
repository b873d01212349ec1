import type { TaskRecord } from '../ports/task-store.js';
import { type Change, withLoop } from './records.js';

/**
 * Claims the parked execution's task token, if there is one: the change clears it, and the
 * commit is conditioned on the task as read, so of several wakers (a message, a child's news, a
 * completion request, the park state itself) exactly one gets the token and sends the task
 * success. The claimed token stays on the record (`claimedToken`) until the resumed execution's
 * first write (`withExecutionArrived`), so a waker that dies before it sends the success loses no wake:
 * recovery sends it (`lostWakeOf`).
 */
export const withTokenClaimed = (change: Change): { change: Change; token: string | null } => {
  const token = change.record.loop.parkToken;
  if (token === null) return { change, token };
  return {
    change: withLoop(change, (loop) => ({ ...loop, parkToken: null, claimedToken: token })),
    token,
  };
};

/**
 * The execution a claim woke, or a generation's start began, is here: its first write drops the
 * claimed token (so it is not carried, and paid for, by every write of the record after) and the
 * pending start (so the pending-start sweep leaves the generation alone).
 */
export const withExecutionArrived = (change: Change): Change => {
  const { claimedToken, startPendingSince } = change.record.loop;
  if (claimedToken === null && startPendingSince === null) return change;
  return withLoop(change, (loop) => ({ ...loop, claimedToken: null, startPendingSince: null }));
};

/**
 * After a crash: the wake a task may have lost. A task that is not parked (no token on its
 * record) but whose last claimed token is there may have been claimed by a waker that died before
 * sending the success; sending it again resumes the execution still parked on it, and is answered
 * "nobody's" when the execution had moved on. Undefined when there is nothing to resend.
 */
export const lostWakeOf = (
  record: TaskRecord
): { action: 'resume'; token: string; taskId: string; generation: number } | undefined => {
  const { parkToken, claimedToken, generation } = record.loop;
  if (parkToken !== null || claimedToken === null) return undefined;
  return { action: 'resume', token: claimedToken, taskId: record.task.id, generation };
};
