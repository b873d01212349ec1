import { ConcurrencyConflictError } from '../errors.js';
import type { TaskRecord } from '../ports/task-store.js';
import { isTerminalState, stateOf } from '../task/a2a-task.js';
import { awaitingApproval } from './approvals.js';
import type { LoopDeps } from './deps.js';
import { hasUnreadWork } from './finish.js';
import type { InboxItem } from './inbox.schema.js';
import { withTokenClaimed } from './park-token.js';
import { changeOf, decided, decideOnRecord, withLoop } from './records.js';
import type { ParkDecidedOn, StepResult, TurnRef } from './route.schema.js';
import { turnUnfinished } from './turn-position.js';

export interface ParkOutcome {
  /** Work arrived while parking: the caller must resume the execution with this token now. */
  wakeNow: boolean;
}

/**
 * Whether work waits for the task it parks: something that raced in while the turn was ending,
 * or a turn that is not over (the park state re-entered after its wake was consumed).
 */
export const hasWaitingWork = (record: TaskRecord, inbox: readonly InboxItem[]): boolean =>
  record.loop.completionRequest !== null ||
  // A call waits for approval: only its answer (or a completion request, above) wakes the task.
  (awaitingApproval(record.loop).length === 0 &&
    (record.loop.pendingQuestion === null
      ? hasUnreadWork(inbox) || turnUnfinished(record.loop)
      : inbox.length > 0));

/** The inbox as a turn read it: the record's inbox count then, and the items the turn left. */
export interface InboxRead {
  count: number;
  left: readonly InboxItem[];
}

/**
 * A turn's park route, marked to be committed without a read (`decidedOn`) when nothing waits
 * on `record` (the task as the turn left it) and `inbox`. The inbox must have been read after
 * the record whose inbox count it carries, so every item counted by then is in it.
 */
export const withParkDecidedOn = (
  step: StepResult,
  record: TaskRecord,
  inbox: InboxRead
): StepResult => {
  const { route } = step;
  if (route.next !== 'park' || hasWaitingWork(record, inbox.left)) return step;
  if (record.loop.generation !== step.ref.generation) return step;
  return {
    ...step,
    route: { ...route, decidedOn: { version: record.version, inboxCount: inbox.count } },
  };
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
export const park = async (
  deps: LoopDeps,
  ref: TurnRef,
  token: string,
  decidedOn?: ParkDecidedOn
): Promise<ParkOutcome> => {
  if (decidedOn !== undefined) {
    try {
      await deps.store.commit({ kind: 'park', taskId: ref.taskId, token, ...decidedOn });
      return { wakeNow: false };
    } catch (error) {
      if (!(error instanceof ConcurrencyConflictError)) throw error;
    }
  }
  const { result: parked } = await decideOnRecord<TaskRecord | undefined>(
    deps,
    ref.taskId,
    (record) => {
      if (record.loop.generation !== ref.generation || isTerminalState(stateOf(record.task))) {
        return { result: undefined };
      }
      // A retried park state: the token is stored already.
      if (record.loop.parkToken === token) return { result: record };
      const change = withLoop(changeOf(record), (loop) => ({ ...loop, parkToken: token }));
      return decided(record, change, change.record);
    }
  );
  if (parked === undefined) return { wakeNow: true };
  if (!hasWaitingWork(parked, await deps.store.readInbox(ref.taskId))) return { wakeNow: false };
  const { result: claimed } = await decideOnRecord<boolean>(deps, ref.taskId, (record) => {
    const { change, token: held } = withTokenClaimed(changeOf(record));
    return held === token ? decided(record, change, true) : { result: false };
  });
  return { wakeNow: claimed };
};
