/** The plan's DAG, drawn in SVG from the dagre layout; the ordered list below it says the same in words. */
import { useMemo } from 'react';
import { STEP_MARK } from '../../../functions/view/labels.js';
import type { TaskView } from '../generated/task-view.js';
import { layoutPlan } from './plan-layout.js';

type Step = NonNullable<TaskView['plan']>['steps'][number];

const pathOf = (points: Array<{ x: number; y: number }>) =>
  points.map((point, index) => `${index === 0 ? 'M' : 'L'}${point.x},${point.y}`).join(' ');

const PlanGraph = ({ steps }: { steps: Step[] }) => {
  // Laid out again only when the shape changes, not when a state does.
  const shape = JSON.stringify(steps.map(({ id, name, depends_on }) => [id, name, depends_on]));
  // biome-ignore lint/correctness/useExhaustiveDependencies: the shape is the dependency
  const layout = useMemo(() => layoutPlan(steps), [shape]);
  const stateOf = new Map(steps.map((step) => [step.id, step.state]));
  const counts = ['done', 'active', 'failed', 'pending']
    .map((state) => [state, steps.filter((step) => step.state === state).length] as const)
    .filter(([, count]) => count > 0)
    .map(([state, count]) => `${count} ${state}`)
    .join(', ');
  return (
    <figure className="plan-graph">
      <svg
        viewBox={`0 0 ${layout.width} ${layout.height}`}
        width={layout.width}
        height={layout.height}
        role="img"
        aria-label={`Plan graph: ${steps.length} steps (${counts}); the list below describes each step.`}
      >
        <defs>
          <marker
            id="plan-arrow"
            viewBox="0 0 10 10"
            refX="9"
            refY="5"
            markerWidth="7"
            markerHeight="7"
            orient="auto-start-reverse"
          >
            <path d="M0,0 L10,5 L0,10 z" className="edge-head" />
          </marker>
        </defs>
        {layout.edges.map((edge) => (
          <path
            key={`${edge.from}->${edge.to}`}
            className="edge"
            d={pathOf(edge.points)}
            markerEnd="url(#plan-arrow)"
          />
        ))}
        {layout.steps.map((step) => {
          const state = stateOf.get(step.id) ?? 'pending';
          return (
            <g
              key={step.id}
              className={`node ${state}`}
              data-step={step.id}
              transform={`translate(${step.x},${step.y})`}
            >
              <rect width={step.width} height={step.height} rx="6" />
              <text x="12" y={step.height / 2} dominantBaseline="central">
                <tspan className="node-mark">{STEP_MARK[state]}</tspan> {step.label}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
};

export default PlanGraph;
