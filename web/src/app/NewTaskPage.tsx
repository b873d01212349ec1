/** No task yet: the first message starts a conversation task, and the page goes to it. */
import { textTo } from '../../../functions/view/messages.js';
import type { Agent } from '../agent/agent.js';
import { Composer } from '../conversation/Composer.js';
import type { Said } from './hooks.js';
import { hrefOf } from './route.js';
import { useSend } from './send.js';

export const NewTaskPage = (props: {
  agent: Agent;
  me: string | null;
  identity: string;
  onSent(taskId: string, said: Said): void;
}) => {
  const { send, busy, error } = useSend(props.agent);
  return (
    <main className="task-page new-task" id="main">
      <section className="conversation" aria-labelledby="new-heading">
        <header className="conversation-head">
          <h2 id="new-heading">New task</h2>
        </header>
        <div className="welcome">
          <p>
            Say what you need from <strong>{props.agent.card.name}</strong>. Your first message
            starts a task: its plan, sub-tasks and trace show beside the conversation as the agent
            works.
          </p>
        </div>
        <Composer
          newTask
          ended={undefined}
          busy={busy}
          identity={props.identity}
          error={error}
          onSubmit={async (action) => {
            if (action.kind !== 'message') return false;
            const message = textTo(undefined, action.text);
            const task = await send(message);
            if (task === undefined) return false;
            props.onSent(task.id, {
              id: message.messageId,
              from: 'participant',
              participant: props.me,
              text: action.text,
              pending: true,
            });
            window.location.hash = hrefOf({ page: 'task', taskId: task.id });
            return true;
          }}
        />
      </section>
    </main>
  );
};
