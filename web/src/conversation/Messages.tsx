/** The conversation so far: what the participants and the agent said, oldest first. */
import { useEffect, useRef } from 'react';
import {
  isAsking,
  isAwaitingApproval,
  isAwaitingBudget,
  stateLabel,
} from '../../../functions/view/labels.js';
import { isTerminal } from '../../../functions/view/task-view.js';
import type { Said } from '../app/hooks.js';
import type { TaskView } from '../generated/task-view.js';
import { type HistoryActions, MessageActions } from './MessageActions.js';

const whoOf = (said: Said, me: string | null) => {
  if (said.from === 'agent') return 'agent';
  if (said.participant === null || said.participant === me) return 'you';
  return said.participant;
};

export const Messages = (props: {
  messages: Said[];
  view: TaskView | undefined;
  me: string | null;
  /** Seeing the task as it was at a message, and forking it there: absent, neither is offered. */
  history?: HistoryActions | undefined;
}) => {
  const { messages, view, history } = props;
  const end = useRef<HTMLLIElement>(null);
  const last = messages.at(-1)?.id;
  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll when a message arrives
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'nearest' });
  }, [last, view?.state]);
  // The status message of an ending (a reason, a result) is said once, after the conversation.
  const ending =
    view !== undefined && isTerminal(view)
      ? `Task ${stateLabel(view.state)}${view.status_text === '' ? '' : `: ${view.status_text}`}`
      : undefined;
  // A reply the history has not caught up with yet is shown from the status, and so is what the
  // harness says in it alone (a completion refused). The agent's last reply is not said again
  // below a message sent since.
  const lastReply = messages.filter((said) => said.from === 'agent').at(-1);
  const unseenReply =
    view !== undefined &&
    view.state === 'TASK_STATE_INPUT_REQUIRED' &&
    !isAsking(view) &&
    !isAwaitingApproval(view) &&
    !isAwaitingBudget(view) &&
    view.status_text !== '' &&
    lastReply?.text !== view.status_text;
  // Said after the message the panes show the task at: not part of that past.
  const atIndex =
    history?.at === undefined ? -1 : messages.findIndex((said) => said.id === history.at);
  return (
    // A tab stop: the list scrolls on its own, and the keyboard must reach it to scroll it.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region is reached by the keyboard
    <ol className="messages" aria-label="Messages" tabIndex={0}>
      {messages.length === 0 && !unseenReply && (
        <li className="message empty muted">No messages yet.</li>
      )}
      {messages.map((said, index) => {
        const who = whoOf(said, props.me);
        const tone =
          atIndex === -1 ? '' : index === atIndex ? ' at' : index > atIndex ? ' later' : '';
        return (
          <li
            key={said.id}
            className={`message from-${said.from}${said.pending ? ' pending' : ''}${tone}`}
            data-from={said.from}
            data-message-id={said.id}
            aria-current={index === atIndex ? 'true' : undefined}
          >
            <span className="who">{who}</span>
            <p className="text">{said.text}</p>
            {history !== undefined && !said.pending && (
              <MessageActions
                messageId={said.id}
                label={`message ${index + 1}, ${who === 'you' ? 'yours' : `from ${who}`}`}
                actions={history}
              />
            )}
          </li>
        );
      })}
      {unseenReply && (
        <li className="message from-agent" data-from="agent">
          <span className="who">agent</span>
          <p className="text">{view.status_text}</p>
        </li>
      )}
      {ending !== undefined && (
        <li className="message ending" data-from="status">
          <p className="text">{ending}</p>
        </li>
      )}
      <li ref={end} className="end" aria-hidden="true" />
    </ol>
  );
};
