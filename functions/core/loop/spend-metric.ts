import { TASK_METADATA_KEY } from '../a2a/identifiers.js';
import type { BudgetAmounts, TaskRecord } from '../ports/task-store.js';
import { BUDGET_LIMITS, type Budget, TaskExtensionSchema } from '../task/extension.schema.js';
import type { DefaultBudgets } from './config.js';
import { readUsage } from './usage.js';

/**
 * What one change of a task record adds to the deployment's spend metric (pure): the spend the
 * change put on the task's usage ledger, and how much of its budget the task's tree has used,
 * under the task's type. The stream function publishes it (functions/handlers/stream.ts); it
 * costs no read, only the record's old and new images.
 */

/** The task type of every task whose type the deployment's default budgets do not name. */
export const OTHER_TASK_TYPE = 'other';

/** What one change added to a task's usage ledger: only what a budget limits. */
export interface SpendDelta {
  cost_usd: number;
  input_tokens: number;
  output_tokens: number;
  model_calls: number;
}

export interface SpendMetric {
  /** The task's type if the deployment names it, else `other` (`taskTypeDimension`). */
  taskType: string;
  /** What the change added to the task's ledger; absent when it added nothing. */
  spend?: SpendDelta;
  /**
   * The highest share, over its limits, of its budget the task's tree has used or holds for
   * calls under way: `(budget - left) / budget`, above 1 when a lowered budget is overspent.
   * Absent for a task without a budget and an account.
   */
  budgetUsedShare?: number;
}

/** The task types a deployment names: the keys of its default budgets but `*`. */
export const namedTaskTypes = (defaults: DefaultBudgets | undefined): ReadonlySet<string> =>
  new Set(Object.keys(defaults ?? {}).filter((type) => type !== '*'));

/**
 * A task's type as the metric's dimension: a named type, else `other`, so a client choosing types
 * freely cannot make a metric per type it invents.
 */
export const taskTypeDimension = (type: string | null, named: ReadonlySet<string>): string =>
  type !== null && named.has(type) ? type : OTHER_TASK_TYPE;

const MICRO = 1_000_000;
const roundedMicro = (value: number): number => Math.round(value * MICRO) / MICRO;

/** What `after`'s ledger holds beyond `before`'s; undefined when nothing was added. */
export const spendDelta = (
  before: TaskRecord | undefined,
  after: TaskRecord
): SpendDelta | undefined => {
  const was = before === undefined ? undefined : readUsage(before.task);
  const now = readUsage(after.task);
  const added = (to: number, from: number | undefined) => Math.max(0, to - (from ?? 0));
  const delta: SpendDelta = {
    cost_usd: roundedMicro(added(now.cost_usd, was?.cost_usd)),
    input_tokens: added(now.input_tokens, was?.input_tokens),
    output_tokens: added(now.output_tokens, was?.output_tokens),
    model_calls: added(now.model_calls, was?.model_calls),
  };
  return Object.values(delta).some((value) => value > 0) ? delta : undefined;
};

/** The highest share of `budget` used, over the limits both it and the account have. */
export const budgetUsedShare = (
  budget: Budget | undefined,
  available: BudgetAmounts | undefined
): number | undefined => {
  if (budget === undefined || available === undefined) return undefined;
  const shares = BUDGET_LIMITS.flatMap((limit) => {
    const limitOf = budget[limit];
    const left = available[limit];
    return limitOf === undefined || left === undefined ? [] : [(limitOf - left) / limitOf];
  });
  return shares.length === 0 ? undefined : roundedMicro(Math.max(...shares));
};

/**
 * What to publish for the change from `before` to `after`: undefined when it added no spend and
 * the task has no budget. A task whose extension does not parse counts as `other`, without a
 * budget: a metric never fails the change it reports.
 */
export const spendMetricOf = (
  before: TaskRecord | undefined,
  after: TaskRecord,
  named: ReadonlySet<string>
): SpendMetric | undefined => {
  const parsed = TaskExtensionSchema.safeParse(after.task.metadata?.[TASK_METADATA_KEY]);
  const extension = parsed.success ? parsed.data : undefined;
  const spend = spendDelta(before, after);
  const share = budgetUsedShare(extension?.budget, after.budgetAvailable);
  if (spend === undefined && share === undefined) return undefined;
  return {
    taskType: taskTypeDimension(extension?.type ?? null, named),
    ...(spend === undefined ? {} : { spend }),
    ...(share === undefined ? {} : { budgetUsedShare: share }),
  };
};
