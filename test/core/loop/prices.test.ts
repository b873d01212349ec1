import { describe, expect, it } from 'vitest';
import { BUILT_IN_PRICES, priceOf, pricesWith } from '../../../functions/core/loop/prices.js';

describe('model prices', () => {
  const prices = pricesWith({});

  it('price a model by its id, a dated or versioned id by the longest entry it starts with', () => {
    expect(priceOf(prices, 'gpt-4o')).toEqual(BUILT_IN_PRICES['gpt-4o']);
    expect(priceOf(prices, 'gpt-4o-2024-08-06')).toEqual(BUILT_IN_PRICES['gpt-4o']);
    expect(priceOf(prices, 'gpt-4o-mini-2024-07-18')).toEqual(BUILT_IN_PRICES['gpt-4o-mini']);
    expect(priceOf(prices, 'claude-sonnet-4-5-20250929')).toEqual(
      BUILT_IN_PRICES['claude-sonnet-4-5']
    );
    expect(priceOf(prices, 'claude-sonnet-4-20250514')).toEqual(BUILT_IN_PRICES['claude-sonnet-4']);
    expect(priceOf(prices, 'o3-mini')).toEqual(BUILT_IN_PRICES['o3-mini']);
  });

  it('read a Bedrock id without its cross-region and provider prefixes', () => {
    expect(priceOf(prices, 'us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toEqual(
      BUILT_IN_PRICES['claude-sonnet-4-5']
    );
    expect(priceOf(prices, 'anthropic.claude-3-5-haiku-20241022-v1:0')).toEqual(
      BUILT_IN_PRICES['claude-3-5-haiku']
    );
    expect(priceOf(prices, 'eu.amazon.nova-lite-v1:0')).toEqual(
      BUILT_IN_PRICES['amazon.nova-lite']
    );
  });

  it('never price an id by an entry it only begins with inside a word, nor an unknown model', () => {
    expect(priceOf(prices, 'gpt-4oish')).toBeUndefined();
    expect(priceOf(prices, 'o30')).toBeUndefined();
    expect(priceOf(prices, 'scripted')).toBeUndefined();
    expect(priceOf(prices, undefined, null, '')).toBeUndefined();
    expect(priceOf(undefined, 'gpt-4o')).toBeUndefined();
  });

  it("take the deployment's entries over the table's, and the first id it knows", () => {
    const mine = { input: 1, cachedInput: 1, output: 1 };
    const configured = pricesWith({ 'gpt-4o': mine, 'my-model': mine });
    expect(priceOf(configured, 'gpt-4o-2024-08-06')).toEqual(mine);
    expect(priceOf(configured, 'unknown', 'my-model')).toEqual(mine);
    expect(priceOf(configured, 'gpt-5', 'my-model')).toEqual(BUILT_IN_PRICES['gpt-5']);
  });
});
