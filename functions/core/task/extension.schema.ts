import * as z from 'zod';

/**
 * The task extension: what A2A lacks, carried in `Task.metadata` under TASK_METADATA_KEY.
 * These zod schemas are the single source of `docs/a2a/ext/task.json` and `schemas/`.
 *
 * Every object is strict (unknown keys refused), not only the top level as in the reference:
 * everything the reference emits still parses, and a typo never vanishes silently.
 */

export const ROLES = ['assignee', 'reporter', 'watcher', 'admin'] as const;
export const RoleSchema = z.enum(ROLES).describe('What a participant is to the task.');
export type Role = z.infer<typeof RoleSchema>;

export const ParticipantSchema = z
  .strictObject({
    id: z.string().min(1),
    kind: z.enum(['human', 'agent']),
    role: RoleSchema,
    display_name: z.string().default(''),
  })
  .describe('Someone taking part in the task: a person or an agent.');
export type Participant = z.infer<typeof ParticipantSchema>;

export const ENTITY_KINDS = [
  'prompt',
  'skill',
  'tool',
  'llm',
  'system_one',
  'hook',
  'channel',
  'renderer',
  'surface',
  'store',
  'agent',
] as const;

export const EntityRefSchema = z
  .strictObject({
    kind: z.enum(ENTITY_KINDS),
    id: z.string().min(1),
    version: z.string().nullable().default(null),
  })
  .describe('A reference to a registered entity; for a remote agent, kind "agent".');
export type EntityRef = z.infer<typeof EntityRefSchema>;

export const TaskRefSchema = z
  .strictObject({
    task_id: z.string().min(1),
    agent: EntityRefSchema.nullable()
      .default(null)
      .describe('The agent the task lives on; null for a task on this harness.'),
  })
  .describe('A link to another A2A task.');
export type TaskRef = z.infer<typeof TaskRefSchema>;

export const CriterionEvidenceSchema = z
  .strictObject({
    text: z
      .string()
      .min(1)
      .describe('What shows the criterion holds, in words a reviewer can check.'),
    steps: z
      .array(z.string().min(1))
      .default([])
      .describe('Ids of the plan steps whose output shows it.'),
    tasks: z.array(TaskRefSchema).default([]).describe('Sub-tasks whose result shows it.'),
    artifacts: z
      .array(z.string().min(1))
      .default([])
      .describe("Ids of the task's artifacts that show it."),
  })
  .describe('Why a criterion is met: the evidence, and what it links to.');
export type CriterionEvidence = z.infer<typeof CriterionEvidenceSchema>;

export const CriterionRejectionSchema = z
  .strictObject({
    by: z.string().min(1).describe('The reporter or admin who rejected it.'),
    reason: z.string().min(1),
    at: z.string().min(1),
  })
  .describe('The last review that found the criterion unmet; cleared when it is met again.');
export type CriterionRejection = z.infer<typeof CriterionRejectionSchema>;

export const AcceptanceCriterionSchema = z
  .strictObject({
    id: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Stable within the task (c1, c2, ...); the harness assigns one to a criterion without.'
      ),
    text: z.string().min(1),
    met: z.boolean().default(false),
    evidence: CriterionEvidenceSchema.nullable().default(null),
    met_by: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe(
        'Who met it: the agent (meet_criterion), or the participant whose completion accepted it.'
      ),
    met_at: z.string().min(1).nullable().default(null),
    rejection: CriterionRejectionSchema.nullable().default(null),
  })
  .describe('A condition the result must satisfy, and whether (and how) it is met.');

/**
 * Ids for the criteria that have none (a task stored before ids existed, a client that gave
 * none): `c<n>`, n from the criterion's position up, skipping ids already taken, so a list keeps
 * the ids it reads with until it is changed.
 */
const withCriterionIds = <C extends { id?: string | undefined }>(
  criteria: readonly C[]
): Array<C & { id: string }> => {
  const taken = new Set(criteria.flatMap((criterion) => criterion.id ?? []));
  return criteria.map((criterion, index) => {
    if (criterion.id !== undefined) return { ...criterion, id: criterion.id };
    let n = index + 1;
    while (taken.has(`c${n}`)) n++;
    taken.add(`c${n}`);
    return { ...criterion, id: `c${n}` };
  });
};

