import { boundedLines, countsOf } from '../bounded-lines.js';
import { UnknownStepError } from '../errors.js';
import type {
  Plan,
  PlanRevision,
  Step,
  StepState,
  TaskRef,
  TaskStateName,
} from '../task/extension.schema.js';
import { assertDag } from './plan-graph.js';
import { slugify } from './slug.js';

/**
 * The plan: a DAG of steps the model builds with create_plan and advances with complete_step.
 * Every function is pure and immutable: inputs are never mutated, changes return new objects.
 */

export { assertDag, findCycle } from './plan-graph.js';

/** One step as create_plan receives it: dependencies are step names. */
export interface PlanStepInput {
  name: string;
  description: string;
  depends_on: readonly string[];
}

/** A fresh plan (revision 1) from create_plan's steps; PlanCycleError unless it is a DAG. */
export const buildPlan = (steps: readonly PlanStepInput[]): Plan => {
  const built: Step[] = steps.map((input) => ({
    id: slugify(input.name),
    name: input.name,
    description: input.description,
    depends_on: [...new Set(input.depends_on.map(slugify))],
    output: null,
    linked_tasks: [],
    state: 'pending',
  }));
  assertDag(built);
  return { steps: built, revision: 1, revisions: [] };
};

/** The step with this exact id, else the step whose id is the slug of the given string. */
export const resolveStep = (plan: Plan, idOrName: string): Step | undefined =>
  plan.steps.find((step) => step.id === idOrName) ??
  plan.steps.find((step) => step.id === slugify(idOrName));

const withStep = (plan: Plan, idOrName: string, change: (step: Step) => Step): Plan => {
  const target = resolveStep(plan, idOrName);
  if (target === undefined) throw new UnknownStepError(idOrName);
  return { ...plan, steps: plan.steps.map((step) => (step === target ? change(step) : step)) };
};

/** The step becomes `done` with this output; re-completing a done step overwrites its output. */
export const completeStep = (plan: Plan, idOrName: string, output: string): Plan =>
  withStep(plan, idOrName, (step) => ({ ...step, state: 'done', output }));

/** Links a task to the step; a task already linked (same task_id) leaves the plan as it is. */
export const linkTask = (plan: Plan, idOrName: string, ref: TaskRef): Plan => {
  const target = resolveStep(plan, idOrName);
  if (target === undefined) throw new UnknownStepError(idOrName);
  if (target.linked_tasks.some((linked) => linked.task_id === ref.task_id)) return plan;
  return withStep(plan, target.id, (step) => ({
    ...step,
    linked_tasks: [...step.linked_tasks, ref],
  }));
};

