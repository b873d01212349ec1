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

const whoOf = (said: Said, me: string | null) => {
  if (said.from === 'agent') return 'agent';
  if (said.participant === null || said.participant === me) return 'you';
  return said.participant;
};

export const Messages = (props: {
  messages: Said[];
  view: TaskView | undefined;
  me: string | null;
}) => {
  const { messages, view } = props;
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
  return (
    // A tab stop: the list scrolls on its own, and the keyboard must reach it to scroll it.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region is reached by the keyboard
    <ol className="messages" aria-label="Messages" tabIndex={0}>
      {messages.length === 0 && !unseenReply && (
        <li className="message empty muted">No messages yet.</li>
      )}
      {messages.map((said) => (
        <li
          key={said.id}
          className={`message from-${said.from}${said.pending ? ' pending' : ''}`}
          data-from={said.from}
        >
          <span className="who">{whoOf(said, props.me)}</span>
          <p className="text">{said.text}</p>
        </li>
      ))}
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
