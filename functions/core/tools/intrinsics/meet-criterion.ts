import * as z from 'zod';
import { resolveStep } from '../../plan/plan.js';
import { criterionLabel, resolveCriterion } from '../../task/criteria.js';
import type { TaskExtension, TaskRef } from '../../task/extension.schema.js';
import { defineIntrinsic, refuse, type ToolOutcome } from '../tool.js';

/** Evidence is read by people and sits on the task: long content belongs in a step or sub-task. */
export const EVIDENCE_LIMIT = 2_000;

export const MeetCriterionInputSchema = z.strictObject({
  criterion: z
    .string()
    .min(1)
    .describe("The criterion's id as listed (c1, c2, ...) or its position (1, 2, ...)."),
  evidence: z
    .string()
    .min(1)
    .max(EVIDENCE_LIMIT)
    .describe('What shows the criterion holds, in words a reviewer can check.'),
  steps: z
    .array(z.string().min(1))
    .default([])
    .describe('Plan steps (id or name) whose output shows it.'),
  sub_tasks: z
    .array(z.string().min(1))
    .default([])
    .describe('Ids of sub-tasks whose result shows it.'),
  artifacts: z
    .array(z.string().min(1))
    .default([])
    .describe("Ids of this task's artifacts that show it."),
});

type Links = { steps: string[]; tasks: TaskRef[]; artifacts: string[] };

export const meetCriterion = defineIntrinsic({
  name: 'meet_criterion',
  description:
    'Mark an acceptance criterion met, with the evidence that shows it (a delegated task completes only when every criterion is met).',
  input: MeetCriterionInputSchema,
  idempotent: true,
  run: (args, { extension, agentId, artifactIds, now }) => {
    const criterion = resolveCriterion(extension.acceptance_criteria, args.criterion);
    if (criterion === undefined) {
      const known = extension.acceptance_criteria.map((c) => c.id).join(', ') || 'none';
      return refuse(
        'criterion.unknown',
        `no acceptance criterion ${JSON.stringify(args.criterion)}; the task has: ${known}`
      );
    }
    const links = resolveLinks(args, extension, artifactIds);
    if ('ok' in links) return links;
    const met = extension.acceptance_criteria.filter((c) => c.met || c.id === criterion.id).length;
    return {
      ok: true,
      command: {
        kind: 'meet_criterion',
        criterionId: criterion.id,
        evidence: { text: args.evidence, ...links },
        metBy: agentId,
        metAt: now,
      },
      result: `criterion ${criterionLabel(criterion)} met (${met} of ${extension.acceptance_criteria.length} met)`,
    };
  },
});

/** The links of the evidence, each checked: a step with an output, a sub-task, an artifact. */
const resolveLinks = (
  args: z.output<typeof MeetCriterionInputSchema>,
  extension: TaskExtension,
  artifactIds: readonly string[]
): Links | ToolOutcome => {
  const steps: string[] = [];
  for (const name of args.steps) {
    if (extension.plan === null) return refuse('plan.missing', 'no plan; call create_plan first');
    const step = resolveStep(extension.plan, name);
    if (step === undefined) {
      return refuse('plan.unknown_step', `no step with id or name ${JSON.stringify(name)}`);
    }
    if (step.output === null) {
      return refuse(
        'criterion.invalid_evidence',
        `step ${step.id} has no output yet to show; record it with complete_step first`
      );
    }
    steps.push(step.id);
  }
  const tasks: TaskRef[] = [];
  for (const id of args.sub_tasks) {
    const row = extension.sub_tasks.find((candidate) => candidate.task_id === id);
    if (row === undefined) {
      return refuse('criterion.invalid_evidence', `no sub-task ${JSON.stringify(id)} on this task`);
    }
    tasks.push({ task_id: row.task_id, agent: row.agent });
  }
  const unknown = args.artifacts.filter((id) => !artifactIds.includes(id));
  if (unknown.length > 0) {
    return refuse(
      'criterion.invalid_evidence',
      `no artifact ${unknown.map((id) => JSON.stringify(id)).join(', ')} on this task`
    );
  }
  return { steps, tasks, artifacts: args.artifacts };
};
