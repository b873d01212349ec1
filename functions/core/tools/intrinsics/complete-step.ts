import * as z from 'zod';
import { resolveStep } from '../../plan/plan.js';
import { defineIntrinsic, refuse } from '../tool.js';

export const CompleteStepInputSchema = z.strictObject({
  step: z.string().min(1).describe("The step's name (or id)."),
  output: z.string().describe('One paragraph: what the step produced.'),
});

export const completeStep = defineIntrinsic({
  name: 'complete_step',
  description: "Record a step's output and mark it done.",
  input: CompleteStepInputSchema,
  idempotent: true,
  run: (args, { extension }) => {
    if (extension.plan === null) return refuse('plan.missing', 'no plan; call create_plan first');
    const step = resolveStep(extension.plan, args.step);
    if (step === undefined) {
      return refuse('plan.unknown_step', `no step with id or name ${JSON.stringify(args.step)}`);
    }
    return {
      ok: true,
      command: { kind: 'complete_step', stepId: step.id, output: args.output },
      result: `step ${step.id} done`,
    };
  },
});
