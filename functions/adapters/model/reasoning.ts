import { ModelFailedError } from '../../core/errors.js';
import type { ReasoningEffort } from '../../core/task/extension.schema.js';

/**
 * Extended-thinking budgets (tokens) for providers that take a budget instead of a level
 * (Anthropic, and Anthropic models on Bedrock). `minimal` is the smallest budget they accept.
 */
export const THINKING_BUDGET_TOKENS: Record<ReasoningEffort, number> = {
  minimal: 1_024,
  low: 2_048,
  medium: 8_192,
  high: 24_576,
};

/**
 * Refuses, clearly, a reasoning effort the configured model cannot honour: the task fails with a
 * reason naming the model and the effort, rather than silently running without it.
 */
export const refuseReasoning = (
  provider: string,
  model: string,
  effort: ReasoningEffort
): never => {
  throw new ModelFailedError(
    `${provider} model ${model} does not support reasoning_effort=${effort}; configure a reasoning model or unset it`
  );
};
