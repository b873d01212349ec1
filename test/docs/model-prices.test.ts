import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_PRICES } from '../../functions/core/loop/prices.js';

const DOC = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');

describe('docs/configuration.md, "Model prices"', () => {
  it('prints the built-in price table, every entry and nothing else', () => {
    const section = DOC.slice(DOC.indexOf('### Model prices'), DOC.indexOf('### Agent skills'));
    const rows = [...section.matchAll(/^\| `([^`]+)` \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|$/gm)];
    const printed = Object.fromEntries(
      rows.map(([, model, input, cached, output]) => [
        model,
        { input: Number(input), cachedInput: Number(cached), output: Number(output) },
      ])
    );
    expect(printed).toEqual(BUILT_IN_PRICES);
  });
});
