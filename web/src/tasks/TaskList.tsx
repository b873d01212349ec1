/** The caller's tasks, newest first, filtered by state and by words in the name, goal or id. */
import { useId } from 'react';
import { STATE_FILTERS } from '../../../functions/view/task-list.js';
import type { TaskListFilter } from '../app/hooks.js';
import { hrefOf } from '../app/route.js';
import type { TaskView } from '../generated/task-view.js';
import { StateBadge } from '../panes/StateBadge.js';

const when = (at: string | null) => (at === null ? '' : at.slice(0, 16).replace('T', ' '));

export const TaskList = (props: {
  tasks: TaskView[] | undefined;
  error: string | undefined;
  filter: TaskListFilter;
  currentId: string | undefined;
  onFilter(filter: TaskListFilter): void;
}) => {
  const stateId = useId();
  const searchId = useId();
  const { filter } = props;
  return (
    <nav className="task-list" aria-labelledby="tasks-heading">
      <div className="task-list-head">
        <h2 id="tasks-heading">Tasks</h2>
        <a className="button primary" href={hrefOf({ page: 'new' })}>
          New task
        </a>
      </div>
      <div className="filters">
        <label htmlFor={stateId}>State</label>
        <select
          id={stateId}
          value={filter.state}
          onChange={(event) => props.onFilter({ ...filter, state: event.target.value })}
        >
          <option value="">all</option>
          {STATE_FILTERS.map((state) => (
            <option key={state} value={state}>
              {state}
            </option>
          ))}
        </select>
        <label htmlFor={searchId}>Find</label>
        <input
          id={searchId}
          type="search"
          value={filter.search}
          placeholder="name, goal or id"
          onChange={(event) => props.onFilter({ ...filter, search: event.target.value })}
        />
      </div>
      {props.error !== undefined && (
        <p role="alert" className="error">
          {props.error}
        </p>
      )}
      {props.tasks === undefined ? (
        props.error === undefined && <p className="muted">Reading your tasks…</p>
      ) : props.tasks.length === 0 ? (
        <p className="muted">No task here yet.</p>
      ) : (
        <ul className="plain tasks">
          {props.tasks.map((task) => (
            <li key={task.id} className={task.id === props.currentId ? 'current' : undefined}>
              <a
                href={hrefOf({ page: 'task', taskId: task.id })}
                aria-current={task.id === props.currentId ? 'page' : undefined}
              >
                <span className="task-title">{task.name ?? task.id}</span>
                <span className="task-meta">
                  <StateBadge state={task.state} subState={task.sub_state} />
                  <time dateTime={task.updated_at ?? undefined}>{when(task.updated_at)}</time>
                </span>
              </a>
            </li>
          ))}
        </ul>
      )}
    </nav>
  );
};
