/**
 * What can be done at a message of the task's history: see the task as it was there (its panes
 * at that point, GetTaskAt), or fork it there (ForkTask), with an optional first message for the
 * fork and an optional name, in a small form under the message.
 */
import { type FormEvent, type KeyboardEvent, useId, useState } from 'react';

export interface ForkOptions {
  name?: string | undefined;
  text?: string | undefined;
}

/** The longest name a fork may be given (ForkTask refuses a longer one). */
export const FORK_NAME_MAX = 200;

export interface HistoryActions {
  /** The message the panes show the task as it was at; undefined while they are live. */
  at: string | undefined;
  /** The task's address at a message, or live with none. */
  hrefAt(messageId: string | undefined): string;
  /** Forks the task at a message: resolves to why it could not, or undefined once forked. */
  fork(messageId: string, options: ForkOptions): Promise<string | undefined>;
  /** What a fork is called when it is given no name. */
  defaultName: string;
}

export const MessageActions = ({
  messageId,
  label,
  actions,
}: {
  messageId: string;
  /** Says which message the actions are at, to a screen reader (each message has its own). */
  label: string;
  actions: HistoryActions;
}) => {
  const [open, setOpen] = useState(false);
  const here = actions.at === messageId;
  return (
    <>
      <div className="message-actions">
        {here ? (
          <a href={actions.hrefAt(undefined)}>
            Back to live<span className="visually-hidden"> (from {label})</span>
          </a>
        ) : (
          <a href={actions.hrefAt(messageId)}>
            As it was here<span className="visually-hidden"> ({label})</span>
          </a>
        )}
        <button
          type="button"
          className="link"
          aria-expanded={open}
          onClick={() => setOpen((was) => !was)}
        >
          Fork from here…<span className="visually-hidden"> ({label})</span>
        </button>
      </div>
      {open && (
        <ForkForm
          label={label}
          defaultName={actions.defaultName}
          onFork={(options) => actions.fork(messageId, options)}
          onClose={() => setOpen(false)}
        />
      )}
    </>
  );
};

const ForkForm = (props: {
  label: string;
  defaultName: string;
  onFork(options: ForkOptions): Promise<string | undefined>;
  onClose(): void;
}) => {
  const [text, setText] = useState('');
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const textId = useId();
  const nameId = useId();
  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(undefined);
    const failed = await props.onFork({
      ...(text.trim() === '' ? {} : { text: text.trim() }),
      ...(name.trim() === '' ? {} : { name: name.trim() }),
    });
    // Forked, the page goes to the fork and this form is gone: nothing left to update.
    if (failed === undefined) return;
    setError(failed);
    setBusy(false);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') props.onClose();
  };
  return (
    <form className="fork-form" aria-label={`Fork from ${props.label}`} onSubmit={submit}>
      <p className="muted">A new task with the conversation up to here; this one stays as it is.</p>
      <label htmlFor={textId}>First message of the fork (optional)</label>
      <textarea
        id={textId}
        value={text}
        rows={2}
        // Opened on purpose: the keyboard goes on in the form.
        // biome-ignore lint/a11y/noAutofocus: opened by the user's own action
        autoFocus
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
            event.preventDefault();
            void submit();
          }
          onKeyDown(event);
        }}
      />
      <label htmlFor={nameId}>Name (optional)</label>
      <input
        id={nameId}
        value={name}
        maxLength={FORK_NAME_MAX}
        placeholder={props.defaultName}
        onChange={(event) => setName(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="buttons">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Forking…' : 'Fork'}
        </button>
        <button type="button" onClick={props.onClose}>
          Back
        </button>
      </div>
      {error !== undefined && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </form>
  );
};
