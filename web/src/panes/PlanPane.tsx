/**
 * The Plan pane (brief §7): "Plan · N steps · DAG", the graph of the steps, and the ordered list
 * whose items carry the step state as a class and show "output: …" or "depends on …", with the
 * sub-tasks linked to each step. It redraws from each Task event: no reload.
 */
import { lazy, Suspense } from 'react';
import { rowLabel, STEP_MARK } from '../../../functions/view/labels.js';
import type { TaskView } from '../generated/task-view.js';
import { rowHref } from './TaskPane.js';

type Plan = NonNullable<TaskView['plan']>;
type Step = Plan['steps'][number];

/** The graph layout library is loaded when a plan is first drawn, not with the page. */
const PlanGraph = lazy(() => import('./PlanGraph.js'));

const StepItem = ({ step, steps, taskId }: { step: Step; steps: Step[]; taskId: string }) => {
  const nameOf = (id: string) => steps.find((candidate) => candidate.id === id)?.name ?? id;
  const rows = step.linked_tasks;
  return (
    <li className={`step ${step.state}`} id={`step-${step.id}`} data-step={step.id}>
      <span className="mark" aria-hidden="true">
        {STEP_MARK[step.state]}
      </span>{' '}
      <span className="step-name">{step.name}</span>{' '}
      <span className="visually-hidden">({step.state})</span>
      {step.output !== null ? (
        <p className="step-detail output">output: {step.output}</p>
      ) : step.depends_on.length > 0 ? (
        <p className="step-detail">depends on {step.depends_on.map(nameOf).join(', ')}</p>
      ) : null}
      {rows.length > 0 && (
        <p className="step-detail">
          sub-task{rows.length === 1 ? '' : 's'}:{' '}
          {rows.map((row, index) => (
            <span key={row.task_id}>
              {index > 0 && ' · '}
              <a href={rowHref(taskId, row)}>{rowLabel(row)}</a>
            </span>
          ))}
        </p>
      )}
    </li>
  );
};

export const PlanPane = ({ view }: { view: TaskView }) => {
  if (view.plan === null) {
    return (
      <div className="pane-body">
        <h3>Plan · none yet</h3>
        <p className="muted">
          {view.extension
            ? 'The agent has not made a plan for this task.'
            : 'This agent keeps no plan.'}
        </p>
      </div>
    );
  }
  const steps = view.plan.steps;
  const done = steps.filter((step) => step.state === 'done').length;
  return (
    <div className="pane-body plan-pane">
      <h3>
        Plan · {steps.length} step{steps.length === 1 ? '' : 's'} · DAG
      </h3>
      <p className="muted" aria-live="polite">
        {done} of {steps.length} done
      </p>
      <Suspense fallback={<p className="muted">Drawing the graph…</p>}>
        <PlanGraph steps={steps} />
      </Suspense>
      <ol className="steps">
        {steps.map((step) => (
          <StepItem key={step.id} step={step} steps={steps} taskId={view.id} />
        ))}
      </ol>
    </div>
  );
};
