import { limitsOfBudget } from '../loop/budget-account.js';
import { unresolvedSubTasks } from '../loop/completion.js';
import type { BudgetHolder } from '../loop/loop-state.schema.js';
import { changeOf, withLoop, writesNothing } from '../loop/records.js';
import type { TaskRecord } from '../ports/task-store.js';
import type { Wake } from '../ports/waker.js';
import { isTerminalState, readExtension, stateOf, subStateOf } from '../task/a2a-task.js';
import {
  answer,
  commitThen,
  type Facts,
  type NoEffects,
  type Operation,
  type Outcome,
} from '../unit-of-work/operation.js';
import { wakingTheTask } from './wake.js';

/**
 * A budget set on a task reaches every descendant on this harness, each in its own commit: each
 * draws on it with the limits it now has (one that drew on it before it had a budget starts to),
 * and one stopped in `awaiting-budget` is woken to try its call again (still short, it waits
 * again). A remote child keeps its own agent's budget. The cascade follows each one's `wake` once
 * its commit is in.
 */
export interface BudgetSpread {
  /** The task whose budget changed, and its limits. */
  holder: BudgetHolder;
  /** The descendant as the spread left it; undefined when it is gone or has ended. */
  record: TaskRecord | undefined;
  wake: Wake;
}

const NO_WAKE: Wake = { action: 'none' };

/** `holders` drawing on `holder` with its current limits (pure): replaced in place, or added. */
export const withHolder = (
  holders: readonly BudgetHolder[],
  holder: BudgetHolder
): BudgetHolder[] =>
  holders.some((entry) => entry.taskId === holder.taskId)
    ? holders.map((entry) => (entry.taskId === holder.taskId ? holder : entry))
    : [...holders, holder];

const sameLimits = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((limit, index) => b[index] === limit);

/** One descendant's part of a spread (pure). */
export const decideBudgetSpread =
  (holder: BudgetHolder) =>
  ({ record }: Facts<NoEffects, never>): Outcome<BudgetSpread, NoEffects, never> => {
    if (isTerminalState(stateOf(record.task))) {
      return answer({ holder, record: undefined, wake: NO_WAKE });
    }
    const current = record.loop.budgetHolders.find((entry) => entry.taskId === holder.taskId);
    let change = changeOf(record);
    if (current === undefined || !sameLimits(current.limits, holder.limits)) {
      change = withLoop(change, (loop) => ({
        ...loop,
        budgetHolders: withHolder(loop.budgetHolders, holder),
      }));
    }
    let wake: Wake = NO_WAKE;
    if (subStateOf(record.task) === 'awaiting-budget') {
      ({ change, wake } = wakingTheTask(change));
    }
    const result = { holder, record: change.record, wake };
    if (writesNothing(change, record)) return answer(result);
    return commitThen(record, change, result, (committed) => ({ ...result, record: committed }));
  };

export const budgetSpreadOperation = (
  taskId: string,
  holder: BudgetHolder
): Operation<BudgetSpread, NoEffects, never> => ({
  taskId,
  ifAbsent: { result: { holder, record: undefined, wake: NO_WAKE } },
  decide: decideBudgetSpread(holder),
});

/** The spreads to the unresolved children on this harness of `record`, for `holder`. */
const spreadsUnder = (record: TaskRecord, holder: BudgetHolder) =>
  unresolvedSubTasks(record)
    .filter((row) => row.agent === null)
    .map((row) => budgetSpreadOperation(row.task_id, holder));

/** The spreads a budget set on `record` calls for (none without a budget). */
export const budgetSpreadsFrom = (record: TaskRecord): Operation<BudgetSpread>[] => {
  const { budget } = readExtension(record.task);
  if (budget === undefined) return [];
  return spreadsUnder(record, { taskId: record.task.id, limits: limitsOfBudget(budget) });
};

/** The spreads a descendant's part calls for in turn: its own children on this harness. */
export const furtherSpreads = (spread: BudgetSpread): Operation<BudgetSpread>[] =>
  spread.record === undefined ? [] : spreadsUnder(spread.record, spread.holder);
