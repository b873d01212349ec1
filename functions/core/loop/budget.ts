import type { TaskRecord } from '../ports/task-store.js';
import { readExtension } from '../task/a2a-task.js';
import {
  BUDGET_LIMITS,
  type Budget,
  type BudgetLimit,
  type TaskExtension,
} from '../task/extension.schema.js';
import { whoMay } from '../task/permissions.js';
import { spentOf } from './budget-account.js';
import { overCompactionBudget } from './compaction.js';
import type { DefaultBudgets, LoopConfig } from './config.js';
import { estimateTokens } from './context.js';
import { priceOf } from './prices.js';
import { costOf, type TaskUsage } from './usage.js';

/**
 * A budget is enforced before the call: the worst a model call could cost (the prompt as
 * estimated, every output token the request allows, the model's price) is added to what the task
 * has spent, and a call that could take it past any limit is not made.
 */

/**
 * The most a turn's model calls could add to the ledger: one call, or two when the request is
 * compacted first (the summary's call). `usd` undefined: the model has no price.
 */
export interface CallWorstCase {
  model_calls: 1 | 2;
  input_tokens: number;
  output_tokens: number;
  usd: number | undefined;
}

/**
 * The worst case of the next call, on `record` as it will be sent (`characters` of request), to
 * `model` (the task's, else the deployment's).
 */
export const worstCaseOf = (
  record: TaskRecord,
  characters: number,
  model: string | undefined,
  config: Pick<LoopConfig, 'maxOutputTokens' | 'prices'>
): CallWorstCase => {
  const price = priceOf(config.prices, model);
  const input = estimateTokens(record, characters);
  const output = config.maxOutputTokens;
  return {
    model_calls: 1,
    input_tokens: input,
    output_tokens: output,
    usd:
      price === undefined
        ? undefined
        : costOf({ inputTokens: input, cachedInputTokens: 0, outputTokens: output }, price),
  };
};

type Limit = BudgetLimit;

const shown = (limit: Limit, amount: number): string =>
  limit === 'usd' ? `$${amount.toFixed(4)}` : `${Math.ceil(amount).toLocaleString('en-US')}`;

const NAMES: Record<Limit, string> = {
  usd: 'cost',
  input_tokens: 'input tokens',
  output_tokens: 'output tokens',
  model_calls: 'model calls',
};

/** One limit the next call could pass: what was spent, what the call may need, the limit. */
export interface Overrun {
  limit: Limit;
  spent: number;
  needed: number;
  budget: number;
}

/**
 * The limits of `budget` the next call could pass (pure); empty when it may be made. A cost limit
 * does not hold a call whose model has no price: its tokens and calls are still counted.
 */
export const overrunsOf = (
  budget: Budget | undefined,
  spent: TaskUsage,
  next: CallWorstCase
): Overrun[] => {
  if (budget === undefined) return [];
  return BUDGET_LIMITS.flatMap((limit) => {
    const allowed = budget[limit];
    const needed = next[limit];
    if (allowed === undefined || needed === undefined) return [];
    const used = spentOf(spent, limit);
    return used + needed > allowed ? [{ limit, spent: used, needed, budget: allowed }] : [];
  });
};

/**
 * The status message of a task stopped by its budget: what was spent, needed (with the summary's
 * call when the request is compacted first), and who may raise it.
 */
export const budgetStopText = (overruns: readonly Overrun[], compacting = false): string =>
  [
    'The budget is reached: the next model call could exceed it, so it was not made.',
    ...(compacting
      ? ['The request is compacted before it is sent: what it needs counts the summary call too.']
      : []),
    ...overruns.map(
      ({ limit, spent, needed, budget }) =>
        `- ${NAMES[limit]}: spent ${shown(limit, spent)} of ${shown(limit, budget)}; the next call may need up to ${shown(limit, needed)}`
    ),
    `${capitalised(whoMay('set_budget'))} may raise it with a set_budget control; complete or cancel end the task as usual.`,
  ].join('\n');

/** What a turn's budget check needs of the loop's configuration. */
export type BudgetCheckConfig = Pick<
  LoopConfig,
  | 'maxOutputTokens'
  | 'defaultModel'
  | 'prices'
  | 'compactionFraction'
  | 'contextWindowTokens'
  | 'turnBudgetTokens'
>;

/**
 * The worst case of the task's next call, to its model (the task's, else the deployment's), on
 * the request as assembled before compaction. A request the built-in rule compacts first costs a
 * summary call too: its input is part of the request's and its output is bounded alike, so each
 * limit is counted twice. The call after compaction is no larger than the request before it.
 */
export const nextCallWorstCase = (
  record: TaskRecord,
  characters: number,
  config: BudgetCheckConfig
): CallWorstCase => {
  const model = readExtension(record.task).model ?? config.defaultModel;
  const call = worstCaseOf(record, characters, model, config);
  if (!overCompactionBudget(call.input_tokens, config)) return call;
  return {
    model_calls: 2,
    input_tokens: 2 * call.input_tokens,
    output_tokens: 2 * call.output_tokens,
    usd: call.usd === undefined ? undefined : 2 * call.usd,
  };
};

/**
 * The status message of a task stopped because a budget it draws on has too little left: its
 * own (spent by its sub-tasks too) or an ancestor's, named, with who may raise it.
 */
export const heldBudgetStopText = (holderId: string, taskId: string): string =>
  [
    holderId === taskId
      ? "The budget is reached: with what this task's sub-tasks have spent, the next model call could exceed what it has left, so it was not made."
      : `The budget of task ${holderId}, which this task draws on, is reached: the next model call could exceed what it has left, so it was not made.`,
    `${capitalised(whoMay('set_budget'))} of task ${holderId} may raise it with a set_budget control; complete or cancel end this task as usual.`,
  ].join('\n');

const capitalised = (text: string): string => `${text[0]?.toUpperCase() ?? ''}${text.slice(1)}`;

/** A budget's limits, `usd 5, model_calls 40`; `none` for no budget. */
export const limitsText = (budget: Budget | undefined): string =>
  budget === undefined
    ? 'none'
    : Object.entries(budget)
        .map(([limit, value]) => `${limit} ${value}`)
        .join(', ');

/** A new task's extension with the deployment's budget for its type, if it has none (pure). */
export const withDefaultBudget = (
  extension: TaskExtension,
  defaults: DefaultBudgets | undefined
): TaskExtension => {
  if (extension.budget !== undefined || defaults === undefined) return extension;
  const budget = defaults[extension.type ?? '*'] ?? defaults['*'];
  return budget === undefined ? extension : { ...extension, budget };
};

/**
 * The deployment's budgets in one line for a start banner (`* usd 5, model_calls 40 · research
 * usd 20`), and a warning when a cost limit cannot cap the model new tasks run with (it has no
 * price); undefined without default budgets.
 */
export const defaultBudgetsNotice = (
  defaults: DefaultBudgets | undefined,
  model: string | undefined,
  prices: LoopConfig['prices']
): { line: string; warning?: string } | undefined => {
  const types = Object.entries(defaults ?? {});
  if (types.length === 0) return undefined;
  const line = types.map(([type, budget]) => `${type} ${limitsText(budget)}`).join(' · ');
  const capsCost = types.some(([, budget]) => budget.usd !== undefined);
  const priced = priceOf(prices, model) !== undefined;
  if (!capsCost || priced) return { line };
  return {
    line,
    warning: `no price for ${model ?? 'the model'} in TINY_HARNESS_MODEL_PRICES: a usd limit does not cap its calls (tokens and calls still do)`,
  };
};
