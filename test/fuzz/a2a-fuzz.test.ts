import { describe, expect, it } from 'vitest';
import { inProcessTarget } from './in-process-target.js';
import { describeReport, runFuzz } from './run.js';

/**
 * Issue 24, "no input reaches an internal error": a few thousand fuzzed requests, both bindings,
 * against the A2A handler as the Lambda runs it. Every one gets a typed answer in its binding's
 * shape, and no clearly wrong-typed field is read as something else. The seed is fixed, so a
 * failure is the same on every run; `npm run fuzz` runs more, with any seed, or against a stack.
 */
describe('the A2A handler under fuzzed requests', () => {
  it('answers 3,000 of them with no internal error and no coerced wrong type', async () => {
    const target = inProcessTarget();

    const report = await runFuzz(target, { seed: 24, requests: 3_000 });

    const summary = describeReport(report);
    expect(report.outcomes.internal ?? 0, summary).toBe(0);
    expect(report.outcomes.shape ?? 0, summary).toBe(0);
    expect(report.outcomes.coerced ?? 0, summary).toBe(0);
    expect(report.outcomes['wrong-refusal'] ?? 0, summary).toBe(0);
    expect(report.outcomes.stored ?? 0, summary).toBe(0);
    expect(report.errorLogLines, summary).toBe(0);
    // The fuzzer reaches far enough: wrong types of every kind, and accepted requests too.
    expect(report.wrongTyped).toBeGreaterThan(500);
    expect(report.outcomes.success ?? 0).toBeGreaterThan(300);
  }, 180_000);
});
