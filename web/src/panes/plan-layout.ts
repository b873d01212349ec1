/**
 * The plan as a drawing: each step a box, each dependency an arrow from the step it waits on,
 * placed by dagre (a layered layout of directed acyclic graphs, the same family of algorithm
 * Graphviz's dot uses). Only the shape is laid out; states colour the boxes as they change.
 */
import dagre from '@dagrejs/dagre';

export interface LayoutStep {
  id: string;
  name: string;
  depends_on: string[];
}

export interface PlacedStep {
  id: string;
  /** The name as drawn: cut to fit the box. */
  label: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PlacedEdge {
  from: string;
  to: string;
  points: Array<{ x: number; y: number }>;
}

export interface PlanLayout {
  width: number;
  height: number;
  steps: PlacedStep[];
  edges: PlacedEdge[];
}

const CHAR_WIDTH = 7.2;
const MAX_LABEL = 26;
const NODE_HEIGHT = 36;
const PADDING = 12;

const labelOf = (name: string) =>
  name.length > MAX_LABEL ? `${name.slice(0, MAX_LABEL - 1)}…` : name;

export const layoutPlan = (steps: readonly LayoutStep[]): PlanLayout => {
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: 'TB', nodesep: 16, ranksep: 28, marginx: 4, marginy: 4 });
  graph.setDefaultEdgeLabel(() => ({}));
  const ids = new Set(steps.map((step) => step.id));
  for (const step of steps) {
    const label = labelOf(step.name);
    // Room for the state mark before the name.
    const width = Math.round(label.length * CHAR_WIDTH + 2 * PADDING + 18);
    graph.setNode(step.id, { label, width, height: NODE_HEIGHT });
  }
  for (const step of steps) {
    for (const dependency of step.depends_on) {
      // A dangling dependency never reaches a stored plan; drawn plans skip one all the same.
      if (ids.has(dependency)) graph.setEdge(dependency, step.id);
    }
  }
  dagre.layout(graph);
  const placed = steps.map((step) => {
    const node = graph.node(step.id);
    return {
      id: step.id,
      label: labelOf(step.name),
      x: node.x - node.width / 2,
      y: node.y - node.height / 2,
      width: node.width,
      height: node.height,
    };
  });
  const edges = graph.edges().map((edge) => ({
    from: edge.v,
    to: edge.w,
    points: ((graph.edge(edge) as { points?: Array<{ x: number; y: number }> }).points ?? []).map(
      (point) => ({ x: point.x, y: point.y })
    ),
  }));
  const label = graph.graph();
  return {
    width: Math.ceil(label.width ?? 0),
    height: Math.ceil(label.height ?? 0),
    steps: placed,
    edges,
  };
};
