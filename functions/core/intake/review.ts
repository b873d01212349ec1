import { CriterionNotMetError, ReviewerRequiredError, UnknownCriterionError } from '../errors.js';
import { type Change, withLoop, withRecord, withTaskEvent } from '../loop/records.js';
import type { TaskRecord } from '../ports/task-store.js';
import type { Wake } from '../ports/waker.js';
import { readExtension, subStateOf, withExtension } from '../task/a2a-task.js';
import { criterionLabel, resolveCriterion, withCriterionRejected } from '../task/criteria.js';
import { mayDo } from '../task/permissions.js';
import { wakingTheTask } from './wake.js';

export interface Rejection {
  /** The participant rejecting: must be a reporter or an admin of the task. */
  reviewer: string;
  /** The criterion's id, or its position (1-based). */
  criterion: string;
  reason: string;
  /** The control message's id: the harness note is named after it. */
  messageId: string;
  now: string;
}

/**
 * A reviewer finds a met acceptance criterion unmet (pure): the criterion is unmet again with the
 * reason on it (and an updated Task on the stream), and a harness note carries the reason to the
 * agent's next turn, waking a parked task as a message does. Only a reporter or an admin may
 * reject (`criterion.reviewer_required`); the criterion must exist (`criterion.unknown`) and be
 * met (`criterion.not_met`). Nothing is applied when any check fails.
 */
export const withCriterionRejection = (
  change: Change,
  rejection: Rejection
): { change: Change; wake: Wake } => {
  const { record } = change;
  const extension = readExtension(record.task);
  const reviewer = extension.participants.find((p) => p.id === rejection.reviewer);
  if (reviewer === undefined || !mayDo(reviewer.role, 'review_criteria')) {
    throw new ReviewerRequiredError(
      `only a reporter or an admin may reject an acceptance criterion; ${rejection.reviewer} is ${reviewer === undefined ? 'not a participant' : `a ${reviewer.role}`}`
    );
  }
  const criterion = resolveCriterion(extension.acceptance_criteria, rejection.criterion);
  if (criterion === undefined) {
    const known = extension.acceptance_criteria.map((c) => c.id).join(', ') || 'none';
    throw new UnknownCriterionError(
      `no acceptance criterion ${JSON.stringify(rejection.criterion)}; the task has: ${known}`
    );
  }
  if (!criterion.met) {
    throw new CriterionNotMetError(
      `acceptance criterion ${criterionLabel(criterion)} is not met: there is nothing to reject (a message can say what it needs)`
    );
  }
  const rejected = withCriterionRejected(extension, criterion.id, {
    by: rejection.reviewer,
    reason: rejection.reason,
    at: rejection.now,
  });
  const text = [
    `${rejection.reviewer} (${reviewer.role}) rejected acceptance criterion ${criterionLabel(criterion)}: ${rejection.reason}`,
    `It had been met by ${criterion.met_by ?? 'someone'} with the evidence: ${criterion.evidence?.text ?? '(none)'}`,
    'It is unmet again.',
  ].join('\n');
  const next: Change = withTaskEvent(
    withLoop(
      withRecord(change, (current) => ({
        ...current,
        task: withExtension(current.task, rejected),
      })),
      // A review starts the reminders before the next review again.
      (loop) => ({ ...loop, criteriaReminders: 0 })
    )
  );
  const noted: Change = {
    ...next,
    enqueue: [
      ...next.enqueue,
      {
        kind: 'harness_note',
        id: `reject:${rejection.messageId}`,
        topic: 'criterion_rejected',
        criteria: [criterion.id],
        text,
      },
    ],
  };
  return wakingTheTask(noted);
};

/**
 * A task envelope that changes the acceptance criteria of a task parked for their review
 * (`awaiting-review`) is the reviewer's answer, as any accepted message is: the agent is told
 * what changed in a harness note, and the task resumes to read it. Undefined when the task is not
 * waiting for a review or its criteria did not change.
 */
export const withCriteriaChangeForReview = (
  change: Change,
  base: TaskRecord,
  options: { sender: string; messageId: string }
): { change: Change; wake: Wake } | undefined => {
  if (subStateOf(base.task) !== 'awaiting-review') return undefined;
  const before = readExtension(base.task);
  const after = readExtension(change.record.task);
  if (JSON.stringify(before.acceptance_criteria) === JSON.stringify(after.acceptance_criteria)) {
    return undefined;
  }
  const listed = after.acceptance_criteria
    .map((criterion) => `${criterionLabel(criterion)}: ${criterion.met ? 'met' : 'unmet'}`)
    .join('\n');
  return wakingTheTask({
    ...withLoop(change, (loop) => ({ ...loop, criteriaReminders: 0 })),
    enqueue: [
      ...change.enqueue,
      {
        kind: 'harness_note',
        id: `criteria:${options.messageId}`,
        topic: 'criteria_changed',
        criteria: after.acceptance_criteria.map((criterion) => criterion.id),
        text: `${options.sender} changed the acceptance criteria while reviewing them; they are now:\n${listed || '(none)'}`,
      },
    ],
  });
};
