import * as z from 'zod';
import type { RegisteredAgent } from '../../ports/agent-directory.js';
import type { BudgetAmounts } from '../../ports/task-store.js';
import { type Budget, type BudgetLimit, BudgetSchema } from '../../task/extension.schema.js';
import { defineIntrinsic, type IntrinsicTool, refuse } from '../tool.js';
import { resolveStepArgument } from './step-argument.js';
import { fullOfSubTasks } from './sub-task-room.js';

export const SpawnSubtaskInputSchema = z.strictObject({
  name: z.string().min(1),
  goal: z.string().min(1),
  acceptance_criteria: z.array(z.string().min(1)).default([]),
  agent: z
    .string()
    .min(1)
    .nullable()
    .default(null)
    .describe('A registered remote agent id, or null for this harness.'),
  step: z.string().nullable().default(null).describe('The plan step this sub-task carries out.'),
  budget: BudgetSchema.nullable()
    .default(null)
    .describe(
      "The sub-task's own budget (a sub-task on this harness), no more than this task's has left; without one it draws on this task's."
    ),
});

/** The limits of `budget` over what the task has left, as `usd 5 (left 2.5)`; empty when within. */
const overLeft = (budget: Budget, left: BudgetAmounts | undefined): string[] =>
  left === undefined
    ? []
    : (Object.entries(budget) as [BudgetLimit, number][]).flatMap(([limit, amount]) => {
        const remaining = left[limit];
        return remaining !== undefined && amount > remaining
          ? [`${limit} ${amount} (left ${Math.max(0, remaining)})`]
          : [];
      });

const DESCRIPTION = 'Run a step in context isolation as a sub-task, locally or on a remote agent.';

/**
 * What the model reads of spawn_subtask: the registered remote agents by id (with what each
 * does), so it can pick one, or that there is none. Stable for a deployment, so the prompt's
 * cached prefix is.
 */
export const spawnSubtaskDescription = (agents: readonly RegisteredAgent[]): string =>
  agents.length === 0
    ? DESCRIPTION
    : `${DESCRIPTION} Remote agents (set agent to the id): ${agents
        .map((agent) =>
          agent.description === '' ? agent.id : `${agent.id} (${agent.description})`
        )
        .join('; ')}.`;

/** spawn_subtask, describing the given remote agents. */
export const spawnSubtaskFor = (agents: readonly RegisteredAgent[]): IntrinsicTool => ({
  ...spawnSubtask,
  description: spawnSubtaskDescription(agents),
});

export const spawnSubtask = defineIntrinsic({
  name: 'spawn_subtask',
  description: DESCRIPTION,
  input: SpawnSubtaskInputSchema,
  idempotent: false,
  run: (args, { extension, agentIds, budgetLeft }) => {
    const full = fullOfSubTasks(extension);
    if (full !== undefined) return full;
    if (args.agent !== null && !agentIds.includes(args.agent)) {
      const known = agentIds.length > 0 ? agentIds.join(', ') : 'none';
      return refuse('tool.invalid_arguments', `unknown agent ${args.agent}; registered: ${known}`);
    }
    if (args.budget !== null && args.agent !== null) {
      return refuse(
        'tool.invalid_arguments',
        'a budget is for a sub-task on this harness: a remote agent keeps its own'
      );
    }
    const over = args.budget === null ? [] : overLeft(args.budget, budgetLeft);
    if (over.length > 0) {
      return refuse(
        'tool.invalid_arguments',
        `the sub-task's budget is more than this task's budget has left: ${over.join(', ')}`
      );
    }
    const step = resolveStepArgument(extension, args.step);
    if ('refused' in step) return step.refused;
    return {
      ok: true,
      command: {
        kind: 'spawn_subtask',
        name: args.name,
        goal: args.goal,
        acceptanceCriteria: args.acceptance_criteria,
        agent: args.agent,
        stepId: step.stepId,
        budget: args.budget,
      },
      result: `sub-task ${args.name} requested`,
    };
  },
});
