import { isTerminalState, stateOf } from '../task/a2a-task.js';
import { resultOf } from '../unit-of-work/interpreter.js';
import {
  answer,
  checkpoint,
  commitThen,
  type Facts,
  need,
  type Operation,
  type Outcome,
} from '../unit-of-work/operation.js';
import type { LoopDeps } from './deps.js';
import { withTokenClaimed } from './park-token.js';
import { changeOf, withLoop } from './records.js';
import type { ParkDecidedOn, TurnRef } from './route.schema.js';
import { hasWaitingWork } from './waiting-work.js';

export interface ParkOutcome {
  /** Work arrived while parking: the caller must resume the execution with this token now. */
  wakeNow: boolean;
}

type ParkWants = { inbox: 'read_inbox' };
/** The checkpoint a park reaches: its token is on the task. */
type TokenStored = 'token_stored';

/**
 * The park's decision (pure): store the token (a checkpoint, unless a retried park state finds it
 * stored), then, on the inbox read after it, claim the token back if work waits.
 */
export const decidePark =
  (ref: TurnRef, token: string) =>
  ({
    record,
    observed,
    reached,
  }: Facts<ParkWants, TokenStored>): Outcome<ParkOutcome, ParkWants, TokenStored> => {
    if (reached === undefined) {
      // A task that ended or moved on meanwhile: the execution resumes and its turn sees why.
      if (record.loop.generation !== ref.generation || isTerminalState(stateOf(record.task))) {
        return answer({ wakeNow: true });
      }
      if (record.loop.parkToken !== token) {
        const stored = withLoop(changeOf(record), (loop) => ({ ...loop, parkToken: token }));
        return checkpoint(record, stored, 'token_stored');
      }
    }
    const { inbox } = observed;
    if (inbox === undefined) {
      return need<ParkWants>({ key: 'inbox', effect: { kind: 'read_inbox', taskId: ref.taskId } });
    }
    if (!hasWaitingWork(record, inbox)) return answer({ wakeNow: false });
    const { change, token: held } = withTokenClaimed(changeOf(record));
    return held === token
      ? commitThen(record, change, { wakeNow: true })
      : answer({ wakeNow: false });
  };

/**
 * Stores the parked execution's task token on the task (one conditional commit), then looks
 * again for work that raced in while the turn was ending: a message, a child's result, a
 * completion request. Whoever adds work to a task checks, in the same commit, whether it is
 * parked (and then wakes it), so work committed before the token is seen here. If there is
 * some, the park claims its own token back and the execution resumes at once, so nothing waits
 * on a token nobody will claim.
 *
 * With `decidedOn` (the turn found nothing waiting), the token is committed on that version and
 * inbox count without a read: if the commit applies, nothing changed and nothing came since the
 * turn decided, so there is nothing to look for. If it is refused, the park reads and decides.
 */
export function park(
  deps: LoopDeps,
  ref: TurnRef,
  token: string,
  decidedOn?: ParkDecidedOn
): Promise<ParkOutcome> {
  const operation: Operation<ParkOutcome, ParkWants, TokenStored> = {
    taskId: ref.taskId,
    presumed:
      decidedOn === undefined
        ? undefined
        : {
            commit: { kind: 'park', taskId: ref.taskId, token, ...decidedOn },
            result: { wakeNow: false },
          },
    decide: decidePark(ref, token),
  };
  return resultOf(deps, operation);
}
