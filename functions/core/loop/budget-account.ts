import type { BudgetAmounts, BudgetEntry, TaskRecord } from '../ports/task-store.js';
import { readExtension } from '../task/a2a-task.js';
import { BUDGET_LIMITS, type Budget, type BudgetLimit } from '../task/extension.schema.js';
import type { SummaryCall } from './compaction.js';
import type { ModelCall } from './invoke-model.js';
import type { BudgetHolder } from './loop-state.schema.js';
import type { TaskUsage } from './usage.js';

/**
 * A budget holds a whole tree: each budget has an account beside its task's record (what it has
 * left), and every model call under the task (its own, its descendants' on this harness) takes its
 * worst case from every account above it before it is made, and gives back what it did not use
 * with its response. An account is a number per limit, so the check is the store's condition
 * "has at least this much left", with no read of the ancestors and no lock.
 */

/** What the ledger `usage` has spent of `limit`. Cached input is input: counted in input_tokens. */
export const spentOf = (usage: TaskUsage, limit: BudgetLimit): number => {
  switch (limit) {
    case 'usd':
      return usage.cost_usd;
    case 'input_tokens':
      return usage.input_tokens;
    case 'output_tokens':
      return usage.output_tokens;
    case 'model_calls':
      return usage.model_calls;
  }
};

/** `a + b`, limit by limit, over the limits either names. */
export const addAmounts = (a: BudgetAmounts, b: BudgetAmounts): BudgetAmounts => {
  const sum: BudgetAmounts = { ...a };
  for (const [limit, amount] of Object.entries(b) as [BudgetLimit, number][]) {
    sum[limit] = (sum[limit] ?? 0) + amount;
  }
  return sum;
};

/** The limits a budget has, in the order of `BUDGET_LIMITS`. */
export const limitsOfBudget = (budget: Budget): BudgetLimit[] =>
  BUDGET_LIMITS.filter((limit) => budget[limit] !== undefined);

/**
 * What a budget change puts in the task's account (pure): a raised or lowered limit moves it by
 * the difference; a limit the budget had not, opens at the limit less what the task itself has
 * spent of it (its descendants' spend before that moment is not charged to it).
 */
export const accountCreditOf = (
  before: Budget | undefined,
  after: Budget,
  spent: TaskUsage
): BudgetAmounts => {
  const credit: BudgetAmounts = {};
  for (const limit of limitsOfBudget(after)) {
    const now = after[limit] as number;
    const was = before?.[limit];
    const delta = was === undefined ? now - spentOf(spent, limit) : now - was;
    if (delta !== 0) credit[limit] = delta;
  }
  return credit;
};

/**
 * The budgets a task's calls draw on (pure): its own, then those of its ancestors on this harness,
 * nearest first. Empty for a task under no budget: its calls take nothing and cost no write. A
 * child the task creates on this harness draws on the same ones. A budget given by a build before
 * accounts has none until a `set_budget` opens it: its own limits hold through the ledger check.
 */
export const budgetHoldersOf = (record: TaskRecord): BudgetHolder[] => {
  const { budget } = readExtension(record.task);
  const own =
    budget === undefined || record.budgetAvailable === undefined
      ? []
      : [{ taskId: record.task.id, limits: limitsOfBudget(budget) }];
  return [...own, ...record.loop.budgetHolders];
};

/** The holds of a call whose worst case is `worst`: each holder's limits of it. */
export const holdsOf = (
  holders: readonly BudgetHolder[],
  worst: Partial<Record<BudgetLimit, number | undefined>>
): BudgetEntry[] =>
  holders.map(({ taskId, limits }) => ({
    taskId,
    amounts: Object.fromEntries(
      limits.flatMap((limit) => {
        const amount = worst[limit];
        return amount === undefined ? [] : [[limit, amount]];
      })
    ),
  }));

/** What a turn's model call, and the summary's call before it if any, added to the ledger. */
export const usedBy = (call: ModelCall, summary?: SummaryCall): Record<BudgetLimit, number> => ({
  usd: call.record.cost_usd + (summary?.cost_usd ?? 0),
  input_tokens: call.response.usage.inputTokens + (summary?.input_tokens ?? 0),
  output_tokens: call.response.usage.outputTokens + (summary?.output_tokens ?? 0),
  model_calls: summary === undefined ? 1 : 2,
});

/**
 * What a call's response settles with each account it took from (pure): the reserved worst case
 * less what the call used. Negative when the call used more than its estimate: the account is
 * charged what was spent, so it always tells the truth of the ledger.
 */
export const refundsOf = (
  holds: readonly BudgetEntry[],
  used: Partial<Record<BudgetLimit, number>>
): BudgetEntry[] =>
  holds
    .map(({ taskId, amounts }) => ({
      taskId,
      amounts: Object.fromEntries(
        (Object.entries(amounts) as [BudgetLimit, number][]).flatMap(([limit, taken]) => {
          const back = taken - (used[limit] ?? 0);
          return back === 0 ? [] : [[limit, back]];
        })
      ),
    }))
    .filter(({ amounts }) => Object.keys(amounts).length > 0);
