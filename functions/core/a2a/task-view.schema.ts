import * as z from 'zod';

const TaskRefViewSchema = z.strictObject({
  task_id: z.string(),
  /** The agent the task lives on; null for a task on this harness. */
  agent: z.string().nullable(),
});

/**
 * A task as the renderers show it: its A2A state and, when the agent speaks the tiny-harness task
 * extension, its goal, criteria, participants, parent and sub-task rows, plan and usage. What both
 * renderers draw (functions/view), and the `--json` form of `tiny-harness tasks`, `watch` and
 * `send` (published as schemas/task-view.v1.json).
 */
const usageFigures = {
  model_calls: z.number(),
  input_tokens: z.number(),
  cached_input_tokens: z.number(),
  output_tokens: z.number(),
  cost_usd: z.number(),
};

export const TaskViewSchema = z
  .strictObject({
    id: z.string(),
    context_id: z.string(),
    /** The A2A state name (`TASK_STATE_WORKING`, ...). */
    state: z.string(),
    sub_state: z.string().nullable(),
    /** The status message's text: the agent's reply, a question, a reason. */
    status_text: z.string(),
    updated_at: z.string().nullable(),
    /** Whether the task carries the tiny-harness task extension (else only the above is known). */
    extension: z.boolean(),
    name: z.string().nullable(),
    goal: z.string().nullable(),
    description: z.string(),
    acceptance_criteria: z.array(
      z.strictObject({
        id: z.string(),
        text: z.string(),
        met: z.boolean(),
        /** Who met it: the agent, or the participant whose completion accepted it. */
        met_by: z.string().nullable(),
        /** The evidence's text. */
        evidence: z.string().nullable(),
        /** The last rejection by a reviewer, while the criterion is unmet again. */
        rejection: z.strictObject({ by: z.string(), reason: z.string() }).nullable(),
      })
    ),
    participants: z.array(
      z.strictObject({
        id: z.string(),
        kind: z.string(),
        role: z.string(),
        display_name: z.string(),
      })
    ),
    /** The tasks this one is a sub-task of. */
    parent_tasks: z.array(TaskRefViewSchema),
    sub_tasks: z.array(
      TaskRefViewSchema.extend({
        state: z.string(),
        sub_state: z.string().nullable(),
        /** The child's acceptance criteria met / total; null while not known. */
        criteria: z.strictObject({ met: z.number(), total: z.number() }).nullable(),
      })
    ),
    plan: z
      .strictObject({
        steps: z.array(
          z.strictObject({
            id: z.string(),
            name: z.string(),
            description: z.string(),
            state: z.enum(['pending', 'active', 'done', 'failed']),
            output: z.string().nullable(),
            depends_on: z.array(z.string()),
            /** The sub-tasks working on this step. */
            linked_tasks: z.array(TaskRefViewSchema),
          })
        ),
      })
      .nullable(),
    /** The most the task may spend on model calls (the limits set); null without a budget. */
    budget: z
      .strictObject({
        usd: z.number().optional(),
        input_tokens: z.number().optional(),
        output_tokens: z.number().optional(),
        model_calls: z.number().optional(),
      })
      .nullable(),
    usage: z
      .strictObject({
        ...usageFigures,
        /**
         * The whole sub-task tree's total, children on remote agents as their agents report
         * them, and the tasks whose usage is unknown; null for a task without children.
         */
        tree: z.strictObject({ ...usageFigures, unknown: z.array(z.string()) }).nullable(),
      })
      .nullable(),
  })
  .describe('A task as tiny-harness shows it (tiny-harness tasks/watch/send --json).');
export type TaskView = z.infer<typeof TaskViewSchema>;
