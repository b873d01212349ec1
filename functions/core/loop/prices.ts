import type { ModelPrice, ModelPrices } from './usage.js';

/**
 * List prices in USD per million tokens (input, cached input read, output) of the models of the
 * three providers, as the providers published them in September 2025: what a call costs, and
 * what a budget in dollars holds, unless `TINY_HARNESS_MODEL_PRICES` names the model (its entry
 * replaces the table's). Prices change: check them against the provider's page before relying
 * on a dollar budget. docs/configuration.md ("Model prices") prints this table.
 */
export const BUILT_IN_PRICES: ModelPrices = {
  // OpenAI (Responses and Chat Completions).
  'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
  'gpt-5-nano': { input: 0.05, cachedInput: 0.005, output: 0.4 },
  'gpt-4.1': { input: 2, cachedInput: 0.5, output: 8 },
  'gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, cachedInput: 0.025, output: 0.4 },
  'gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10 },
  'gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6 },
  o3: { input: 2, cachedInput: 0.5, output: 8 },
  'o3-mini': { input: 1.1, cachedInput: 0.55, output: 4.4 },
  'o4-mini': { input: 1.1, cachedInput: 0.275, output: 4.4 },
  // Anthropic (Messages API, and the same models on Bedrock: `anthropic.<id>`).
  'claude-opus-4-1': { input: 15, cachedInput: 1.5, output: 75 },
  'claude-opus-4': { input: 15, cachedInput: 1.5, output: 75 },
  'claude-sonnet-4-5': { input: 3, cachedInput: 0.3, output: 15 },
  'claude-sonnet-4': { input: 3, cachedInput: 0.3, output: 15 },
  'claude-3-7-sonnet': { input: 3, cachedInput: 0.3, output: 15 },
  'claude-haiku-4-5': { input: 1, cachedInput: 0.1, output: 5 },
  'claude-3-5-haiku': { input: 0.8, cachedInput: 0.08, output: 4 },
  // Amazon Bedrock's own models (on-demand, us-east-1).
  'amazon.nova-premier': { input: 2.5, cachedInput: 0.625, output: 12.5 },
  'amazon.nova-pro': { input: 0.8, cachedInput: 0.2, output: 3.2 },
  'amazon.nova-lite': { input: 0.06, cachedInput: 0.015, output: 0.24 },
  'amazon.nova-micro': { input: 0.035, cachedInput: 0.00875, output: 0.14 },
};

/** The table a deployment prices with: the built-in one, each model it names replaced. */
export const pricesWith = (configured: ModelPrices): ModelPrices => ({
  ...BUILT_IN_PRICES,
  ...configured,
});

/**
 * A model id as the table keys it: without a Bedrock cross-region prefix (`us.`, `eu.`, `apac.`,
 * `global.`) or provider prefix (`anthropic.`), so `us.anthropic.claude-sonnet-4-5-20250929-v1:0`
 * is priced as `claude-sonnet-4-5`.
 */
const bareId = (model: string): string =>
  model.replace(/^(us|eu|apac|global|us-gov)\./, '').replace(/^anthropic\./, '');

/** Whether `id` is the model `key` names, or a dated or versioned id of it. */
const isPricedAs = (id: string, key: string): boolean =>
  id === key || (id.startsWith(key) && /[-.:@]/.test(id[key.length] ?? ''));

/**
 * The price of the first of `models` that `prices` knows (pure): an exact id, else the longest
 * key the id starts with at a `-`, `.`, `:` or `@` (a dated or versioned id, `gpt-4o-2024-08-06`,
 * `claude-sonnet-4-5-20250929`), so `gpt-4o-mini-…` is never priced as `gpt-4o`.
 */
export const priceOf = (
  prices: ModelPrices | undefined,
  ...models: (string | null | undefined)[]
): ModelPrice | undefined => {
  if (prices === undefined) return undefined;
  for (const model of models) {
    if (model === undefined || model === null || model === '') continue;
    const exact = prices[model];
    if (exact !== undefined) return exact;
    const bare = bareId(model);
    const key = Object.keys(prices)
      .filter((candidate) => isPricedAs(model, candidate) || isPricedAs(bare, candidate))
      .sort((a, b) => b.length - a.length)[0];
    if (key !== undefined) return prices[key];
  }
  return undefined;
};
