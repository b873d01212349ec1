import { TaskState } from '@a2a-js/sdk';
import type { TaskRecord } from '../ports/task-store.js';
import { isTerminalState, lifecycleOf, readExtension, stateOf } from '../task/a2a-task.js';
import { agentIsAssignee } from './assignee.js';
import { decideCompletion } from './completion.js';
import { withCriteriaAccepted, withUnmetCriteria } from './criteria-review.js';
import type { LoopDeps } from './deps.js';
import type { InboxItem } from './inbox.schema.js';
import {
  type Change,
  changeOf,
  type Decision,
  decideAndCommit,
  decided,
  loadRecord,
  withLoop,
} from './records.js';
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

/**
 * The end of a turn with no tool call. A participant's completion request runs
 * decide_completion with `requested_by` (refused while a sub-task is unresolved: the task parks
 * again; criteria still unmet are recorded as accepted by them). Otherwise anything unread takes
 * one more turn; a conversation parks (INPUT_REQUIRED, awaiting-next-message) and never completes
 * by itself, its criteria advisory; a delegated task runs decide_completion and completes, fails,
 * waits for its children, or, with criteria unmet, is told so and works on until a bound, then
 * parks for its reporter's review (criteria-review.ts).
 */
export const decideFinish = async (
  deps: LoopDeps,
  record: TaskRecord,
  inbox: readonly InboxItem[],
  ref: TurnRef
): Promise<Decision<StepResult>> => {
  const state = stateOf(record.task);
  if (isTerminalState(state)) return { result: { ref, route: endRoute(state) } };
  if (record.loop.generation !== ref.generation)
    return { result: { ref, route: { next: 'superseded' } } };
  const now = deps.clock.now();
  const extension = readExtension(record.task);
  const base = changeOf(record);
  const end = (
    endState: TaskState,
    text: string | undefined,
    clearRequest = false,
    from: Change = base
  ) => {
    const change = ended(from, ref, endState, text, now);
    return decided(
      record,
      clearRequest ? withLoop(change, (loop) => ({ ...loop, completionRequest: null })) : change,
      { ref, route: endRoute(endState) }
    );
  };

  const request = record.loop.completionRequest;
  if (request !== null) {
    const result = request.reason ?? lastText(record) ?? '';
    const verdict = await decideCompletion(deps, record, request.requestedBy, result);
    if (verdict.decision === 'complete') {
      const accepted = withCriteriaAccepted(base, request, now);
      return end(TaskState.TASK_STATE_COMPLETED, result, true, accepted);
    }
    if (verdict.decision === 'fail') return end(TaskState.TASK_STATE_FAILED, verdict.reason, true);
    const refused = parkedForInput(
      withLoop(base, (loop) => ({ ...loop, completionRequest: null })),
      ref,
      'awaiting-next-message',
      `completion refused: ${verdict.reason}`,
      now
    );
    return decided(record, refused, park(ref, 'awaiting-next-message'));
  }

  // Anything unread, or a turn that is not over (re-entered from an earlier checkpoint), takes
  // the loop on instead of ending the turn.
  if (hasUnreadWork(inbox) || turnUnfinished(record.loop)) {
    return { result: { ref: currentRef(ref, record.loop), route: { next: 'drain' } } };
  }

  if (!agentIsAssignee(extension, deps.config.agentId)) {
    const waiting = parkedForInput(base, ref, 'awaiting-next-message', extension.goal, now);
    return decided(record, waiting, park(ref, 'awaiting-next-message'));
  }
  if (lifecycleOf(extension) === 'conversation') {
    const waiting = parkedForInput(base, ref, 'awaiting-next-message', lastText(record), now);
    return decided(record, waiting, park(ref, 'awaiting-next-message'));
  }
  const verdict = await decideCompletion(deps, record, null, lastText(record) ?? '');
  if (verdict.decision === 'complete') return end(TaskState.TASK_STATE_COMPLETED, lastText(record));
  if (verdict.decision === 'fail') return end(TaskState.TASK_STATE_FAILED, verdict.reason);
  if (verdict.decision === 'unmet') {
    const unmet = withUnmetCriteria(base, ref, verdict.criteria, {
      reminders: deps.config.criteriaReminders,
      now,
    });
    return decided(record, unmet.change, unmet.result);
  }
  // Waiting for children: the task stays WORKING, parked on a token until a child's news.
  return { result: { ref, route: { next: 'park', subState: null } } };
};

export const finish = async (deps: LoopDeps, ref: TurnRef): Promise<StepResult> => {
  const { result } = await decideAndCommit(
    deps,
    () => Promise.all([loadRecord(deps, ref.taskId), deps.store.readInbox(ref.taskId)]),
    ([record, inbox]) => decideFinish(deps, record, inbox, ref)
  );
  return result;
};
