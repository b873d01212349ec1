/**
 * The benchmark's figures in the docs are what the benchmark wrote: docs/benchmark.json has the
 * documented shape, and the marked blocks of docs/benchmark.md and the README are exactly what
 * the renderer makes of it (`npm run bench -- --write-docs` writes all three).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { markedBlock } from '../../scripts/bench/docs-block.js';
import { BenchFiguresSchema } from '../../scripts/bench/figures.js';
import { renderReadme, renderReport } from '../../scripts/bench/report.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const figures = () => BenchFiguresSchema.parse(JSON.parse(read('docs/benchmark.json')));

/** Every property name the schema declares, at any depth (record keys are data, not names). */
const propertyNames = (schema: z.core.$ZodType): string[] => {
  const def = schema._zod.def as {
    type: string;
    shape?: Record<string, z.core.$ZodType>;
    innerType?: z.core.$ZodType;
    element?: z.core.$ZodType;
    valueType?: z.core.$ZodType;
  };
  if (def.type === 'object' && def.shape !== undefined) {
    return Object.entries(def.shape).flatMap(([name, inner]) => [name, ...propertyNames(inner)]);
  }
  const inner = def.innerType ?? def.element ?? def.valueType;
  return inner === undefined ? [] : propertyNames(inner);
};

describe('the benchmark’s figures in the docs', () => {
  it('docs/benchmark.json is one whole run in the documented shape', () => {
    const run = figures();
    for (const part of Object.keys(BenchFiguresSchema.shape) as Array<keyof typeof run>) {
      expect(run[part], part).not.toBeNull();
    }
    expect(run.run.options.skip).toEqual([]);
  });

  it('docs/benchmark.md’s results are the rendered tables of that run', () => {
    expect(markedBlock(read('docs/benchmark.md'))).toBe(renderReport(figures(), 'markdown').trim());
  });

  it('the README’s figures are the rendered summary of that run', () => {
    expect(markedBlock(read('README.md'))).toBe(renderReadme(figures()).trim());
  });

  it('docs/benchmark.md names every property of the JSON', () => {
    const doc = read('docs/benchmark.md');
    const section = doc.slice(doc.indexOf('## The JSON'), doc.indexOf('## Results'));
    const names = [...new Set(propertyNames(BenchFiguresSchema))];
    expect(names.length).toBeGreaterThan(80);
    expect(names.filter((name) => !section.includes(`\`${name}\``))).toEqual([]);
  });
});
