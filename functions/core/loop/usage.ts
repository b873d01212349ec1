import type { Task } from '@a2a-js/sdk';
import * as z from 'zod';
import { USAGE_METADATA_KEY } from '../a2a/identifiers.js';
import type { ModelUsage } from '../ports/model.js';
import { ReportedUsageSchema, TaskUsageSchema } from '../task/extension.schema.js';

export { ReportedUsageSchema, TaskUsageSchema };

/** A model's prices in USD per million tokens (cached input is the provider's discounted rate). */
export const ModelPriceSchema = z.strictObject({
  input: z.number().min(0),
  cachedInput: z.number().min(0).optional(),
  output: z.number().min(0),
});
export type ModelPrice = z.infer<typeof ModelPriceSchema>;
export const ModelPricesSchema = z.record(z.string(), ModelPriceSchema);
export type ModelPrices = z.infer<typeof ModelPricesSchema>;

export type TaskUsage = z.infer<typeof TaskUsageSchema>;

export const EMPTY_USAGE: TaskUsage = {
  model_calls: 0,
  input_tokens: 0,
  cached_input_tokens: 0,
  output_tokens: 0,
  cost_usd: 0,
};

/** One call's cost: cached input at its own rate (or the input rate when none is set). */
export const costOf = (usage: ModelUsage, price: ModelPrice | undefined): number => {
  if (price === undefined) return 0;
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const fresh = usage.inputTokens - cached;
  return (
    (fresh * price.input +
      cached * (price.cachedInput ?? price.input) +
      usage.outputTokens * price.output) /
    1_000_000
  );
};

export const readUsage = (task: Task): TaskUsage => {
  const parsed = TaskUsageSchema.safeParse(task.metadata?.[USAGE_METADATA_KEY]);
  return parsed.success ? parsed.data : EMPTY_USAGE;
};

/** Sums two ledgers; costs are rounded to a micro-dollar so sums stay readable and stable. */
export const addUsage = (a: TaskUsage, b: TaskUsage): TaskUsage => ({
  model_calls: a.model_calls + b.model_calls,
  input_tokens: a.input_tokens + b.input_tokens,
  cached_input_tokens: a.cached_input_tokens + b.cached_input_tokens,
  output_tokens: a.output_tokens + b.output_tokens,
  cost_usd: Math.round((a.cost_usd + b.cost_usd) * 1_000_000) / 1_000_000,
});

/** The task with one more model call added to its usage ledger. */
export const withCall = (task: Task, usage: ModelUsage, cost: number): Task => {
  const after = addUsage(readUsage(task), {
    model_calls: 1,
    input_tokens: usage.inputTokens,
    cached_input_tokens: usage.cachedInputTokens,
    output_tokens: usage.outputTokens,
    cost_usd: cost,
  });
  return { ...task, metadata: { ...task.metadata, [USAGE_METADATA_KEY]: after } };
};

export type ReportedUsage = z.infer<typeof ReportedUsageSchema>;
