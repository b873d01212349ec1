/**
 * The panes as text (brief §7): "Plan · N steps" with each step numbered and marked
 * (○ pending, ◐ active, ● done, ✗ failed), then "→ output" or "depends on …"; the Task pane with
 * the goal, acceptance criteria as [x]/[ ], participants with roles and sub-task rows with their
 * live state. Plain strings, coloured only when the caller's colours are on.
 */
import { type Message, Role } from '@a2a-js/sdk';
import type { Timeline, TimelineEntry } from '../core/audit/timeline.schema.js';
import { budgetText } from '../view/budget.js';
import {
  approvalRequestOf,
  ROW_MARK,
  rowLabel,
  STEP_MARK,
  stateLabel,
  stateTone,
  stateWithSubState,
} from '../view/labels.js';
import { messageText } from '../view/messages.js';
import type { TaskView } from '../view/task-view.js';
import type { Colors } from './colors.js';

export { rowLabel, stateLabel };

export const stateText = (c: Colors, state: string, subState: string | null) => {
  const label = stateWithSubState(state, subState);
  const tone = stateTone(state);
  if (tone === 'done') return c.green(label);
  if (tone === 'failed') return c.red(label);
  if (state === 'TASK_STATE_INPUT_REQUIRED') return c.yellow(label);
  return c.cyan(label);
};

/**
 * An approval request as the chat shows it: the calls that wait, and until when. The line that
 * tells an A2A client which control envelope to send is left out: `/approve` and `/reject` send it.
 */
export const approvalPrompt = (
  statusText: string
): { calls: string; until: string | undefined } => {
  const text = approvalRequestOf(statusText);
  return {
    calls: text
      .split('\n')
      .filter((line) => !line.startsWith('Answer with a control envelope'))
      .join('\n'),
    until: /unanswered by (\S+), a call is rejected/.exec(text)?.[1],
  };
};

export const renderPlan = (view: TaskView, c: Colors): string => {
  const steps = view.plan?.steps ?? [];
  if (view.plan === null) return `${c.bold('Plan')} · none yet`;
  const lines = [`${c.bold('Plan')} · ${steps.length} step${steps.length === 1 ? '' : 's'}`];
  const nameOf = (id: string) => steps.find((step) => step.id === id)?.name ?? id;
  for (const [index, step] of steps.entries()) {
    const mark = STEP_MARK[step.state];
    const colored =
      step.state === 'done'
        ? c.green(mark)
        : step.state === 'failed'
          ? c.red(mark)
          : step.state === 'active'
            ? c.cyan(mark)
            : mark;
    lines.push(`  ${index + 1}. ${colored} ${step.name}`);
    if (step.output !== null) lines.push(c.dim(`       → ${step.output}`));
    else if (step.depends_on.length > 0)
      lines.push(c.dim(`       depends on ${step.depends_on.map(nameOf).join(', ')}`));
  }
  return lines.join('\n');
};

/** A row's criteria count, `  criteria 1/2`; nothing when the child has none or they are unknown. */
export const criteriaText = (row: TaskView['sub_tasks'][number]) =>
  row.criteria === null || row.criteria.total === 0
    ? ''
    : `  criteria ${row.criteria.met}/${row.criteria.total}`;

const oneLine = (text: string, max = 100) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

export const renderTask = (view: TaskView, c: Colors, options = { state: true }): string => {
  const lines = [
    `${c.bold('Task')} · ${view.name ?? view.id}${options.state ? `  ${stateText(c, view.state, view.sub_state)}` : ''}`,
    c.dim(`  id ${view.id}`),
  ];
  if (!view.extension) return lines.join('\n');
  lines.push(`  goal  ${view.goal ?? ''}`);
  if (view.acceptance_criteria.length > 0) {
    const met = view.acceptance_criteria.filter((criterion) => criterion.met).length;
    lines.push(`  acceptance criteria  ${met}/${view.acceptance_criteria.length} met`);
    for (const criterion of view.acceptance_criteria) {
      lines.push(
        `    [${criterion.met ? c.green('x') : ' '}] ${c.dim(criterion.id)} ${criterion.text}`
      );
      if (criterion.met && criterion.evidence !== null)
        lines.push(c.dim(`        ✓ ${criterion.met_by ?? ''}: ${oneLine(criterion.evidence)}`));
      else if (criterion.rejection !== null)
        lines.push(
          c.yellow(
            `        ✗ rejected by ${criterion.rejection.by}: ${oneLine(criterion.rejection.reason)}`
          )
        );
    }
  }
  if (view.participants.length > 0) {
    lines.push(
      `  participants  ${view.participants.map((p) => `${p.id} (${p.role})`).join(' · ')}`
    );
  }
  const budget = budgetText(view);
  if (budget !== null) lines.push(`  budget  ${budget} spent`);
  if (view.sub_tasks.length > 0) {
    lines.push('  sub-tasks');
    for (const row of view.sub_tasks) {
      lines.push(
        `    ${ROW_MARK[row.state] ?? '·'} ${rowLabel(row)}  ${stateText(c, row.state, row.sub_state)}${criteriaText(row)}`
      );
    }
  }
  return lines.join('\n');
};

/** The task, its plan and where it stands: `watch`'s frame, and what `fork` and `show` print. */
export const renderFrame = (view: TaskView, c: Colors, history: string[] = []): string =>
  [
    renderTask(view, c),
    ...(view.extension ? ['', renderPlan(view, c)] : []),
    ...(history.length > 0 ? ['', ...history] : []),
    '',
    `${stateText(c, view.state, view.sub_state)}${view.status_text === '' ? '' : `  ${view.status_text}`}`,
  ].join('\n');