export const AcceptanceCriteriaSchema = z
  .array(AcceptanceCriterionSchema)
  .superRefine((criteria, context) => {
    const ids = criteria.flatMap((criterion) => criterion.id ?? []);
    const repeated = ids.filter((id, index) => ids.indexOf(id) !== index);
    if (repeated.length > 0) {
      context.addIssue({
        code: 'custom',
        message: `acceptance criterion ids must be unique: ${[...new Set(repeated)].join(', ')}`,
      });
    }
  })
  .transform(withCriterionIds);
export type AcceptanceCriterion = z.output<typeof AcceptanceCriteriaSchema>[number];

/** How many of a task's acceptance criteria are met, of how many. */
export const CriteriaCountSchema = z
  .strictObject({ met: z.int().min(0), total: z.int().min(0) })
  .describe("A task's acceptance criteria: how many are met, of how many.");
export type CriteriaCount = z.infer<typeof CriteriaCountSchema>;

/** The A2A 1.0 state names, as they appear on the wire. */
export const TASK_STATE_NAMES = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
] as const;
export const TaskStateNameSchema = z.enum(TASK_STATE_NAMES);
export type TaskStateName = z.infer<typeof TaskStateNameSchema>;

export const SUB_STATES = [
  'awaiting-next-message',
  'awaiting-answer',
  'awaiting-review',
  'awaiting-approval',
  'awaiting-budget',
] as const;
export const SubStateSchema = z
  .enum(SUB_STATES)
  .describe('Why a task waits in TASK_STATE_INPUT_REQUIRED; absent while it works.');
export type SubState = z.infer<typeof SubStateSchema>;

/** The usage and cost a task has run up, as recorded on the task (USAGE_METADATA_KEY). */
export const TaskUsageSchema = z.strictObject({
  model_calls: z.int().min(0),
  input_tokens: z.int().min(0),
  cached_input_tokens: z.int().min(0),
  output_tokens: z.int().min(0),
  cost_usd: z.number().min(0),
});

/**
 * What a child reports for its whole tree: the usage it knows of, and the ids of the tasks in it
 * whose usage is unknown (a remote agent that reports none). A child on this harness reports its
 * own ledger plus what its children last reported; a remote agent, what it says under our key.
 */
export const ReportedUsageSchema = z
  .strictObject({ usage: TaskUsageSchema, unknown: z.array(z.string()) })
  .describe("A sub-task tree's usage, and the ids of the tasks in it whose usage is unknown.");

export const SubTaskRowSchema = TaskRefSchema.extend({
  state: TaskStateNameSchema.default('TASK_STATE_SUBMITTED').describe(
    "The child's last known A2A state."
  ),
  sub_state: SubStateSchema.nullable().default(null),
  criteria: CriteriaCountSchema.nullable()
    .default(null)
    .describe("The child's acceptance criteria met / total; null while not known."),
  reason: z
    .string()
    .optional()
    .describe(
      'Why the child ended without completing (failed, canceled, rejected), as its agent or its stand-in said; absent otherwise.'
    ),
  usage: ReportedUsageSchema.nullable()
    .optional()
    .describe(
      "Server-owned: what the child's whole tree had used as of its last change that reached the parent; null when its agent reports nothing (unknown, not zero), absent before its first report."
    ),
}).describe("A child task as its parent sees it: the child's own task id and its state.");
export type SubTaskRow = z.infer<typeof SubTaskRowSchema>;

export const STEP_STATES = ['pending', 'active', 'done', 'failed'] as const;
export const StepStateSchema = z.enum(STEP_STATES);
export type StepState = z.infer<typeof StepStateSchema>;