const RUNNING_CHILD: ReadonlySet<TaskStateName> = new Set([
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
]);
const FAILED_CHILD: ReadonlySet<TaskStateName> = new Set([
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);

const stepStateFor = (current: StepState, child: TaskStateName): StepState => {
  if (current === 'pending' && RUNNING_CHILD.has(child)) return 'active';
  if ((current === 'pending' || current === 'active') && FAILED_CHILD.has(child)) return 'failed';
  return current;
};

/**
 * Moves every step linking the task along with the child's A2A state: a pending step turns
 * active while the child runs, a pending or active step fails when the child fails, is
 * cancelled or rejected. A completed child changes nothing (complete_step records the output);
 * a done step never changes. Returns the same plan when nothing changed.
 */
export const applyLinkedTaskState = (plan: Plan, taskId: string, state: TaskStateName): Plan => {
  let changed = false;
  const steps = plan.steps.map((step) => {
    if (!step.linked_tasks.some((linked) => linked.task_id === taskId)) return step;
    const next = stepStateFor(step.state, state);
    if (next === step.state) return step;
    changed = true;
    return { ...step, state: next };
  });
  return changed ? { ...plan, steps } : plan;
};

/** The revisions a plan keeps, the latest: every earlier plan is in the audit timeline. */
export const MAX_PLAN_REVISIONS = 20;

/**
 * Replaces the current plan by the next one without losing progress: a step whose id survives
 * keeps its state, output and links; the revision records the ids added and kept, and what the
 * dropped steps reached; the plan keeps its latest MAX_PLAN_REVISIONS revisions. PlanCycleError
 * (current untouched) unless the next plan is a DAG.
 */

export const revisePlan = (current: Plan | null, next: Plan): Plan => {
  assertDag(next.steps);
  if (current === null) return next;
  const before = new Map(current.steps.map((step) => [step.id, step] as const));
  const after = new Set(next.steps.map((step) => step.id));
  const added: string[] = [];
  const kept: string[] = [];
  const steps = next.steps.map((step): Step => {
    const previous = before.get(step.id);
    if (previous === undefined) {
      added.push(step.id);
      return step;
    }
    kept.push(step.id);
    return {
      ...step,
      state: previous.state,
      output: previous.output,
      linked_tasks: previous.linked_tasks,
    };
  });
  const revision = current.revision + 1;
  const record: PlanRevision = {
    revision,
    added,
    kept,
    // What a dropped step reached (its state, output and links), not what it was to do: the
    // audit timeline has every plan as attached, and a plan revised often must not grow unbounded.
    removed: current.steps
      .filter((step) => !after.has(step.id))
      .map((step) => ({ ...step, description: '', depends_on: [] })),
  };
  // Ids and dependencies all come from `next`, so the merged plan is the DAG checked above.
  return {
    steps,
    revision,
    revisions: [...current.revisions, record].slice(-MAX_PLAN_REVISIONS),
  };
};

/** Pending steps whose dependencies are all done. */
export const readySteps = (plan: Plan): Step[] => {
  const done = new Set(plan.steps.filter((step) => step.state === 'done').map((step) => step.id));
  return plan.steps.filter(
    (step) => step.state === 'pending' && step.depends_on.every((dep) => done.has(dep))
  );
};

/** Steps still to resolve: pending or active. */
export const unresolvedSteps = (plan: Plan): Step[] =>
  plan.steps.filter((step) => step.state === 'pending' || step.state === 'active');

const MARKS: Readonly<Record<StepState, string>> = {
  done: 'x',
  active: '>',
  failed: '!',
  pending: ' ',
};

/**
 * The most characters the plan section takes in the model's context (about 3,000 tokens): a
 * larger plan is shown by what matters now, the rest counted (`boundedLines`).
 */
export const PLAN_VIEW_CHARS = 12_000;
/** A step's output as a large plan's view shows it: the rest is in the plan (GetTask). */
const SHORT_OUTPUT_CHARS = 300;

const stepLine = (step: Step, outputChars: number) => {
  const after = step.depends_on.length > 0 ? ` (after ${step.depends_on.join(', ')})` : '';
  const output =
    step.output === null || step.output === ''
      ? ''
      : ` → ${step.output.length <= outputChars ? step.output : `${step.output.slice(0, outputChars)}…`}`;
  return `- [${MARKS[step.state]}] ${step.id}: ${step.name}${after}${output}`;
};

/**
 * The plan section of the model's context: one line per step, or, for a plan past
 * `PLAN_VIEW_CHARS`, its counts and the steps that matter now (active, failed, ready, then the
 * next pending, then the latest done, outputs cut), each run of the others counted on one line.
 */
export const renderPlanForModel = (plan: Plan | null): string => {
  if (plan === null) return '(no plan yet; create one with create_plan)';
  if (plan.steps.length === 0) return '(the plan has no steps)';
  const whole = plan.steps.map((step) => stepLine(step, Number.POSITIVE_INFINITY));
  if (whole.join('\n').length <= PLAN_VIEW_CHARS) return whole.join('\n');
  const ready = new Set(readySteps(plan).map((step) => step.id));
  const group = (step: Step) =>
    step.state === 'active'
      ? 0
      : step.state === 'failed'
        ? 1
        : ready.has(step.id)
          ? 2
          : step.state === 'pending'
            ? 3
            : 4;
  const header = `(${plan.steps.length} steps: ${countsOf(plan.steps, (step) => step.state)}; the active, failed and ready steps first, then the next pending and the latest done)`;
  const { lines } = boundedLines({
    items: plan.steps,
    line: (step) => stepLine(step, SHORT_OUTPUT_CHARS),
    // Done steps, latest first; any other kind, in plan order.
    rank: (step, index) =>
      group(step) * plan.steps.length + (step.state === 'done' ? plan.steps.length - index : index),
    budget: PLAN_VIEW_CHARS - header.length,
    gap: (hidden) =>
      `- … ${hidden.length} steps not shown: ${countsOf(hidden, (step) => step.state)}`,
  });
  return [header, ...lines].join('\n');
};
