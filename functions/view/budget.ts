import type { TaskView } from '../core/a2a/task-view.schema.js';

const count = (value: number) => Math.round(value).toLocaleString('en-US');
const dollars = (value: number) => `$${value.toFixed(value < 1 ? 4 : 2)}`;

/**
 * A task's budget as spent of allowed, one figure per limit set (`$0.0123 of $5.00 · model calls
 * 3 of 40`); null for a task without a budget. A budget holds the task's whole tree, so what was
 * spent is the tree's (the task and its sub-tasks, remote ones as their agents report them), with
 * the task's own share named when its sub-tasks spent some too.
 */
export const budgetText = (view: Pick<TaskView, 'budget' | 'usage'>): string | null => {
  const { budget, usage } = view;
  if (budget === null) return null;
  const own = figuresOf(usage);
  const tree = usage?.tree == null ? own : figuresOf(usage.tree);
  const parts: string[] = [];
  if (budget.usd !== undefined) parts.push(`${dollars(tree.usd)} of ${dollars(budget.usd)}`);
  if (budget.input_tokens !== undefined)
    parts.push(`input tokens ${count(tree.input_tokens)} of ${count(budget.input_tokens)}`);
  if (budget.output_tokens !== undefined)
    parts.push(`output tokens ${count(tree.output_tokens)} of ${count(budget.output_tokens)}`);
  if (budget.model_calls !== undefined)
    parts.push(`model calls ${count(tree.model_calls)} of ${count(budget.model_calls)}`);
  const shared = tree.model_calls !== own.model_calls;
  return shared
    ? `${parts.join(' · ')} (with sub-tasks; this task ${count(own.model_calls)} calls)`
    : parts.join(' · ');
};

const figuresOf = (
  usage:
    | Pick<
        NonNullable<TaskView['usage']>,
        'cost_usd' | 'input_tokens' | 'output_tokens' | 'model_calls'
      >
    | null
    | undefined
) => ({
  usd: usage?.cost_usd ?? 0,
  input_tokens: usage?.input_tokens ?? 0,
  output_tokens: usage?.output_tokens ?? 0,
  model_calls: usage?.model_calls ?? 0,
});
