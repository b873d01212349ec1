/** Signed in and connected: the task list beside the page the address names. */
import { useCallback, useEffect, useState } from 'react';
import type { Agent } from '../agent/agent.js';
import type { Session } from '../auth/session.js';
import { TaskList } from '../tasks/TaskList.js';
import { Header, identityOf } from './Header.js';
import {
  type Said,
  settledKey,
  type TaskListFilter,
  useFollowedTask,
  useTaskList,
} from './hooks.js';
import { NewTaskPage } from './NewTaskPage.js';
import { RemotePage } from './RemotePage.js';
import { routeOf } from './route.js';
import { type PaneKey, TaskPage } from './TaskPage.js';

const useHashRoute = () => {
  const [hash, setHash] = useState(() => window.location.hash);
  useEffect(() => {
    const onChange = () => setHash(window.location.hash);
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return routeOf(hash);
};

export const Workspace = ({
  agent,
  session,
  apiUrl,
}: {
  agent: Agent;
  session: Session;
  apiUrl: string;
}) => {
  const route = useHashRoute();
  const [filter, setFilter] = useState<TaskListFilter>({ state: '', search: '' });
  const [pane, setPane] = useState<PaneKey>('task');
  const [outbox, setOutbox] = useState<Record<string, Said[]>>({});
  const followedId =
    route.page === 'task' ? route.taskId : route.page === 'remote' ? route.parentId : undefined;
  const followed = useFollowedTask(agent, followedId);
  const list = useTaskList(
    agent,
    filter,
    // A sub-task opened or changed is in the list at once: it is one of the caller's tasks too.
    `${followedId ?? ''}|${settledKey(followed.view)}|${followed.view?.name ?? ''}|${(
      followed.view?.sub_tasks ?? []
    )
      .map((row) => `${row.task_id}:${row.state}`)
      .join(',')}`
  );
  const onSent = useCallback(
    (taskId: string, said: Said) =>
      setOutbox((current) => ({ ...current, [taskId]: [...(current[taskId] ?? []), said] })),
    []
  );
  const me = session.participant;
  const identity = identityOf(session);
  useEffect(() => {
    const name = followed.view?.name;
    document.title = name ? `${name} · tiny-harness` : 'tiny-harness';
  }, [followed.view?.name]);
  return (
    <div className="app">
      <Header agentName={agent.card.name} agentUrl={apiUrl} session={session} />
      <div className="layout">
        <TaskList
          tasks={list.tasks}
          error={list.error}
          filter={filter}
          currentId={followedId}
          onFilter={setFilter}
        />
        {route.page === 'task' ? (
          <TaskPage
            key={route.taskId}
            agent={agent}
            taskId={route.taskId}
            followed={followed}
            me={me}
            identity={identity}
            outbox={outbox[route.taskId] ?? []}
            onSent={onSent}
            pane={pane}
            onPane={setPane}
            at={route.at}
          />
        ) : route.page === 'remote' ? (
          <RemotePage
            agent={agent}
            parentId={route.parentId}
            taskId={route.taskId}
            parent={followed}
          />
        ) : (
          <NewTaskPage agent={agent} me={me} identity={identity} onSent={onSent} />
        )}
      </div>
    </div>
  );
};