export const StepSchema = z
  .strictObject({
    id: z.string().min(1).describe('The slug of the name.'),
    name: z.string().min(1),
    description: z.string().default(''),
    depends_on: z.array(z.string()).default([]).describe('Ids of the steps this one follows.'),
    output: z.string().nullable().default(null),
    linked_tasks: z.array(TaskRefSchema).default([]),
    state: StepStateSchema.default('pending'),
  })
  .describe('One step of the plan.');
export type Step = z.infer<typeof StepSchema>;

export const PlanRevisionSchema = z
  .strictObject({
    revision: z.int().min(2),
    added: z.array(z.string()).describe('Ids of the steps the revision introduced.'),
    kept: z.array(z.string()).describe('Ids that survived, with their state, output and links.'),
    removed: z
      .array(StepSchema)
      .describe(
        'Steps the revision dropped, with what they reached (state, output, linked tasks) so no progress is lost silently; their description and dependencies are in the audit timeline.'
      ),
  })
  .describe('What one create_plan over an existing plan changed.');
export type PlanRevision = z.infer<typeof PlanRevisionSchema>;

export const PlanSchema = z
  .strictObject({
    steps: z.array(StepSchema),
    revision: z.int().min(1).default(1),
    revisions: z
      .array(PlanRevisionSchema)
      .default([])
      .describe(
        'The latest 20 revisions, oldest first; every plan as attached is in the audit timeline.'
      ),
  })
  .describe(
    'A directed acyclic graph of steps. A cycle, a duplicate id or a dangling dependency is a PlanCycleError (plan.cycle).'
  );
export type Plan = z.infer<typeof PlanSchema>;

export const LIFECYCLES = ['conversation', 'delegated'] as const;
export const LifecycleSchema = z
  .enum(LIFECYCLES)
  .describe('Server-controlled. A conversation parks when idle; a delegated task runs to an end.');
export type Lifecycle = z.infer<typeof LifecycleSchema>;

/**
 * The reasoning effort a task's model runs with. Ours (the reference's values were not
 * recoverable): the four levels OpenAI reasoning models share, mapped per provider by the model
 * adapters (Anthropic: a thinking budget; Bedrock: the model's own field).
 */
export const REASONING_EFFORTS = ['minimal', 'low', 'medium', 'high'] as const;
export const ReasoningEffortSchema = z.enum(REASONING_EFFORTS).describe('Server-controlled.');
export type ReasoningEffort = z.infer<typeof ReasoningEffortSchema>;

/**
 * The most a task may spend on model calls: any of a cost at the deployment's prices, tokens in,
 * tokens out and calls. What it has spent is its usage ledger (`USAGE_METADATA_KEY`). Set by the
 * deployment's default for the task's type and by a reporter's or admin's `set_budget` control.
 */
/** What a budget may limit: a model call adds to each. */
export const BUDGET_LIMITS = ['usd', 'input_tokens', 'output_tokens', 'model_calls'] as const;
export type BudgetLimit = (typeof BUDGET_LIMITS)[number];

export const BudgetSchema = z
  .strictObject({
    usd: z
      .number()
      .positive()
      .max(1_000_000)
      .optional()
      .describe(
        "USD at the deployment's model prices (a model with no price is not capped in dollars)."
      ),
    input_tokens: z.int().positive().max(1e12).optional(),
    output_tokens: z.int().positive().max(1e12).optional(),
    model_calls: z.int().positive().max(1e9).optional(),
  })
  .refine((budget) => Object.keys(budget).length > 0, {
    message: 'a budget names at least one of usd, input_tokens, output_tokens, model_calls',
  })
  .describe(
    'Server-owned: the most the task may spend on model calls. No call is made that could take the task past it; the task waits in awaiting-budget instead.'
  );
export type Budget = z.infer<typeof BudgetSchema>;

/**
 * Fields no participant may set through a task envelope, admins included; an envelope carrying
 * one is refused whole. (A reporter or an admin sets `budget` with a `set_budget` control.)
 */
export const SERVER_CONTROLLED_FIELDS = [
  'lifecycle',
  'model',
  'reasoning_effort',
  'budget',
] as const;

