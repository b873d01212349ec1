import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlanCycleError } from '../../../functions/core/errors.js';
import { assertDag, findCycle, revisePlan } from '../../../functions/core/plan/plan.js';
import type { Plan, Step, StepState } from '../../../functions/core/task/extension.schema.js';
import { deepFreeze } from '../../support/freeze.js';

const POOL = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'] as const;

const stepArb = (id: string, earlier: readonly string[]): fc.Arbitrary<Step> =>
  fc
    .record({
      depends_on: fc.subarray([...earlier]),
      state: fc.constantFrom<StepState>('pending', 'active', 'done', 'failed'),
      output: fc.option(fc.string({ maxLength: 8 }), { nil: null }),
    })
    .map(({ depends_on, state, output }) => ({
      id,
      name: id.toUpperCase(),
      description: '',
      depends_on,
      output: state === 'done' ? (output ?? `out-${id}`) : output,
      linked_tasks: [],
      state,
    }));

/** A DAG: each step depends only on steps before it in generation order, then shuffled. */
const dagArb = (ids: readonly string[]): fc.Arbitrary<Step[]> =>
  fc
    .tuple(...ids.map((id, i) => stepArb(id, ids.slice(0, i))))
    .chain((steps) => fc.shuffledSubarray(steps, { minLength: steps.length }));

const idsArb = fc.shuffledSubarray([...POOL], { minLength: 1 });
const randomDag = idsArb.chain(dagArb);

/** Whether the graph is acyclic, by Kahn's algorithm (independent of the DFS under test). */
const acyclic = (steps: readonly Step[]): boolean => {
  const pending = new Map(steps.map((s) => [s.id, new Set(s.depends_on)] as const));
  let progressed = true;
  while (progressed) {
    progressed = false;
    for (const [id, deps] of pending) {
      if ([...deps].every((d) => !pending.has(d))) {
        pending.delete(id);
        progressed = true;
      }
    }
  }
  return pending.size === 0;
};

const isCycleOf = (steps: readonly Step[], path: readonly string[]): boolean => {
  if (path.length < 2 || path[0] !== path[path.length - 1]) return false;
  if (new Set(path.slice(0, -1)).size !== path.length - 1) return false;
  return path.every(
    (id, i) =>
      i === path.length - 1 ||
      (steps.find((s) => s.id === id)?.depends_on.includes(path[i + 1]!) ?? false)
  );
};

/**
 * A DAG with a cycle injected: pick a later step `hi` and an earlier (or the same) step `lo`,
 * make `hi` depend on `lo` and add the back edge `lo -> hi`.
 */
const cyclicGraph = idsArb.chain((ids) =>
  fc
    .tuple(
      fc
        .tuple(...ids.map((id, i) => stepArb(id, ids.slice(0, i))))
        .map((steps) => steps.map((s) => ({ ...s, depends_on: [...s.depends_on] }))),
      fc.nat({ max: ids.length - 1 }),
      fc.nat({ max: ids.length - 1 })
    )
    .map(([steps, x, y]) => {
      const lo = Math.min(x, y);
      const hi = Math.max(x, y);
      const low = steps[lo]!;
      const high = steps[hi]!;
      if (lo !== hi && !high.depends_on.includes(low.id)) high.depends_on.push(low.id);
      low.depends_on.push(high.id);
      return steps;
    })
    .chain((steps) => fc.shuffledSubarray(steps, { minLength: steps.length }))
);

describe('plan DAG properties', () => {
  it('accepts every random DAG, and findCycle finds no cycle in it', () => {
    fc.assert(
      fc.property(randomDag, (steps) => {
        deepFreeze(steps);
        expect(() => assertDag(steps)).not.toThrow();
        expect(findCycle(steps)).toBeNull();
      }),
      { numRuns: 300 }
    );
  });

  it('refuses every graph with an injected cycle, with a path that is a genuine cycle', () => {
    fc.assert(
      fc.property(cyclicGraph, (steps) => {
        deepFreeze(steps);
        let error: unknown;
        try {
          assertDag(steps);
        } catch (caught) {
          error = caught;
        }
        expect(error).toBeInstanceOf(PlanCycleError);
        const path = (error as PlanCycleError).path;
        expect((error as PlanCycleError).code).toBe('plan.cycle');
        expect(isCycleOf(steps, path)).toBe(true);
        expect((error as PlanCycleError).message).toBe(`plan has a cycle: ${path.join(' -> ')}`);
        expect(findCycle(steps)).toEqual(path);
      }),
      { numRuns: 300 }
    );
  });

  it('finds a cycle exactly when the graph is not acyclic', () => {
    const anyGraph = idsArb.chain((ids) =>
      fc.tuple(
        ...ids.map((id) =>
          fc.subarray([...ids], { maxLength: Math.min(3, ids.length) }).map(
            (depends_on): Step => ({
              id,
              name: id,
              description: '',
              depends_on,
              output: null,
              linked_tasks: [],
              state: 'pending',
            })
          )
        )
      )
    );
    fc.assert(
      fc.property(anyGraph, (steps) => {
        const cycle = findCycle(steps);
        expect(cycle === null).toBe(acyclic(steps));
        if (cycle !== null) expect(isCycleOf(steps, cycle)).toBe(true);
      }),
      { numRuns: 500 }
    );
  });
});

describe('revisePlan properties', () => {
  const planArb = (revision: number): fc.Arbitrary<Plan> =>
    randomDag.map((steps) => ({ steps, revision, revisions: [] }));

  it("never loses a done step's output silently, and never mutates its inputs", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }).chain((revision) => planArb(revision)),
        planArb(1),
        (current, next) => {
          deepFreeze(current);
          deepFreeze(next);
          const snapshot = structuredClone({ current, next });
          const revised = revisePlan(current, next);
          expect({ current, next }).toEqual(snapshot);

          expect(() => assertDag(revised.steps)).not.toThrow();
          expect(revised.revision).toBe(current.revision + 1);
          const record = revised.revisions.at(-1)!;
          expect(record.revision).toBe(current.revision + 1);
          expect(revised.steps.map((s) => s.id)).toEqual(next.steps.map((s) => s.id));

          for (const step of current.steps.filter((s) => s.state === 'done')) {
            const kept = revised.steps.find((s) => s.id === step.id);
            const removed = record.removed.find((s) => s.id === step.id);
            if (kept) {
              expect(kept).toMatchObject({ state: 'done', output: step.output });
              expect(record.kept).toContain(step.id);
            } else {
              // What it reached is kept; what it was to do is in the audit timeline.
              expect(removed).toEqual({ ...step, description: '', depends_on: [] });
            }
          }
          const currentIds = new Set(current.steps.map((s) => s.id));
          expect(record.added).toEqual(
            next.steps.map((s) => s.id).filter((id) => !currentIds.has(id))
          );
        }
      ),
      { numRuns: 500 }
    );
  });
});
