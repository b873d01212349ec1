/**
 * The Task pane: name, state and sub-state, goal, acceptance criteria as checkboxes (met ones
 * ticked, with who met them and the evidence; a reviewer's rejection), participants with their
 * roles (agents tagged "A2A"), the parent, the sub-task rows with their live state and their
 * criteria met / total, each a link to the sub-task, and the tasks forked from this one.
 */
import { budgetText } from '../../../functions/view/budget.js';
import { ROW_MARK, rowLabel } from '../../../functions/view/labels.js';
import { hrefOf } from '../app/route.js';
import type { TaskView } from '../generated/task-view.js';
import { StateBadge } from './StateBadge.js';

type Row = TaskView['sub_tasks'][number];

/** Where a row leads: the sub-task itself on this harness, what the parent knows of a remote one. */
export const rowHref = (parentId: string, row: Pick<Row, 'task_id' | 'agent'>) =>
  row.agent === null
    ? hrefOf({ page: 'task', taskId: row.task_id })
    : hrefOf({ page: 'remote', parentId, taskId: row.task_id });

export const SubTaskRow = ({
  parentId,
  row,
  name,
}: {
  parentId: string;
  row: Row;
  /** The child's name, once read (a row carries only its id). */
  name?: string | undefined;
}) => (
  <li className="row" data-state={row.state} data-task-id={row.task_id}>
    <span className="mark" aria-hidden="true">
      {ROW_MARK[row.state] ?? '·'}
    </span>
    <a className="row-link" href={rowHref(parentId, row)} title={rowLabel(row)}>
      {name ?? rowLabel(row)}
    </a>
    {row.agent !== null && <span className="tag">on {row.agent}</span>}
    <StateBadge state={row.state} subState={row.sub_state} />
    {row.criteria !== null && row.criteria.total > 0 && (
      <span className="criteria-count">
        criteria {row.criteria.met}/{row.criteria.total}
      </span>
    )}
  </li>
);

export const TaskPane = ({
  view,
  names = {},
  forks = [],
}: {
  view: TaskView;
  /** Sub-tasks' and forks' names by task id. */
  names?: Readonly<Record<string, string>>;
  /** The ids of the tasks forked from this one, oldest first. */
  forks?: readonly string[];
}) => {
  if (!view.extension) {
    return (
      <div className="pane-body">
        <p>
          <StateBadge state={view.state} subState={view.sub_state} />
        </p>
        <p className="muted">This agent does not speak the tiny-harness task extension.</p>
      </div>
    );
  }
  return (
    <div className="pane-body task-pane">
      <h3 className="task-name">{view.name ?? view.id}</h3>
      <p>
        <StateBadge state={view.state} subState={view.sub_state} />
      </p>
      <dl className="facts">
        <dt>Goal</dt>
        <dd className="goal">{view.goal}</dd>
        {view.description !== '' && (
          <>
            <dt>Description</dt>
            <dd>{view.description}</dd>
          </>
        )}
        <dt>Task id</dt>
        <dd className="mono">{view.id}</dd>
        {budgetText(view) !== null && (
          <>
            <dt>Budget spent</dt>
            <dd className="budget">{budgetText(view)}</dd>
          </>
        )}
      </dl>
      {view.parent_tasks.length > 0 && (
        <section aria-labelledby="parents-heading">
          <h4 id="parents-heading">Part of</h4>
          <ul className="plain">
            {view.parent_tasks.map((parent) => (
              <li key={parent.task_id}>
                <a href={hrefOf({ page: 'task', taskId: parent.task_id })}>{rowLabel(parent)}</a>
              </li>
            ))}
          </ul>
        </section>
      )}
      <section aria-labelledby="criteria-heading">
        <h4 id="criteria-heading">Acceptance criteria</h4>
        {view.acceptance_criteria.length === 0 ? (
          <p className="muted">None.</p>
        ) : (
          <ul className="plain criteria">
            {view.acceptance_criteria.map((criterion, index) => (
              // An agent that is not tiny-harness may give criteria no id, and their text may
              // repeat; the list is replaced whole.
              // biome-ignore lint/suspicious/noArrayIndexKey: the position is the identity here
              <li key={index} className={criterion.met ? 'met' : 'unmet'}>
                <label>
                  <input type="checkbox" checked={criterion.met} disabled />
                  <span>{criterion.text}</span>
                  <span className="visually-hidden">{criterion.met ? ' (met)' : ' (not met)'}</span>
                </label>
                {criterion.met && criterion.evidence !== null && (
                  <p className="evidence">
                    {criterion.met_by === null ? 'Evidence' : `Met by ${criterion.met_by}`}:{' '}
                    {criterion.evidence}
                  </p>
                )}
                {!criterion.met && criterion.rejection !== null && (
                  <p className="rejection">
                    Rejected by {criterion.rejection.by}: {criterion.rejection.reason}
                  </p>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="participants-heading">
        <h4 id="participants-heading">Participants</h4>
        <ul className="plain participants">
          {view.participants.map((participant) => (
            <li key={participant.id}>
              <span className="participant">
                {participant.display_name === '' ? participant.id : participant.display_name}
              </span>{' '}
              <span className="role">({participant.role})</span>
              {participant.kind === 'agent' && <span className="tag">A2A</span>}
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="subtasks-heading">
        <h4 id="subtasks-heading">
          Sub-tasks{view.sub_tasks.length > 0 ? ` · ${view.sub_tasks.length}` : ''}
        </h4>
        {view.sub_tasks.length === 0 ? (
          <p className="muted">None.</p>
        ) : (
          <ul className="plain rows">
            {view.sub_tasks.map((row) => (
              <SubTaskRow
                key={`${row.agent ?? ''}/${row.task_id}`}
                parentId={view.id}
                row={row}
                name={row.agent === null ? names[row.task_id] : undefined}
              />
            ))}
          </ul>
        )}
      </section>
      {forks.length > 0 && (
        <section aria-labelledby="forks-heading">
          <h4 id="forks-heading">Forks · {forks.length}</h4>
          <ul className="plain forks">
            {forks.map((id) => (
              <li key={id} data-task-id={id}>
                <a href={hrefOf({ page: 'task', taskId: id })}>{names[id] ?? id}</a>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
};