/**
 * The relations the server alone makes: a parent link and a sub-task row exist because the
 * harness created the child (`spawn_subtask`, `create_task_for_participant`, `/sub-task`, a
 * remote child), and the plan is the agent's (`create_plan`). An envelope naming one is refused
 * whole, like the server-controlled fields, on a new task and an existing one alike: a client that
 * could write them could name a task it is not on (cancel it through the cascade, read it through
 * the timeline, write into it as its child).
 */
export const SERVER_OWNED_RELATIONS = [
  'parent_tasks',
  'sub_tasks',
  'plan',
  'forked_from',
  'forks',
] as const;

export const ForkOriginSchema = z
  .strictObject({
    task_id: z.string().min(1).describe('The task this one was forked from, on this harness.'),
    message_id: z
      .string()
      .nullable()
      .describe(
        "The last message of the original's history the fork kept; null when it kept none (a fork from before the first turn)."
      ),
  })
  .describe('Server-owned: where a fork came from. The fork carries the history up to this point.');
export type ForkOrigin = z.infer<typeof ForkOriginSchema>;

/**
 * The most participants a task may have. Each is an index item written in the task's commit, and a
 * commit is one transaction of at most 100 items: an admin replacing a whole cast by another
 * deletes 40 and puts 40, which leaves room for the record, its event and its audit row.
 */
export const MAX_PARTICIPANTS = 40;

/**
 * The most sub-tasks one task may have: each is a row of the task, which every Task event carries
 * whole (the store keeps the rows beside the record, written only when they change). `spawn_subtask`,
 * `create_task_for_participant` and `/sub-task` past it are refused, so the model (or the
 * participant) can act on it.
 */
export const MAX_SUB_TASKS = 1_000;

/** The most steps one `create_plan` may attach, for the same reason. */
export const MAX_PLAN_STEPS = 500;

/**
 * The most the extension may hold, in bytes of its JSON, whatever it holds: the record that
 * carries it is one store item (400 KB) beside the loop state, and every Task event carries it
 * whole again. A tool call that would take it past this is refused (`tool.refused`) and changes
 * nothing (functions/core/tools/task-room.ts).
 */
export const MAX_EXTENSION_BYTES = 200 * 1024;

export const TaskExtensionSchema = z
  .strictObject({
    name: z.string().min(1),
    type: z.string().nullable().default(null),
    goal: z.string().min(1),
    description: z.string().default(''),
    acceptance_criteria: AcceptanceCriteriaSchema.default([]),
    participants: z.array(ParticipantSchema).default([]),
    parent_tasks: z.array(TaskRefSchema).default([]),
    sub_tasks: z
      .array(SubTaskRowSchema)
      .default([])
      .describe(`Server-owned. At most ${MAX_SUB_TASKS} per task: a request for more is refused.`),
    plan: PlanSchema.nullable()
      .default(null)
      .describe(`Server-owned. One create_plan attaches at most ${MAX_PLAN_STEPS} steps.`),
    lifecycle: LifecycleSchema.optional(),
    model: z.string().min(1).optional().describe('Server-controlled: the model id for this task.'),
    reasoning_effort: ReasoningEffortSchema.optional(),
    budget: BudgetSchema.optional(),
    forked_from: ForkOriginSchema.optional(),
    forks: z
      .array(z.string().min(1))
      .optional()
      .describe('Server-owned: the ids of the tasks forked from this one, oldest first.'),
  })
  .describe(
    `tiny-harness task extension data, under Task.metadata[TASK_METADATA_KEY]. At most ${MAX_EXTENSION_BYTES / 1024} KB of JSON: a tool call that would take it past is refused (tool.refused) and changes nothing.`
  );
export type TaskExtension = z.infer<typeof TaskExtensionSchema>;
export type TaskExtensionInput = z.input<typeof TaskExtensionSchema>;

export const StatusExtensionSchema = z
  .strictObject({ sub_state: SubStateSchema.optional() })
  .describe('tiny-harness status extension, under Task.metadata[STATUS_METADATA_KEY].');
export type StatusExtension = z.infer<typeof StatusExtensionSchema>;
