/**
 * A sub-task on another agent. This page holds no credentials for that agent, so it shows what
 * the parent knows: the row (the remote task id, the agent, its last state) and the parent's trace
 * entries about it.
 */
import { rowLabel } from '../../../functions/view/labels.js';
import type { Agent } from '../agent/agent.js';
import { StateBadge } from '../panes/StateBadge.js';
import type { Followed } from './hooks.js';
import { useTimeline } from './hooks.js';
import { hrefOf } from './route.js';

export const RemotePage = (props: {
  agent: Agent;
  parentId: string;
  taskId: string;
  parent: Followed;
}) => {
  const { view } = props.parent;
  const row = view?.sub_tasks.find((candidate) => candidate.task_id === props.taskId);
  const trace = useTimeline(props.agent, props.parentId, true, JSON.stringify(row ?? null));
  const entries =
    trace.timeline?.entries.filter((entry) =>
      JSON.stringify(entry.details).includes(props.taskId)
    ) ?? [];
  return (
    <main className="task-page remote" id="main">
      <section className="conversation" aria-labelledby="remote-heading">
        <header className="conversation-head">
          <h2 id="remote-heading">Sub-task {row === undefined ? props.taskId : rowLabel(row)}</h2>
          {row !== undefined && <StateBadge state={row.state} subState={row.sub_state} />}
        </header>
        <p>
          <a href={hrefOf({ page: 'task', taskId: props.parentId })}>
            ← {view?.name ?? 'the parent task'}
          </a>
        </p>
        {view === undefined ? (
          <p className="muted">{props.parent.error ?? 'Reading the parent task…'}</p>
        ) : row === undefined ? (
          <p role="alert" className="error">
            {view.name ?? view.id} has no sub-task {props.taskId}.
          </p>
        ) : (
          <>
            <dl className="facts">
              <dt>Agent</dt>
              <dd>{row.agent ?? 'this harness'}</dd>
              <dt>Its task id there</dt>
              <dd className="mono">{row.task_id}</dd>
            </dl>
            <p className="muted">
              This sub-task runs on another agent: its state here is what that agent last told the
              parent. Its conversation is on that agent.
            </p>
            <h3>What the parent's trace says of it</h3>
            {entries.length === 0 ? (
              <p className="muted">
                {trace.error ?? (trace.loading ? 'Reading…' : 'Nothing yet.')}
              </p>
            ) : (
              <ol className="entries">
                {entries.map((entry, index) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: entries have no id; read-only rows
                  <li key={`${index}:${entry.source.ref}`} className="entry" data-kind={entry.kind}>
                    <time dateTime={entry.at}>{entry.at.slice(11, 23)}</time>{' '}
                    <span className="summary">{entry.summary}</span>
                  </li>
                ))}
              </ol>
            )}
          </>
        )}
      </section>
    </main>
  );
};
