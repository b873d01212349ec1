import { readExtension, withExtension } from '../task/a2a-task.js';
import { criterionLabel, unmetCriteria, withUnmetAccepted } from '../task/criteria.js';
import type { AcceptanceCriterion, TaskExtension } from '../task/extension.schema.js';
import type { HistoryEntry } from './history.schema.js';
import { type Change, withLoop, withRecord, withTaskEvent } from './records.js';
import type { StepResult, TurnRef } from './route.schema.js';
import { parkedForInput } from './status.js';
import { currentRef } from './turn-position.js';

const listed = (criteria: readonly AcceptanceCriterion[]) =>
  criteria.map((criterion) => `- ${criterionLabel(criterion)}`).join('\n');

const named = (extension: TaskExtension, ids: readonly string[]) =>
  extension.acceptance_criteria.filter((criterion) => ids.includes(criterion.id));

/** Who reviews a task: its reporters, or failing those its admins. */
export const reviewersOf = (extension: TaskExtension): string[] => {
  const reporters = extension.participants.filter((p) => p.role === 'reporter').map((p) => p.id);
  return reporters.length > 0
    ? reporters
    : extension.participants.filter((p) => p.role === 'admin').map((p) => p.id);
};

/** The harness note that tells the model which criteria keep the task from completing. */
export const unmetNoteText = (
  extension: TaskExtension,
  unmet: readonly AcceptanceCriterion[],
  reminder: { number: number; of: number }
): string =>
  [
    `This task cannot complete yet: ${unmet.length} of ${extension.acceptance_criteria.length} acceptance criteria not met:`,
    listed(unmet),
    'Call meet_criterion for each once it holds, with the evidence that shows it, or go on working until it does.',
    `Reminder ${reminder.number} of ${reminder.of}: after that, the task waits for its reporter's review.`,
  ].join('\n');

/** The status message of a task parked for review: what is unmet, and what a reviewer can do. */
export const reviewRequestText = (
  extension: TaskExtension,
  unmet: readonly AcceptanceCriterion[],
  reminders: number
): string => {
  const reviewers = reviewersOf(extension);
  return [
    `Review needed: ${unmet.length} of ${extension.acceptance_criteria.length} acceptance criteria not met after ${reminders} reminder(s):`,
    listed(unmet),
    `${reviewers.length > 0 ? `${reviewers.join(', ')}: reply` : 'Reply'} to let the agent go on, reject a criterion it met wrongly, or complete the task to accept it as it is.`,
  ].join('\n');
};

/**
 * The end of a delegated turn with acceptance criteria unmet (pure). While reminders are left,
 * the model is told which (a harness note in the transcript) and takes another turn; once they
 * are used up, the task parks in INPUT_REQUIRED, sub-state `awaiting-review`, asking its
 * reporters, and the count starts again for when the work resumes.
 */
export const withUnmetCriteria = (
  change: Change,
  ref: TurnRef,
  criteria: readonly string[],
  options: { reminders: number; now: string }
): { change: Change; result: StepResult } => {
  const { record } = change;
  const extension = readExtension(record.task);
  const unmet = named(extension, criteria);
  const given = record.loop.criteriaReminders;
  if (given < options.reminders) {
    const seq = record.loop.historySeq + 1;
    const note: HistoryEntry = {
      seq,
      kind: 'harness_note',
      topic: 'criteria_unmet',
      criteria: [...criteria],
      text: unmetNoteText(extension, unmet, { number: given + 1, of: options.reminders }),
    };
    const next = withLoop({ ...change, history: [...change.history, note] }, (loop) => ({
      ...loop,
      historySeq: seq,
      needsModel: true,
      criteriaReminders: given + 1,
    }));
    return {
      change: next,
      result: { ref: currentRef(ref, record.loop), route: { next: 'turn' } },
    };
  }
  const parked = parkedForInput(
    withLoop(change, (loop) => ({ ...loop, criteriaReminders: 0 })),
    ref,
    'awaiting-review',
    reviewRequestText(extension, unmet, given),
    options.now
  );
  return { change: parked, result: { ref, route: { next: 'park', subState: 'awaiting-review' } } };
};

/**
 * A participant's completion with acceptance criteria unmet records that they accepted them
 * (criteria.ts), in the extension and as an updated Task; with every criterion met, nothing.
 */
export const withCriteriaAccepted = (
  change: Change,
  request: { requestedBy: string; reason: string | null },
  now: string
): Change => {
  const extension = readExtension(change.record.task);
  if (unmetCriteria(extension).length === 0) return change;
  const accepted = withUnmetAccepted(extension, {
    by: request.requestedBy,
    reason: request.reason,
    at: now,
  });
  return withTaskEvent(
    withRecord(change, (current) => ({ ...current, task: withExtension(current.task, accepted) }))
  );
};
