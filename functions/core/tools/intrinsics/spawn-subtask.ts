import * as z from 'zod';
import { defineIntrinsic, refuse } from '../tool.js';
import { resolveStepArgument } from './step-argument.js';

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
});

export const spawnSubtask = defineIntrinsic({
  name: 'spawn_subtask',
  description: 'Run a step in context isolation as a sub-task, locally or on a remote agent.',
  input: SpawnSubtaskInputSchema,
  idempotent: false,
  run: (args, { extension, agentIds }) => {
    if (args.agent !== null && !agentIds.includes(args.agent)) {
      const known = agentIds.length > 0 ? agentIds.join(', ') : 'none';
      return refuse('tool.invalid_arguments', `unknown agent ${args.agent}; registered: ${known}`);
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
      },
      result: `sub-task ${args.name} requested`,
    };
  },
});
