import { isTerminalState, stateOf } from '../task/a2a-task.js';
import type { LoopDeps } from './deps.js';
import { hasUnreadWork } from './finish.js';
import { claimParkToken } from './park-token.js';
import { mutateRecord } from './records.js';
import type { TurnRef } from './route.schema.js';

export interface ParkOutcome {
  /** Work arrived while parking: the caller must resume the execution with this token now. */
  wakeNow: boolean;
}

/**
 * Stores the parked execution's task token on the task (a conditional write), then looks again
 * for work that raced in while the turn was ending — a message, a child's result, a completion
 * request. If there is some, the park claims its own token back and the execution resumes at
 * once, so nothing waits on a token nobody will claim.
 */
export const park = async (deps: LoopDeps, ref: TurnRef, token: string): Promise<ParkOutcome> => {
  const record = await mutateRecord(deps, ref.taskId, (current) => {
    if (current.loop.generation !== ref.generation || isTerminalState(stateOf(current.task))) {
      return undefined;
    }
    return { ...current, loop: { ...current.loop, parkToken: token } };
  });
  if (record.loop.parkToken !== token) return { wakeNow: true };
  const pending =
    record.loop.completionRequest !== null ||
    (record.loop.pendingQuestion === null && (await hasUnreadWork(deps, record))) ||
    (record.loop.pendingQuestion !== null &&
      (await deps.store.readInbox(ref.taskId, record.loop.inboxCursor)).length > 0);
  if (!pending) return { wakeNow: false };
  return { wakeNow: (await claimParkToken(deps, ref.taskId)) === token };
};
