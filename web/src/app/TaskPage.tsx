/**
 * One task: the conversation beside the Task, Plan and Trace panes, all live from its stream; or,
 * when the address names a message, the Task and Plan panes as they were there.
 */
import { type ReactNode, useState } from 'react';
import { stateLabel } from '../../../functions/view/labels.js';
import { controlTo, subTaskTo, textTo } from '../../../functions/view/messages.js';
import { isTerminal } from '../../../functions/view/task-view.js';
import { type Agent, describeError } from '../agent/agent.js';
import { Approval } from '../conversation/Approval.js';
import { BudgetStop } from '../conversation/BudgetStop.js';
import { Composer, type ComposerAction } from '../conversation/Composer.js';
import type { ForkOptions, HistoryActions } from '../conversation/MessageActions.js';
import { Messages } from '../conversation/Messages.js';
import { Progress } from '../conversation/Progress.js';
import { Question } from '../conversation/Question.js';
import type { TaskView } from '../generated/task-view.js';
import { PlanPane } from '../panes/PlanPane.js';
import { StateBadge } from '../panes/StateBadge.js';
import { Tabs } from '../panes/Tabs.js';
import { TaskPane } from '../panes/TaskPane.js';
import { TracePane } from '../panes/TracePane.js';
import {
  type Followed,
  type ForkOrigin,
  type PastView,
  type Said,
  useConversation,
  useForkOrigin,
  useTaskAt,
  useTaskNames,
  useTimeline,
} from './hooks.js';
import { hrefOf } from './route.js';
import { useSend } from './send.js';

export type PaneKey = 'task' | 'plan' | 'trace';

/** A message quoted in a line: its first words. */
const excerpt = (text: string, length = 60) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return `“${line.length > length ? `${line.slice(0, length - 1)}…` : line}”`;
};

const ForkedFrom = ({ origin }: { origin: ForkOrigin }) => (
  <p className="lineage">
    Forked from{' '}
    <a href={hrefOf({ page: 'task', taskId: origin.taskId })}>{origin.name ?? origin.taskId}</a>{' '}
    {origin.messageId === null ? (
      'before its first message'
    ) : (
      <>
        at{' '}
        <a
          href={hrefOf({ page: 'task', taskId: origin.taskId, at: origin.messageId })}
          title="The original as it was at this message"
        >
          {origin.text === undefined ? `message ${origin.messageId}` : excerpt(origin.text)}
        </a>
      </>
    )}
  </p>
);

/** Says the panes show the past, at which message, and leads back to the task as it is. */
const PastBanner = (props: { taskId: string; past: PastView; text: string | undefined }) => (
  <div className="past-view" role="status">
    <p>
      <strong>As it was</strong> at{' '}
      {props.text === undefined ? 'a past message' : excerpt(props.text)}: the Task and Plan tabs
      show the task then, not live.
    </p>
    <a className="button" href={hrefOf({ page: 'task', taskId: props.taskId })}>
      Back to live
    </a>
    {props.past.error !== undefined && (
      <p role="alert" className="error">
        Could not read the task as it was there: {props.past.error}
      </p>
    )}
  </div>
);

/** A pane of the past view: what it draws once read, else that it is being read (or not). */
const pastPane = (past: PastView, draw: (view: TaskView) => ReactNode) =>
  past.view !== undefined ? (
    draw(past.view)
  ) : (
    <p className="muted loading">
      {past.error === undefined ? 'Reading the task as it was…' : 'Not available.'}
    </p>
  );

