/**
 * What a renderer shows of an A2A task: its state, and, when the agent speaks the tiny-harness
 * task extension, the goal, criteria, participants, parent and sub-task rows, and plan. Any A2A
 * 1.0 agent's task reads; the panes appear only when the extension is there.
 *
 * Shared by the terminal renderer (functions/cli) and the web renderer (web/): it runs in Node and
 * in a browser, so it imports no Node module and no validator. Each renderer reads the extension
 * with its own validator of the one published schema (`ExtensionReader`): the terminal with the
 * zod source, the browser with a validator generated from schemas/task-extension.v1.json.
 */
import { type Task, TaskState, type TaskStatus, taskStateToJSON } from '@a2a-js/sdk';
import {
  STATUS_METADATA_KEY,
  TASK_METADATA_KEY,
  USAGE_METADATA_KEY,
} from '../core/a2a/identifiers.js';
import type { TaskView } from '../core/a2a/task-view.schema.js';
import type { TaskExtensionInput, TaskRef } from '../core/task/extension.schema.js';

export type { TaskView };

/** The task extension of `Task.metadata`, validated; undefined when absent or not valid. */
export type ExtensionReader = (raw: unknown) => TaskExtensionInput | undefined;

export const TERMINAL_STATES: ReadonlySet<string> = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);

export const isTerminal = (view: Pick<TaskView, 'state'>) => TERMINAL_STATES.has(view.state);

/** The text parts of a status's message, joined. */
export const textOf = (status: TaskStatus | undefined): string =>
  (status?.message?.parts ?? [])
    .flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []))
    .join('\n');

const subStateOf = (metadata: Record<string, unknown> | undefined): string | null => {
  const status = metadata?.[STATUS_METADATA_KEY] as { sub_state?: unknown } | undefined;
  return typeof status?.sub_state === 'string' ? status.sub_state : null;
};

const refOf = (ref: Pick<TaskRef, 'task_id'> & { agent?: { id: string } | null | undefined }) => ({
  task_id: ref.task_id,
  agent: ref.agent?.id ?? null,
});

export const taskView = (task: Task, readExtension: ExtensionReader): TaskView => {
  const extension = readExtension(task.metadata?.[TASK_METADATA_KEY]);
  const usage = task.metadata?.[USAGE_METADATA_KEY] as
    | (Omit<NonNullable<TaskView['usage']>, 'tree'> & {
        tree?: NonNullable<TaskView['usage']>['tree'];
      })
    | undefined;
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
    description: extension?.description ?? '',
    acceptance_criteria: (extension?.acceptance_criteria ?? []).map((c) => ({
      id: c.id ?? '',
      text: c.text,
      met: c.met ?? false,
      met_by: c.met_by ?? null,
      evidence: c.evidence?.text ?? null,
      rejection: c.rejection ? { by: c.rejection.by, reason: c.rejection.reason } : null,
    })),
    participants: (extension?.participants ?? []).map((p) => ({
      id: p.id,
      kind: p.kind,
      role: p.role,
      display_name: p.display_name ?? '',
    })),
    parent_tasks: (extension?.parent_tasks ?? []).map(refOf),
    sub_tasks: (extension?.sub_tasks ?? []).map((row) => ({
      ...refOf(row),
      state: row.state ?? 'TASK_STATE_SUBMITTED',
      sub_state: row.sub_state ?? null,
      criteria: row.criteria ?? null,
    })),
    plan:
      extension?.plan === null || extension?.plan === undefined
        ? null
        : {
            steps: extension.plan.steps.map((step) => ({
              id: step.id,
              name: step.name,
              description: step.description ?? '',
              state: step.state ?? 'pending',
              output: step.output ?? null,
              depends_on: step.depends_on ?? [],
              linked_tasks: (step.linked_tasks ?? []).map(refOf),
            })),
          },
    budget: extension?.budget ?? null,
    usage:
      usage === undefined
        ? null
        : {
            model_calls: usage.model_calls,
            input_tokens: usage.input_tokens,
            cached_input_tokens: usage.cached_input_tokens,
            output_tokens: usage.output_tokens,
            cost_usd: usage.cost_usd,
            tree: usage.tree ?? null,
          },
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
