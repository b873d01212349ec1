import type { TaskRecord } from '../ports/task-store.js';
import { subStateOf } from '../task/a2a-task.js';
import { awaitingApproval } from './approvals.js';
import type { InboxItem } from './inbox.schema.js';
import type { StepResult } from './route.schema.js';
import { turnUnfinished } from './turn-position.js';

/** Whether something waits that the model has not read: a message, a child's result, a harness note. */
export const hasUnreadWork = (inbox: readonly InboxItem[]): boolean =>
  inbox.some((item) => item.kind !== 'note' || item.result);

/**
 * Whether work waits for the task it parks: something that raced in while the turn was ending,
 * or a turn that is not over (the park state re-entered after its wake was consumed).
 */
export const hasWaitingWork = (record: TaskRecord, inbox: readonly InboxItem[]): boolean =>
  record.loop.completionRequest !== null ||
  // A call waits for approval, or the model's call for a budget: only an answer, a raised budget
  // (or a completion request, above) wakes the task; what the model has not read stays unread.
  (awaitingApproval(record.loop).length === 0 &&
    subStateOf(record.task) !== 'awaiting-budget' &&
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
