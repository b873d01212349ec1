import { TaskState } from '@a2a-js/sdk';
import type { TaskRecord } from '../ports/task-store.js';
import { isTerminalState, lifecycleOf, readExtension, stateOf } from '../task/a2a-task.js';
import { whoMay } from '../task/permissions.js';
import { agentIsAssignee } from './assignee.js';
import { decideCompletion } from './completion.js';
import { withCriteriaAccepted, withUnmetCriteria } from './criteria-review.js';
import type { LoopDeps } from './deps.js';
import type { InboxItem } from './inbox.schema.js';
import { type Change, type Decision, decided, withLoop, writesNothing } from './records.js';
import type { StepResult, TurnRef } from './route.schema.js';
import { ended, endRoute, parkedForInput } from './status.js';
import { currentRef, turnUnfinished } from './turn-position.js';

/** Whether something waits that the model has not read: a message, a child's result, a harness note. */
export const hasUnreadWork = (inbox: readonly InboxItem[]): boolean =>
  inbox.some((item) => item.kind !== 'note' || item.result);

const lastText = (record: TaskRecord): string | undefined =>
  record.loop.response?.text || undefined;

const park = (ref: TurnRef, subState: 'awaiting-next-message'): StepResult => ({
  ref,
  route: { next: 'park', subState },
});

/** What the end of a turn decided: the change to commit (the turn's own, at least) and where the loop goes. */
export interface TurnEnd {
  change: Change;
  route: StepResult;
}

/**
 * The end of a turn with no tool call, decided on top of `change` (the turn's own change: its
 * model response, or nothing). A participant's completion request runs decide_completion with
 * `requested_by` (refused while a sub-task is unresolved: the task parks again; criteria still
 * unmet are recorded as accepted by them). A turn that is not over (re-entered from an earlier
 * checkpoint) goes on. A conversation parks (INPUT_REQUIRED, awaiting-next-message) and never
 * completes by itself, its criteria advisory; a delegated task with nothing unread runs
 * decide_completion and completes, fails, waits for its children, or, with criteria unmet, is
 * told so and works on until a bound, then parks for its reporter's review (criteria-review.ts).
 * The inbox is read only to end a task (`inboxOf`): whatever arrives before a park is seen by
 * the park itself.
 */
export const finishTurn = async (
  deps: LoopDeps,
  change: Change,
  ref: TurnRef,
  inboxOf: () => Promise<readonly InboxItem[]>
): Promise<TurnEnd> => {
  const { record } = change;
  const state = stateOf(record.task);
  if (isTerminalState(state)) return { change, route: { ref, route: endRoute(state) } };
  if (record.loop.generation !== ref.generation) {
    return { change, route: { ref, route: { next: 'superseded' } } };
  }
  const now = deps.clock.now();
  const extension = readExtension(record.task);
  const end = (
    endState: TaskState,
    text: string | undefined,
    clearRequest = false,
    from: Change = change
  ): TurnEnd => {
    const ending = ended(from, ref, endState, text, now);
    return {
      change: clearRequest
        ? withLoop(ending, (loop) => ({ ...loop, completionRequest: null }))
        : ending,
      route: { ref, route: endRoute(endState) },
    };
  };
  const parked = (text: string | undefined, base: Change = change): TurnEnd => ({
    change: parkedForInput(base, ref, 'awaiting-next-message', text, now),
    route: park(ref, 'awaiting-next-message'),
  });

  const request = record.loop.completionRequest;
  if (request !== null) {
    const result = request.reason ?? lastText(record) ?? '';
    const verdict = await decideCompletion(deps, record, request.requestedBy, result);
    if (verdict.decision === 'complete') {
      const accepted = withCriteriaAccepted(change, request, now);
      return end(TaskState.TASK_STATE_COMPLETED, result, true, accepted);
    }
    if (verdict.decision === 'fail') return end(TaskState.TASK_STATE_FAILED, verdict.reason, true);
    const cleared = withLoop(change, (loop) => ({ ...loop, completionRequest: null }));
    if (verdict.decision === 'unmet') {
      // Someone who may not accept unmet criteria asked (a participant task's assignee by
      // answering): the task waits for a reporter or an admin to accept or review them.
      const text = `${request.requestedBy} answered, but ${verdict.reason}: only ${whoMay('accept_unmet_criteria')} may accept them, by completing the task`;
      return {
        change: parkedForInput(cleared, ref, 'awaiting-review', text, now),
        route: { ref, route: { next: 'park', subState: 'awaiting-review' } },
      };
    }
    return parked(`completion refused: ${verdict.reason}`, cleared);
  }

  // A turn that is not over (re-entered from an earlier checkpoint) takes the loop on.
  if (turnUnfinished(record.loop)) {
    return { change, route: { ref: currentRef(ref, record.loop), route: { next: 'turn' } } };
  }
  if (!agentIsAssignee(extension, deps.config.agentId)) return parked(extension.goal);
  if (lifecycleOf(extension) === 'conversation') return parked(lastText(record));
  // A delegated task ends only once it has read everything: anything unread takes a turn more.
  if (hasUnreadWork(await inboxOf())) {
    return { change, route: { ref: currentRef(ref, record.loop), route: { next: 'turn' } } };
  }
  const verdict = await decideCompletion(deps, record, null, lastText(record) ?? '');
  if (verdict.decision === 'complete') return end(TaskState.TASK_STATE_COMPLETED, lastText(record));
  if (verdict.decision === 'fail') return end(TaskState.TASK_STATE_FAILED, verdict.reason);
  if (verdict.decision === 'unmet') {
    const unmet = withUnmetCriteria(change, ref, verdict.criteria, {
      reminders: deps.config.criteriaReminders,
      now,
    });
    return { change: unmet.change, route: unmet.result };
  }
  // Waiting for children: the task stays WORKING, parked on a token until a child's news.
  return { change, route: { ref, route: { next: 'park', subState: null } } };
};

/** The commit of a turn's end, made on `base` (the record the turn read); none if it writes nothing. */
export const endOfTurn = (base: TaskRecord, end: TurnEnd): Decision<StepResult> =>
  writesNothing(end.change, base) ? { result: end.route } : decided(base, end.change, end.route);
