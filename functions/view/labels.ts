/**
 * Words and marks both renderers use for states, rows and questions (brief §7: ○ pending,
 * ◐ active, ● done, ✗ failed).
 */
import type { TaskView } from './task-view.js';

export type StepState = NonNullable<TaskView['plan']>['steps'][number]['state'];
export type SubTaskRow = TaskView['sub_tasks'][number];

export const STEP_MARK: Record<StepState, string> = {
  pending: '○',
  active: '◐',
  done: '●',
  failed: '✗',
};

export const ROW_MARK: Record<string, string> = {
  TASK_STATE_SUBMITTED: '○',
  TASK_STATE_WORKING: '◐',
  // Waiting on someone: not a question mark, which reads as "unknown".
  TASK_STATE_INPUT_REQUIRED: '◔',
  TASK_STATE_AUTH_REQUIRED: '◔',
  TASK_STATE_COMPLETED: '●',
  TASK_STATE_FAILED: '✗',
  TASK_STATE_CANCELED: '✗',
  TASK_STATE_REJECTED: '✗',
};

/** `TASK_STATE_INPUT_REQUIRED` → `input-required`. */
export const stateLabel = (state: string) =>
  state
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');

/** `input-required (awaiting-answer)`. */
export const stateWithSubState = (state: string, subState: string | null) =>
  `${stateLabel(state)}${subState === null ? '' : ` (${subState})`}`;

/** `agent/task_id` for a child on a remote agent, `task_id` on this harness. */
export const rowLabel = (row: Pick<SubTaskRow, 'task_id' | 'agent'>) =>
  row.agent === null ? row.task_id : `${row.agent}/${row.task_id}`;

/** The tone a state is shown in: what a reader should make of it at a glance. */
export type Tone = 'done' | 'failed' | 'waiting' | 'active' | 'idle';

export const stateTone = (state: string): Tone => {
  if (state === 'TASK_STATE_COMPLETED') return 'done';
  if (['TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'].includes(state))
    return 'failed';
  if (state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED')
    return 'waiting';
  if (state === 'TASK_STATE_WORKING') return 'active';
  return 'idle';
};

/**
 * A pending question as the harness words its status (`<question>\nOptions: a, b`): the question
 * and its closed set of answers (none for an open question).
 */
export const questionOf = (statusText: string): { question: string; options: string[] } => {
  const options =
    /(?:^|\n)Options: (.+)$/m
      .exec(statusText)?.[1]
      ?.split(', ')
      .map((option) => option.trim())
      .filter((option) => option !== '') ?? [];
  return { question: statusText.replace(/\nOptions: .+$/m, ''), options };
};

/** Whether the task waits on an answer to a question. */
export const isAsking = (view: Pick<TaskView, 'state' | 'sub_state'>) =>
  view.state === 'TASK_STATE_INPUT_REQUIRED' && view.sub_state === 'awaiting-answer';

/** Whether the task waits for a participant's approval of tool calls. */
export const isAwaitingApproval = (view: Pick<TaskView, 'state' | 'sub_state'>) =>
  view.state === 'TASK_STATE_INPUT_REQUIRED' && view.sub_state === 'awaiting-approval';

export const isAwaitingBudget = (view: Pick<TaskView, 'state' | 'sub_state'>) =>
  view.state === 'TASK_STATE_INPUT_REQUIRED' && view.sub_state === 'awaiting-budget';

/** The calls an approval request lists, without its closing options line (approve, reject). */
export const approvalRequestOf = (statusText: string): string =>
  statusText.replace(/\nOptions: .+$/m, '');
