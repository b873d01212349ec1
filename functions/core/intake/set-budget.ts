import { accountCreditOf } from '../loop/budget-account.js';
import { type Change, withBudgetCredits, withRecord, withTaskEvent } from '../loop/records.js';
import { readUsage } from '../loop/usage.js';
import type { Wake } from '../ports/waker.js';
import { readExtension, subStateOf, withExtension } from '../task/a2a-task.js';
import type { Budget } from '../task/extension.schema.js';
import { requirePermission } from '../task/permissions.js';
import { wakingTheTask } from './wake.js';

export interface BudgetChange {
  /** The participant setting it: a reporter or an admin of the task. */
  sender: string;
  /** The limits to set; a limit not named keeps its value. */
  budget: Budget;
}

/**
 * A reporter or an admin sets the task's budget (pure): the limits named replace theirs, the
 * others stay, the task's account moves with them (`accountCreditOf`), and the task's updated Task
 * goes on its stream. A task waiting in `awaiting-budget`
 * is woken to try its call again (still over the new budget, it waits again); any other task is
 * not woken, as a budget is nothing for the model to read. Anyone else is refused and nothing is
 * applied (`participant.role_required`; a stranger is not a member).
 */
export const withBudgetSet = (
  change: Change,
  options: BudgetChange
): { change: Change; wake: Wake } => {
  const extension = readExtension(change.record.task);
  requirePermission(extension, options.sender, 'set_budget');
  const budget: Budget = { ...extension.budget, ...options.budget };
  // A budget without an account (given before accounts existed) opens one now, whole.
  const before = change.record.budgetAvailable === undefined ? undefined : extension.budget;
  const credit = accountCreditOf(before, budget, readUsage(change.record.task));
  const next = withBudgetCredits(
    withTaskEvent(
      withRecord(change, (current) => ({
        ...current,
        task: withExtension(current.task, { ...readExtension(current.task), budget }),
      }))
    ),
    Object.keys(credit).length === 0 ? [] : [{ taskId: change.record.task.id, amounts: credit }]
  );
  if (subStateOf(change.record.task) !== 'awaiting-budget')
    return { change: next, wake: { action: 'none' } };
  return wakingTheTask(next);
};
