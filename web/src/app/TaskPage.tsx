/** One task: the conversation beside the Task, Plan and Trace panes, all live from its stream. */
import { useState } from 'react';
import { stateLabel } from '../../../functions/view/labels.js';
import { controlTo, subTaskTo, textTo } from '../../../functions/view/messages.js';
import { isTerminal } from '../../../functions/view/task-view.js';
import type { Agent } from '../agent/agent.js';
import { Approval } from '../conversation/Approval.js';
import { BudgetStop } from '../conversation/BudgetStop.js';
import { Composer, type ComposerAction } from '../conversation/Composer.js';
import { Messages } from '../conversation/Messages.js';
import { Progress } from '../conversation/Progress.js';
import { Question } from '../conversation/Question.js';
import { PlanPane } from '../panes/PlanPane.js';
import { StateBadge } from '../panes/StateBadge.js';
import { Tabs } from '../panes/Tabs.js';
import { TaskPane } from '../panes/TaskPane.js';
import { TracePane } from '../panes/TracePane.js';
import {
  type Followed,
  type Said,
  useConversation,
  useSubTaskNames,
  useTimeline,
} from './hooks.js';
import { useSend } from './send.js';

export type PaneKey = 'task' | 'plan' | 'trace';

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
  const names = useSubTaskNames(agent, view?.sub_tasks ?? []);
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
  return (
    <main className="task-page" id="main">
      <section className="conversation" aria-labelledby="conversation-heading">
        <header className="conversation-head">
          <h2 id="conversation-heading">{view.name ?? view.id}</h2>
          <StateBadge state={view.state} subState={view.sub_state} />
        </header>
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
        <Messages messages={conversation.messages} view={view} me={props.me} />
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
      <aside className="panes" aria-label="Task details">
        <Tabs<PaneKey>
          label="Task details"
          selected={props.pane}
          onSelect={props.onPane}
          tabs={[
            { key: 'task', label: 'Task', panel: () => <TaskPane view={view} names={names} /> },
            { key: 'plan', label: 'Plan', panel: () => <PlanPane view={view} /> },
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
