/** A task stopped at its budget (INPUT_REQUIRED, awaiting-budget): why, and a raise. */
import { useState } from 'react';
import { isAwaitingBudget } from '../../../functions/view/labels.js';
import type { TaskView } from '../generated/task-view.js';

type Limit = 'usd' | 'input_tokens' | 'output_tokens' | 'model_calls';
export type BudgetRaise = Partial<Record<Limit, number>>;

const LIMITS: ReadonlyArray<{ limit: Limit; label: string; step: string }> = [
  { limit: 'usd', label: 'Cost (USD)', step: '0.01' },
  { limit: 'input_tokens', label: 'Input tokens', step: '1' },
  { limit: 'output_tokens', label: 'Output tokens', step: '1' },
  { limit: 'model_calls', label: 'Model calls', step: '1' },
];

/**
 * The limits changed from the budget shown, each to a positive number; undefined if none. A limit
 * emptied or left as it was is not sent, so it keeps its value (a set names only what it changes).
 */
const raiseOf = (
  typed: Record<Limit, string>,
  initial: Record<Limit, string>
): BudgetRaise | undefined => {
  const raise: BudgetRaise = {};
  for (const { limit } of LIMITS) {
    const amount = Number(typed[limit]);
    if (typed[limit].trim() !== '' && typed[limit] !== initial[limit] && amount > 0)
      raise[limit] = amount;
  }
  return Object.keys(raise).length === 0 ? undefined : raise;
};

export const BudgetStop = (props: {
  view: TaskView;
  busy: boolean;
  onRaise(budget: BudgetRaise): void;
}) => {
  const current = props.view.budget ?? {};
  const initial = Object.fromEntries(
    LIMITS.map(({ limit }) => [limit, current[limit] === undefined ? '' : String(current[limit])])
  ) as Record<Limit, string>;
  const [typed, setTyped] = useState(initial);
  if (!isAwaitingBudget(props.view)) return null;
  const raise = raiseOf(typed, initial);
  return (
    <section className="question budget-stop" aria-labelledby="budget-heading">
      <h3 id="budget-heading">Stopped at its budget</h3>
      <pre className="question-text">{props.view.status_text}</pre>
      <fieldset className="options" disabled={props.busy}>
        <legend>New budget (a limit not changed keeps its value)</legend>
        {LIMITS.map(({ limit, label, step }) => (
          <label key={limit}>
            {label}{' '}
            <input
              type="number"
              min="0"
              step={step}
              value={typed[limit]}
              onChange={(event) => setTyped({ ...typed, [limit]: event.target.value })}
            />
          </label>
        ))}
        <button
          type="button"
          disabled={raise === undefined}
          onClick={() => raise !== undefined && props.onRaise(raise)}
        >
          Set budget
        </button>
      </fieldset>
      <p className="muted">
        Only a reporter or an admin may set it; the task goes on once its next call fits.
      </p>
    </section>
  );
};
