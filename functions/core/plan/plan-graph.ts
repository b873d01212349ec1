import { PlanCycleError } from '../errors.js';
import type { Step } from '../task/extension.schema.js';

/**
 * The DAG rules of a plan. Edges run from a step to each step it depends on; a cycle is
 * reported as step ids with the first id repeated at the end (`a -> b -> a`).
 */

type Graph = ReadonlyMap<string, readonly string[]>;

const graphOf = (steps: readonly Step[]): Graph => {
  const graph = new Map<string, string[]>();
  for (const step of steps) {
    const deps = graph.get(step.id) ?? [];
    deps.push(...step.depends_on);
    graph.set(step.id, deps);
  }
  return graph;
};

const WHITE = 0;
const GREY = 1;
const BLACK = 2;
type Colour = typeof WHITE | typeof GREY | typeof BLACK;

/**
 * The first cycle a depth-first search with three-colour marking meets, visiting steps and
 * their dependencies in order, or null. Dependencies naming no step are ignored here.
 */
export const findCycle = (steps: readonly Step[]): string[] | null => {
  const graph = graphOf(steps);
  const colour = new Map<string, Colour>();
  for (const root of graph.keys()) {
    if ((colour.get(root) ?? WHITE) !== WHITE) continue;
    // Iterative DFS: `path` holds the grey steps, `next` the index of each one's next edge.
    const path: string[] = [root];
    const next: number[] = [0];
    colour.set(root, GREY);
    while (path.length > 0) {
      const top = path.length - 1;
      const node = path[top]!;
      const deps = graph.get(node) ?? [];
      const index = next[top]!;
      if (index >= deps.length) {
        colour.set(node, BLACK);
        path.pop();
        next.pop();
        continue;
      }
      next[top] = index + 1;
      const dep = deps[index]!;
      if (!graph.has(dep)) continue;
      const seen = colour.get(dep) ?? WHITE;
      if (seen === GREY) return [...path.slice(path.indexOf(dep)), dep];
      if (seen === WHITE) {
        colour.set(dep, GREY);
        path.push(dep);
        next.push(0);
      }
    }
  }
  return null;
};

/**
 * Throws PlanCycleError (`plan.cycle`) unless the steps form a DAG: unique ids, every
 * dependency naming a step, and no cycle (the error's `path` holds the cycle).
 */
export const assertDag = (steps: readonly Step[]): void => {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const step of steps) {
    if (seen.has(step.id)) duplicates.add(step.id);
    seen.add(step.id);
  }
  if (duplicates.size > 0) {
    throw new PlanCycleError(`duplicate step ids: ${[...duplicates].join(', ')}`);
  }
  for (const step of steps) {
    const dangling = step.depends_on.find((dep) => !seen.has(dep));
    if (dangling !== undefined) {
      throw new PlanCycleError(`step ${step.id} depends on an unknown step ${dangling}`);
    }
  }
  const cycle = findCycle(steps);
  if (cycle !== null) {
    throw new PlanCycleError(`plan has a cycle: ${cycle.join(' -> ')}`, cycle);
  }
};