/**
 * The conversation, each message with its id after its first line, dimmed: the id is what
 * `fork --at` and `show --at` take. A message without text (a control envelope) shows as such,
 * so no id is hidden.
 */
export const renderHistory = (history: readonly Message[], c: Colors): string[] => [
  `${c.bold('History')} · ${history.length} message${history.length === 1 ? '' : 's'}`,
  ...history.flatMap((message) => {
    const agent = message.role === Role.ROLE_AGENT;
    const who = agent ? c.green('agent ›') : c.bold('you ›');
    const [first = '', ...rest] = messageText(message).split('\n');
    const indent = ' '.repeat(agent ? 10 : 8);
    return [
      `  ${who} ${first === '' ? c.dim('(no text)') : first}  ${c.dim(`· ${message.messageId}`)}`,
      ...rest.map((line) => `${indent}${line}`),
    ];
  }),
];

/** One line per change, for a stream that is not a terminal (`watch` piped to a file). */
export const changeLine = (view: TaskView, at: Date = new Date()): string => {
  const parts = [at.toISOString().slice(11, 19), stateLabel(view.state)];
  if (view.sub_state !== null) parts[1] = `${parts[1]} (${view.sub_state})`;
  const steps = view.plan?.steps ?? [];
  if (steps.length > 0)
    parts.push(`plan ${steps.filter((s) => s.state === 'done').length}/${steps.length} done`);
  const criteria = view.acceptance_criteria;
  if (criteria.length > 0)
    parts.push(`criteria ${criteria.filter((c) => c.met).length}/${criteria.length} met`);
  if (view.sub_tasks.length > 0) {
    parts.push(
      `sub-tasks ${view.sub_tasks.map((row) => `${rowLabel(row)} ${stateLabel(row.state)}${criteriaText(row) === '' ? '' : ` (${criteriaText(row).trim()})`}`).join(', ')}`
    );
  }
  if (view.status_text !== '') parts.push(view.status_text.replace(/\s+/g, ' ').slice(0, 100));
  return parts.join(' · ');
};

export const renderTaskRow = (view: TaskView, c: Colors): string => {
  const when = view.updated_at === null ? '' : view.updated_at.slice(0, 19).replace('T', ' ');
  const rows = view.sub_tasks.length > 0 ? c.dim(`  ${view.sub_tasks.length} sub-task(s)`) : '';
  return `${view.id}  ${stateText(c, view.state, view.sub_state).padEnd(20)}  ${when}  ${view.name ?? ''}${rows}`;
};

const KIND_LABEL: Partial<Record<TimelineEntry['kind'], string>> = {
  state_changed: 'state',
  model_call: 'model',
  tool_call: 'tool',
  plan_changed: 'plan',
  message_accepted: 'message',
  message_refused: 'refused',
  task_created: 'created',
  child_requested: 'sub-task',
  child_changed: 'sub-task',
  wait_ended: 'wait',
  execution_started: 'execution',
  execution_ended: 'execution',
  step_failed: 'failure',
  task_edited: 'edit',
  approval_requested: 'approval',
  approval_granted: 'approval',
  approval_rejected: 'approval',
  approval_expired: 'approval',
  forked_from: 'fork',
  forked: 'fork',
};

const actorText = (entry: TimelineEntry) => {
  const actor = entry.actor;
  if (actor === null || entry.kind === 'model_call' || entry.kind === 'tool_call') return '';
  if (actor.kind === 'participant') return ` — by ${actor.id}`;
  if (actor.kind === 'child') return ` — by sub-task ${actor.id}`;
  if (actor.kind === 'parent') return ` — by parent ${actor.id}`;
  if (actor.kind === 'agent') return ' — by the agent';
  return ` — by ${actor.kind}${actor.id === null ? '' : ` ${actor.id}`}`;
};

export const renderTimeline = (timeline: Timeline, c: Colors): string => {
  const short = new Map(
    timeline.tasks.map((task) => [
      task.task_id,
      task.depth === 0 ? 'task' : `${'  '.repeat(task.depth - 1)}└ ${task.task_id.slice(0, 8)}`,
    ])
  );
  const lines = [
    `${c.bold('Timeline')} · ${timeline.task_id} · ${timeline.entries.length} entries · ${timeline.tasks.length} task(s)`,
  ];
  if (timeline.trace_id !== null) lines.push(c.dim(`trace ${timeline.trace_id}`));
  for (const entry of timeline.entries) {
    const kind = (KIND_LABEL[entry.kind] ?? entry.kind).padEnd(9);
    const colored =
      entry.kind === 'message_refused' ||
      entry.kind === 'step_failed' ||
      entry.kind === 'approval_rejected' ||
      entry.kind === 'approval_expired'
        ? c.red(kind)
        : entry.kind === 'state_changed' || entry.kind === 'approval_requested'
          ? c.yellow(kind)
          : entry.kind === 'model_call' || entry.kind === 'tool_call'
            ? c.cyan(kind)
            : kind;
    lines.push(
      `${c.dim(entry.at.slice(11, 23))}  ${(short.get(entry.task_id) ?? entry.task_id).padEnd(12)}  ${colored} ${entry.summary}${c.dim(actorText(entry))}`
    );
  }
  for (const gap of timeline.gaps) lines.push(c.red(`missing: ${gap}`));
  return lines.join('\n');
};
