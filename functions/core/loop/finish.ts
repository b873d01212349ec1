import { TaskState } from '@a2a-js/sdk';
import type { TaskRecord } from '../ports/task-store.js';
import { isTerminalState, lifecycleOf, readExtension, stateOf } from '../task/a2a-task.js';
import { whoMay } from '../task/permissions.js';
import { withAnswerArtifact } from './answer-artifact.js';
import { agentIsAssignee } from './assignee.js';
import { completionContext } from './completion.js';
import type { LoopConfig } from './config.js';
import { withCriteriaAccepted, withUnmetCriteria } from './criteria-review.js';
import type { CompletionVerdict, HarnessHookPoints } from './hook-points.js';
import type { InboxItem } from './inbox.schema.js';
import { type Change, withLoop } from './records.js';
import type { StepResult, TurnRef } from './route.schema.js';
import { ended, endRoute, parkedForInput } from './status.js';
import { currentRef, turnUnfinished } from './turn-position.js';
import { hasUnreadWork } from './waiting-work.js';

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
 * The end of a turn, or what deciding it still needs: the inbox as it is now (only to end a
 * delegated task), or decide_completion's verdict on the task.
 */
export type TurnEndDecision =
  | { kind: 'end'; end: TurnEnd }
  | { kind: 'needs_inbox' }
  | { kind: 'needs_verdict'; context: HarnessHookPoints['task.complete']['context'] };

/** What the end of a turn has learnt so far (each asked for by the decision, then given). */
export interface TurnEndFacts {
  inbox: readonly InboxItem[] | undefined;
  verdict: CompletionVerdict | undefined;
  now: string;
  config: Pick<LoopConfig, 'agentId' | 'criteriaReminders'>;
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
 * The inbox is needed only to end a task: whatever arrives before a park is seen by the park
 * itself.
 */
export const decideTurnEnd = (
  change: Change,
  ref: TurnRef,
  facts: TurnEndFacts
): TurnEndDecision => {
  const to = (end: TurnEnd): TurnEndDecision => ({ kind: 'end', end });
  const { record } = change;
  const state = stateOf(record.task);
  if (isTerminalState(state)) return to({ change, route: { ref, route: endRoute(state) } });
  if (record.loop.generation !== ref.generation) {
    return to({ change, route: { ref, route: { next: 'superseded' } } });
  }
  const { now, config, verdict } = facts;
  const extension = readExtension(record.task);
  const end = (
    endState: TaskState,
    text: string | undefined,
    clearRequest = false,
    from: Change = change
  ): TurnEnd => {
    const answered =
      endState === TaskState.TASK_STATE_COMPLETED ? withAnswerArtifact(from, text) : from;
    const ending = ended(answered, ref, endState, text, now);
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
    if (verdict === undefined) {
      return {
        kind: 'needs_verdict',
        context: completionContext(record, request.requestedBy, result),
      };
    }
    if (verdict.decision === 'complete') {
      const accepted = withCriteriaAccepted(change, request, now);
      return to(end(TaskState.TASK_STATE_COMPLETED, result, true, accepted));
    }
    if (verdict.decision === 'fail') {
      return to(end(TaskState.TASK_STATE_FAILED, verdict.reason, true));
    }
    const cleared = withLoop(change, (loop) => ({ ...loop, completionRequest: null }));
    if (verdict.decision === 'unmet') {
      // Someone who may not accept unmet criteria asked (a participant task's assignee by
      // answering): the task waits for a reporter or an admin to accept or review them.
      const text = `${request.requestedBy} answered, but ${verdict.reason}: only ${whoMay('accept_unmet_criteria')} may accept them, by completing the task`;
      return to({
        change: parkedForInput(cleared, ref, 'awaiting-review', text, now),
        route: { ref, route: { next: 'park', subState: 'awaiting-review' } },
      });
    }
    return to(parked(`completion refused: ${verdict.reason}`, cleared));
  }

  // A turn that is not over (re-entered from an earlier checkpoint) takes the loop on.
  const goOn: TurnEnd = {
    change,
    route: { ref: currentRef(ref, record.loop), route: { next: 'turn' } },
  };
  if (turnUnfinished(record.loop)) return to(goOn);
  if (!agentIsAssignee(extension, config.agentId)) return to(parked(extension.goal));
  if (lifecycleOf(extension) === 'conversation') return to(parked(lastText(record)));
  // A delegated task ends only once it has read everything: anything unread takes a turn more.
  if (facts.inbox === undefined) return { kind: 'needs_inbox' };
  if (hasUnreadWork(facts.inbox)) return to(goOn);
  if (verdict === undefined) {
    return {
      kind: 'needs_verdict',
      context: completionContext(record, null, lastText(record) ?? ''),
    };
  }
  if (verdict.decision === 'complete') {
    return to(end(TaskState.TASK_STATE_COMPLETED, lastText(record)));
  }
  if (verdict.decision === 'fail') return to(end(TaskState.TASK_STATE_FAILED, verdict.reason));
  if (verdict.decision === 'unmet') {
    const unmet = withUnmetCriteria(change, ref, verdict.criteria, {
      reminders: config.criteriaReminders,
      now,
    });
    return to({ change: unmet.change, route: unmet.result });
  }
  // Waiting for children: the task stays WORKING, parked on a token until a child's news.
  return to({ change, route: { ref, route: { next: 'park', subState: null } } });
};
