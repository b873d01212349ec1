import * as z from 'zod';
import { PlanCycleError } from '../../errors.js';
import { buildPlan, revisePlan } from '../../plan/plan.js';
import { MAX_PLAN_STEPS } from '../../task/extension.schema.js';
import { defineIntrinsic, refuse } from '../tool.js';

export const CreatePlanInputSchema = z.strictObject({
  steps: z
    .array(
      z.strictObject({
        name: z.string().min(1).describe('A short name; the step id is its slug.'),
        description: z.string().describe('What the step does and what it produces.'),
        depends_on: z
          .array(z.string())
          .default([])
          .describe('Names of the steps that must be done first.'),
      })
    )
    .min(1)
    .max(MAX_PLAN_STEPS)
    .describe(`At most ${MAX_PLAN_STEPS} steps.`),
});

export const createPlan = defineIntrinsic({
  name: 'create_plan',
  description:
    'Attach a plan: a DAG of steps for the current task. A revised plan keeps the progress of steps whose names survive.',
  input: CreatePlanInputSchema,
  idempotent: true,
  run: (args, { extension }) => {
    try {
      const plan = revisePlan(extension.plan, buildPlan(args.steps));
      const revision = plan.revision > 1 ? ` (revision ${plan.revision})` : '';
      return {
        ok: true,
        command: { kind: 'attach_plan', plan },
        result: `plan attached with ${plan.steps.length} steps${revision}`,
      };
    } catch (error) {
      if (error instanceof PlanCycleError) return refuse('plan.cycle', error.message);
      throw error;
    }
  },
});