export const TaskPage = (props: {
  agent: Agent;
  taskId: string;
  followed: Followed;
  me: string | null;
  identity: string;
  outbox: Said[];
  onSent(taskId: string, said: Said): void;
  pane: PaneKey;
  onPane(pane: PaneKey): void;
  /** The message of its history the panes show the task at; undefined: as it is now. */
  at?: string | undefined;
}) => {
  const { agent, taskId, followed } = props;
  const { view } = followed;
  const conversation = useConversation(agent, taskId, view, props.outbox);
  const { send, busy, error } = useSend(agent);
  const [controlError, setControlError] = useState<string>();
  const changeKey =
    view === undefined
      ? ''
      : JSON.stringify([view.state, view.status_text, view.plan, view.sub_tasks]);
  const trace = useTimeline(agent, taskId, props.pane === 'trace', changeKey);
  const past = useTaskAt(agent, taskId, props.at);
  const origin = useForkOrigin(agent, conversation.lineage.forkedFrom);
  const names = useTaskNames(agent, [
    ...[...(view?.sub_tasks ?? []), ...(past?.view?.sub_tasks ?? [])]
      .filter((row) => row.agent === null)
      .map((row) => row.task_id),
    ...conversation.lineage.forks,
    ...(past?.lineage?.forks ?? []),
  ]);
  /** ForkTask at a message, then the fork's page; or why it could not. */
  const fork = async (messageId: string, options: ForkOptions) => {
    try {
      const forked = await agent.fork({ taskId, point: { messageId }, ...options });
      window.location.hash = hrefOf({ page: 'task', taskId: forked.id });
      return undefined;
    } catch (caught) {
      return `Could not fork the task: ${describeError(caught)}`;
    }
  };
  /** A control answer, then the task read until it shows what the answer did. */
  const control = async (payload: Parameters<typeof controlTo>[1]) => {
    const since = view?.updated_at ?? null;
    const task = await send(controlTo(taskId, payload));
    if (task !== undefined) followed.awaitChange(since);
    return task !== undefined;
  };

  const submit = async (action: ComposerAction): Promise<boolean> => {
    setControlError(undefined);
    if (action.kind === 'complete' || action.kind === 'cancel') {
      return control({ action: action.kind, ...(action.reason ? { reason: action.reason } : {}) });
    }
    const message =
      action.kind === 'sub-task'
        ? subTaskTo(taskId, action.description)
        : textTo(taskId, action.text);
    const said =
      (message.parts[0]?.content?.$case === 'text' && message.parts[0].content.value) || '';
    const task = await send(message);
    if (task === undefined) return false;
    props.onSent(taskId, {
      id: message.messageId,
      from: 'participant',
      participant: props.me,
      text: said,
      pending: true,
    });
    return true;
  };

  if (view === undefined) {
    return (
      <main className="task-page" id="main">
        {followed.error === undefined ? (
          <p className="muted loading">Reading the task…</p>
        ) : (
          <div role="alert" className="error">
            <p>{followed.error}</p>
            <button type="button" onClick={followed.retry}>
              Try again
            </button>
          </div>
        )}
      </main>
    );
  }
  const ended = isTerminal(view) ? stateLabel(view.state) : undefined;
  const history: HistoryActions | undefined = agent.forks
    ? {
        at: props.at,
        hrefAt: (messageId) => hrefOf({ page: 'task', taskId, at: messageId }),
        fork,
        defaultName: `${view.name ?? view.id} (fork)`,
      }
    : undefined;
  const pastText =
    past === undefined
      ? undefined
      : (past.text ?? conversation.messages.find((said) => said.id === past.at)?.text);
  return (
    <main className="task-page" id="main">
      <section className="conversation" aria-labelledby="conversation-heading">
        <header className="conversation-head">
          <h2 id="conversation-heading">{view.name ?? view.id}</h2>
          <StateBadge state={view.state} subState={view.sub_state} />
        </header>
        {origin !== undefined && <ForkedFrom origin={origin} />}
        {followed.error !== undefined && (
          <p role="alert" className="error">
            Lost the task's stream: {followed.error}{' '}
            <button type="button" onClick={followed.retry}>
              Follow again
            </button>
          </p>
        )}
        {conversation.error !== undefined && (
          <p role="alert" className="error">
            {conversation.error}
          </p>
        )}
        <Messages messages={conversation.messages} view={view} me={props.me} history={history} />
        <Progress view={view} />
        <Question
          view={view}
          busy={busy}
          onAnswer={(answer) => void submit({ kind: 'message', text: answer })}
        />
        <Approval
          view={view}
          busy={busy}
          onAnswer={(action, reason) =>
            void control({ action, ...(reason === undefined ? {} : { reason }) })
          }
        />
        <BudgetStop
          // A budget set elsewhere starts the fields again from it.
          key={JSON.stringify(view.budget)}
          view={view}
          busy={busy}
          onRaise={(budget) => void control({ action: 'set_budget', budget })}
        />
        <Composer
          newTask={false}
          ended={ended}
          busy={busy}
          identity={props.identity}
          error={error ?? controlError}
          onSubmit={submit}
        />
      </section>
      <aside
        className={past === undefined ? 'panes' : 'panes past'}
        aria-label={past === undefined ? 'Task details' : 'Task details, as it was'}
      >
        {past !== undefined && <PastBanner taskId={taskId} past={past} text={pastText} />}
        <Tabs<PaneKey>
          label="Task details"
          selected={props.pane}
          onSelect={props.onPane}
          tabs={[
            {
              key: 'task',
              label: 'Task',
              panel: () =>
                past === undefined ? (
                  <TaskPane view={view} names={names} forks={conversation.lineage.forks} />
                ) : (
                  pastPane(past, (then) => (
                    <TaskPane view={then} names={names} forks={past.lineage?.forks ?? []} />
                  ))
                ),
            },
            {
              key: 'plan',
              label: 'Plan',
              panel: () =>
                past === undefined ? (
                  <PlanPane view={view} />
                ) : (
                  pastPane(past, (then) => <PlanPane view={then} />)
                ),
            },
            {
              key: 'trace',
              label: 'Trace',
              panel: () => (
                <TracePane
                  timeline={trace.timeline}
                  error={trace.error}
                  loading={trace.loading}
                  audits={agent.audits}
                  onRefresh={trace.refresh}
                />
              ),
            },
          ]}
        />
      </aside>
    </main>
  );
};
