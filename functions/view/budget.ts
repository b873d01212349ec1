import type { TaskView } from '../core/a2a/task-view.schema.js';

const count = (value: number) => Math.round(value).toLocaleString('en-US');
const dollars = (value: number) => `$${value.toFixed(value < 1 ? 4 : 2)}`;

/**
 * A task's budget as spent of allowed, one figure per limit set (`$0.0123 of $5.00 · model calls
 * 3 of 40`); null for a task without a budget. What the task itself has spent: its own calls.
 */
export const budgetText = (view: Pick<TaskView, 'budget' | 'usage'>): string | null => {
  const { budget, usage } = view;
  if (budget === null) return null;
  const spent = {
    usd: usage?.cost_usd ?? 0,
    input_tokens: usage?.input_tokens ?? 0,
    output_tokens: usage?.output_tokens ?? 0,
    model_calls: usage?.model_calls ?? 0,
  };
  const parts: string[] = [];
  if (budget.usd !== undefined) parts.push(`${dollars(spent.usd)} of ${dollars(budget.usd)}`);
  if (budget.input_tokens !== undefined)
    parts.push(`input tokens ${count(spent.input_tokens)} of ${count(budget.input_tokens)}`);
  if (budget.output_tokens !== undefined)
    parts.push(`output tokens ${count(spent.output_tokens)} of ${count(budget.output_tokens)}`);
  if (budget.model_calls !== undefined)
    parts.push(`model calls ${count(spent.model_calls)} of ${count(budget.model_calls)}`);
  return parts.join(' · ');
};
