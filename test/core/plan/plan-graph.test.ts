import { describe, expect, it } from 'vitest';
import { PlanCycleError } from '../../../functions/core/errors.js';
import { assertDag, buildPlan, findCycle } from '../../../functions/core/plan/plan.js';
import type { Step } from '../../../functions/core/task/extension.schema.js';

const step = (id: string, depends_on: string[] = []): Step => ({
  id,
  name: id,
  description: '',
  depends_on,
  output: null,
  linked_tasks: [],
  state: 'pending',
});

const caught = (run: () => unknown): PlanCycleError => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(PlanCycleError);
    return error as PlanCycleError;
  }
  throw new Error('expected a PlanCycleError');
};

/** A genuine cycle: first id repeated last, each consecutive pair an edge of depends_on. */
const expectCycleIn = (steps: readonly Step[], path: readonly string[]): void => {
  expect(path.length).toBeGreaterThanOrEqual(2);
  expect(path[0]).toBe(path[path.length - 1]);
  expect(new Set(path.slice(0, -1)).size).toBe(path.length - 1);
  for (let i = 0; i + 1 < path.length; i++) {
    const from = steps.find((s) => s.id === path[i]);
    expect(from?.depends_on).toContain(path[i + 1]);
  }
};

describe('assertDag', () => {
  it('accepts an empty plan and a diamond', () => {
    expect(() => assertDag([])).not.toThrow();
    expect(() =>
      assertDag([step('a'), step('b', ['a']), step('c', ['a']), step('d', ['b', 'c'])])
    ).not.toThrow();
  });

  it('refuses duplicate ids, naming each duplicate once', () => {
    const error = caught(() =>
      assertDag([step('a'), step('b'), step('a'), step('b'), step('a'), step('c')])
    );
    expect(error.message).toBe('duplicate step ids: a, b');
    expect(error.path).toEqual([]);
    expect(error.code).toBe('plan.cycle');
  });

  it('refuses a dependency naming no step', () => {
    const error = caught(() => assertDag([step('a'), step('b', ['a', 'ghost'])]));
    expect(error.message).toBe('step b depends on an unknown step ghost');
    expect(error.path).toEqual([]);
  });

  it('refuses a two-step cycle with its path', () => {
    const error = caught(() => assertDag([step('a', ['b']), step('b', ['a'])]));
    expect(error.message).toBe('plan has a cycle: a -> b -> a');
    expect(error.path).toEqual(['a', 'b', 'a']);
    expect(error.code).toBe('plan.cycle');
  });

  it('reports a self-dependency as a cycle of one step', () => {
    const error = caught(() => assertDag([step('a', ['a'])]));
    expect(error.path).toEqual(['a', 'a']);
    expect(error.message).toBe('plan has a cycle: a -> a');
  });

  it('reports only the cycle, not the path that led into it', () => {
    const steps = [step('entry', ['x']), step('x', ['y']), step('y', ['z']), step('z', ['x'])];
    const error = caught(() => assertDag(steps));
    expect(error.path).toEqual(['x', 'y', 'z', 'x']);
    expectCycleIn(steps, error.path);
  });
});

describe('findCycle', () => {
  it('returns null for a DAG', () => {
    expect(findCycle([step('a'), step('b', ['a']), step('c', ['b', 'a'])])).toBeNull();
  });

  it('returns the cycle path when there is one', () => {
    const steps = [step('a'), step('b', ['a', 'd']), step('c', ['b']), step('d', ['c'])];
    const path = findCycle(steps);
    expect(path).not.toBeNull();
    expectCycleIn(steps, path!);
  });

  it('ignores dangling dependencies', () => {
    expect(findCycle([step('a', ['ghost'])])).toBeNull();
  });

  it('handles a long chain without recursion limits', () => {
    const steps = Array.from({ length: 20_000 }, (_, i) =>
      step(`s${i}`, i === 0 ? [] : [`s${i - 1}`])
    );
    expect(findCycle(steps)).toBeNull();
    steps[0] = step('s0', ['s19999']);
    expect(findCycle(steps)?.length).toBe(20_001);
  });
});

describe('buildPlan', () => {
  it('slugs names into ids and maps dependency names to their slugs', () => {
    const plan = buildPlan([
      { name: 'Gather facts', description: 'find sources', depends_on: [] },
      { name: 'Write report', description: 'draft it', depends_on: ['Gather facts'] },
      { name: 'Review', description: '', depends_on: ['gather-facts', 'Write Report'] },
    ]);
    expect(plan).toEqual({
      revision: 1,
      revisions: [],
      steps: [
        {
          id: 'gather-facts',
          name: 'Gather facts',
          description: 'find sources',
          depends_on: [],
          output: null,
          linked_tasks: [],
          state: 'pending',
        },
        {
          id: 'write-report',
          name: 'Write report',
          description: 'draft it',
          depends_on: ['gather-facts'],
          output: null,
          linked_tasks: [],
          state: 'pending',
        },
        {
          id: 'review',
          name: 'Review',
          description: '',
          depends_on: ['gather-facts', 'write-report'],
          output: null,
          linked_tasks: [],
          state: 'pending',
        },
      ],
    });
  });

  it('lists a dependency once when two names slug alike', () => {
    const plan = buildPlan([
      { name: 'A', description: '', depends_on: [] },
      { name: 'B', description: '', depends_on: ['A', 'a', ' a '] },
    ]);
    expect(plan.steps[1]?.depends_on).toEqual(['a']);
  });

  it('refuses two names with the same slug as duplicate ids', () => {
    const error = caught(() =>
      buildPlan([
        { name: 'Gather facts', description: '', depends_on: [] },
        { name: 'gather  FACTS', description: '', depends_on: [] },
      ])
    );
    expect(error.code).toBe('plan.cycle');
    expect(error.message).toBe('duplicate step ids: gather-facts');
  });

  it('refuses an unknown dependency name as a dangling dependency', () => {
    const error = caught(() =>
      buildPlan([{ name: 'Write', description: '', depends_on: ['Research first'] }])
    );
    expect(error.code).toBe('plan.cycle');
    expect(error.message).toBe('step write depends on an unknown step research-first');
  });

  it('refuses a cycle with a path that is a real cycle of the steps', () => {
    const inputs = [
      { name: 'Plan', description: '', depends_on: ['Ship'] },
      { name: 'Build', description: '', depends_on: ['Plan'] },
      { name: 'Test', description: '', depends_on: ['Build'] },
      { name: 'Ship', description: '', depends_on: ['Test'] },
    ];
    const error = caught(() => buildPlan(inputs));
    expect(error.code).toBe('plan.cycle');
    expect(error.path).toEqual(['plan', 'ship', 'test', 'build', 'plan']);
    expect(error.message).toBe('plan has a cycle: plan -> ship -> test -> build -> plan');
    const steps = inputs.map((input) =>
      step(
        input.name.toLowerCase(),
        input.depends_on.map((d) => d.toLowerCase())
      )
    );
    expectCycleIn(steps, error.path);
  });
});
