/**
 * What the chat prints when the task it follows moves on: the Task and Plan panes when they
 * change (or one line per sub-task row when only rows moved), and the status line. Pure: the
 * chat prints the lines.
 */
import { isAwaitingApproval, questionOf } from '../../view/labels.js';
import { isTerminal, type TaskView } from '../../view/task-view.js';
import type { Colors } from '../colors.js';
import {
  approvalPrompt,
  criteriaText,
  renderPlan,
  renderTask,
  rowLabel,
  stateLabel,
  stateText,
} from '../render.js';

/** The panes as last printed ('' before the first). */
export interface PrintedPanes {
  /** The Task pane as last printed, less its spend: a change of spend alone prints nothing. */
  task: string;
  plan: string;
}

/**
 * The view with no sub-task row back in `submitted` once it was seen past it: a task is submitted
 * only before its first turn, so such a row comes from a snapshot of the parent older than the
 * one shown (a stream's Task event stamped with the same status time), and would print the row's
 * state as changing back and forth.
 */
export function withRowsNotBehind(before: TaskView, next: TaskView): TaskView {
  return {
    ...next,
    sub_tasks: next.sub_tasks.map((row) => {
      const old = before.sub_tasks.find((seen) => seen.task_id === row.task_id);
      return old !== undefined &&
        row.state === 'TASK_STATE_SUBMITTED' &&
        old.state !== 'TASK_STATE_SUBMITTED'
        ? old
        : row;
    }),
  };
}

/** Only rows' states moved: one line per row says so, instead of the whole pane again. */
function rowChanges(
  before: TaskView | undefined,
  next: TaskView,
  printed: PrintedPanes,
  c: Colors
): string[] | undefined {
  if (before === undefined || printed.task === '') return undefined;
  const rows = (view: TaskView) => view.sub_tasks.map((row) => row.task_id).join(',');
  const rest = (view: TaskView) =>
    renderTask(
      {
        ...view,
        sub_tasks: view.sub_tasks.map((row) => ({
          ...row,
          state: '',
          sub_state: null,
          criteria: null,
        })),
      },
      c,
      { state: false }
    );
  if (rows(before) !== rows(next) || rest(before) !== rest(next)) return undefined;
  return next.sub_tasks.flatMap((row, index) => {
    const old = before.sub_tasks[index];
    if (old?.state === row.state && old.sub_state === row.sub_state) {
      if (criteriaText(old) === criteriaText(row)) return [];
      return [`${c.dim('sub-task')} ${rowLabel(row)}${criteriaText(row)} met`];
    }
    return [
      `${c.dim('sub-task')} ${rowLabel(row)} ${c.dim('is now')} ${stateText(c, row.state, row.sub_state)}${criteriaText(row)}`,
    ];
  });
}

/** The lines the Task and Plan panes print for `next`, and the panes as then printed. */
export function paneLines(
  before: TaskView | undefined,
  next: TaskView,
  printed: PrintedPanes,
  c: Colors
): { lines: string[]; printed: PrintedPanes } {
  const lines: string[] = [];
  let shown = printed;
  // Every turn spends: the pane is printed again for what else changed (`watch` follows spend).
  const unspent = renderTask({ ...next, usage: null }, c, { state: false });
  if (unspent !== printed.task) {
    lines.push(
      ...(rowChanges(before, next, printed, c) ?? [renderTask(next, c, { state: false })])
    );
    shown = { ...shown, task: unspent };
    if (before !== undefined) {
      for (const row of next.sub_tasks) {
        if (before.sub_tasks.some((old) => old.task_id === row.task_id)) continue;
        if (row.agent !== null) continue;
        lines.push(
          c.dim(
            `sub-task ${row.task_id} started: \`npx tiny-harness chat --task ${row.task_id}\` talks to it`
          )
        );
      }
    }
  }
  if (!next.extension) return { lines, printed: shown };
  const plan = renderPlan(next, c);
  if (plan !== printed.plan && next.plan !== null) {
    lines.push(plan);
    shown = { ...shown, plan };
  }
  return { lines, printed: shown };
}

/** What the status of `next` prints, and what it changes in the chat. */
export interface StatusShown {
  lines: string[];
  /** The answers a number picks from now on; undefined leaves them as they were. */
  answers?: string[] | undefined;
  /** What the spinner says the agent is doing; undefined leaves it. */
  note?: string | undefined;
}

/** The status line(s) for `next`, when its state, sub-state or status text moved. */
export function statusLines(next: TaskView, before: TaskView | undefined, c: Colors): StatusShown {
  const changed =
    before === undefined ||
    before.state !== next.state ||
    before.sub_state !== next.sub_state ||
    before.status_text !== next.status_text;
  if (!changed) return { lines: [] };
  if (next.state === 'TASK_STATE_WORKING') {
    if (next.status_text === '') return { lines: [] };
    return { lines: [c.dim(`… ${next.status_text}`)], note: next.status_text };
  }
  if (next.state === 'TASK_STATE_INPUT_REQUIRED' && next.sub_state === 'awaiting-answer') {
    const { question, options } = questionOf(next.status_text);
    return {
      lines: [
        `${c.yellow('agent asks ›')} ${question}`,
        ...options.map((answer, index) => `  ${index + 1}) ${answer}`),
        ...(options.length > 0 ? [c.dim('  (answer with a number or in your own words)')] : []),
      ],
      answers: options,
    };
  }
  return { lines: settledLines(next, c), answers: [] };
}

/** The status of a task that asks no question: approval, review, its end, or its reply. */
function settledLines(next: TaskView, c: Colors): string[] {
  if (isAwaitingApproval(next)) {
    const { calls, until } = approvalPrompt(next.status_text);
    return [
      `${c.yellow('agent asks for approval ›')} ${calls}`,
      c.dim(
        `  (/approve [reason] or /reject [reason]: for every call waiting${until === undefined ? '' : `; unanswered by ${until}, a call is rejected`})`
      ),
    ];
  }
  if (next.state === 'TASK_STATE_INPUT_REQUIRED' && next.sub_state === 'awaiting-budget') {
    return [
      `${c.yellow('agent stopped at its budget ›')} ${next.status_text}`,
      c.dim(
        '  (/budget <limit>=<n> to raise it, e.g. /budget model_calls=20; or /complete, /cancel)'
      ),
    ];
  }
  if (next.state === 'TASK_STATE_INPUT_REQUIRED' && next.sub_state === 'awaiting-review') {
    return [
      `${c.yellow('agent asks for a review ›')} ${next.status_text}`,
      c.dim('  (reply, /reject <criterion> <reason>, or /complete to accept it as it is)'),
    ];
  }
  if (isTerminal(next)) {
    return [
      `${c.bold(`task ${stateLabel(next.state)}`)}${next.status_text === '' ? '' : `: ${next.status_text}`}`,
    ];
  }
  if (next.status_text !== '') return [`${c.green('agent ›')} ${next.status_text}`];
  if (next.state === 'TASK_STATE_INPUT_REQUIRED') {
    return [c.dim(`(${stateText(c, next.state, next.sub_state)})`)];
  }
  return [];
}
