/**
 * What the renderer shows of an A2A task: its state, and, when the agent speaks the tiny-harness
 * task extension, the goal, criteria, participants, sub-task rows and plan. Any A2A 1.0 agent's
 * task reads; the panes appear only when the extension is there. Also the `--json` form of a task.
 */
import { type Task, TaskState, type TaskStatus, taskStateToJSON } from '@a2a-js/sdk';
import {
  STATUS_METADATA_KEY,
  TASK_METADATA_KEY,
  USAGE_METADATA_KEY,
} from '../core/a2a/identifiers.js';
import type { TaskView } from '../core/a2a/task-view.schema.js';
import { TaskExtensionSchema } from '../core/task/extension.schema.js';

export type { TaskView };

const TERMINAL = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);

export const isTerminal = (view: Pick<TaskView, 'state'>) => TERMINAL.has(view.state);

/** The text parts of a status's message, joined. */
export const textOf = (status: TaskStatus | undefined): string =>
  (status?.message?.parts ?? [])
    .flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []))
    .join('\n');

const subStateOf = (metadata: Record<string, unknown> | undefined): string | null => {
  const status = metadata?.[STATUS_METADATA_KEY] as { sub_state?: unknown } | undefined;
  return typeof status?.sub_state === 'string' ? status.sub_state : null;
};

export const taskView = (task: Task): TaskView => {
  const parsed = TaskExtensionSchema.safeParse(task.metadata?.[TASK_METADATA_KEY]);
  const extension = parsed.success ? parsed.data : undefined;
  const usage = task.metadata?.[USAGE_METADATA_KEY] as TaskView['usage'] | undefined;
  return {
    id: task.id,
    context_id: task.contextId,
    state: taskStateToJSON(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED),
    sub_state: subStateOf(task.metadata),
    status_text: textOf(task.status),
    updated_at: task.status?.timestamp ?? null,
    extension: extension !== undefined,
    name: extension?.name ?? null,
    goal: extension?.goal ?? null,
    acceptance_criteria: (extension?.acceptance_criteria ?? []).map((c) => ({
      id: c.id,
      text: c.text,
      met: c.met,
      met_by: c.met_by,
      evidence: c.evidence?.text ?? null,
      rejection: c.rejection === null ? null : { by: c.rejection.by, reason: c.rejection.reason },
    })),
    participants: (extension?.participants ?? []).map((p) => ({
      id: p.id,
      kind: p.kind,
      role: p.role,
      display_name: p.display_name,
    })),
    sub_tasks: (extension?.sub_tasks ?? []).map((row) => ({
      task_id: row.task_id,
      agent: row.agent?.id ?? null,
      state: row.state,
      sub_state: row.sub_state,
      criteria: row.criteria,
    })),
    plan:
      extension?.plan === null || extension?.plan === undefined
        ? null
        : {
            steps: extension.plan.steps.map((step) => ({
              id: step.id,
              name: step.name,
              state: step.state,
              output: step.output,
              depends_on: step.depends_on,
            })),
          },
    usage: usage ?? null,
  };
};

/** The view after a status update: the new state and message, the extension as it was. */
export const withStatus = (
  view: TaskView,
  update: {
    status?: TaskStatus | undefined;
    metadata?: Record<string, unknown> | undefined;
  }
): TaskView => ({
  ...view,
  state: taskStateToJSON(update.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED),
  sub_state: subStateOf(update.metadata),
  status_text: textOf(update.status),
  updated_at: update.status?.timestamp ?? view.updated_at,
});
