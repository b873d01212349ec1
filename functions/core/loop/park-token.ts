import { type Change, withLoop } from './records.js';

/**
 * Claims the parked execution's task token, if there is one: the change clears it, and the
 * commit is conditioned on the task as read, so of several wakers (a message, a child's news, a
 * completion request, the park state itself) exactly one gets the token and sends the task
 * success.
 */
export const withTokenClaimed = (change: Change): { change: Change; token: string | null } => {
  const token = change.record.loop.parkToken;
  if (token === null) return { change, token };
  return { change: withLoop(change, (loop) => ({ ...loop, parkToken: null })), token };
};
