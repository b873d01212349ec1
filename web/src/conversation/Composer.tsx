/**
 * The composer: a message (Enter sends, Shift+Enter starts a new line), and the task's controls:
 * complete or cancel it (the control envelope, with an optional reason) and start a `/sub-task`.
 * The identity in use is said beside it.
 */
import { type FormEvent, type KeyboardEvent, useId, useState } from 'react';

export type ComposerAction =
  | { kind: 'message'; text: string }
  | { kind: 'complete'; reason: string }
  | { kind: 'cancel'; reason: string }
  | { kind: 'sub-task'; description: string };

type Mode = 'message' | 'complete' | 'cancel' | 'sub-task';

const MODE_TEXT: Record<Exclude<Mode, 'message'>, { label: string; submit: string }> = {
  complete: { label: 'Why is it complete? (optional)', submit: 'Complete the task' },
  cancel: { label: 'Why cancel it? (optional)', submit: 'Cancel the task' },
  'sub-task': { label: 'What is the sub-task for?', submit: 'Start the sub-task' },
};

export const Composer = (props: {
  /** No task yet: the first message starts one. */
  newTask: boolean;
  /** The task has ended: nothing more can be sent. */
  ended: string | undefined;
  busy: boolean;
  identity: string;
  error: string | undefined;
  onSubmit(action: ComposerAction): Promise<boolean>;
}) => {
  const [mode, setMode] = useState<Mode>('message');
  const [text, setText] = useState('');
  const [extra, setExtra] = useState('');
  const messageId = useId();
  const extraId = useId();
  const identityId = useId();

  const submitMessage = async () => {
    const trimmed = text.trim();
    if (trimmed === '' || props.busy) return;
    if (await props.onSubmit({ kind: 'message', text: trimmed })) setText('');
  };
  const submitExtra = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = extra.trim();
    if (mode === 'message' || props.busy) return;
    if (mode === 'sub-task' && trimmed === '') return;
    const action: ComposerAction =
      mode === 'sub-task'
        ? { kind: 'sub-task', description: trimmed }
        : { kind: mode, reason: trimmed };
    if (await props.onSubmit(action)) {
      setExtra('');
      setMode('message');
    }
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void submitMessage();
    }
  };

  if (props.ended !== undefined) {
    return (
      <div className="composer ended">
        <p className="muted">This task has ended ({props.ended}): nothing more can be sent.</p>
        <p className="identity" id={identityId}>
          as <strong>{props.identity}</strong>
        </p>
      </div>
    );
  }
  return (
    <div className="composer">
      {mode === 'message' ? (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void submitMessage();
          }}
        >
          <label htmlFor={messageId} className="visually-hidden">
            {props.newTask ? 'Describe a new task' : 'Message'}
          </label>
          <textarea
            id={messageId}
            value={text}
            rows={2}
            placeholder={
              props.newTask
                ? 'Describe a new task, and press Enter'
                : 'Message the agent (Enter sends, Shift+Enter for a new line)'
            }
            aria-describedby={identityId}
            onChange={(event) => setText(event.target.value)}
            onKeyDown={onKeyDown}
          />
          <button type="submit" className="primary" disabled={props.busy || text.trim() === ''}>
            {props.newTask ? 'Start' : 'Send'}
          </button>
        </form>
      ) : (
        <form onSubmit={submitExtra} className="extra">
          <label htmlFor={extraId}>{MODE_TEXT[mode].label}</label>
          <input
            id={extraId}
            value={extra}
            // The field the user just asked for: focus it so the keyboard can go on.
            // biome-ignore lint/a11y/noAutofocus: opened on purpose by the user's own action
            autoFocus
            required={mode === 'sub-task'}
            onChange={(event) => setExtra(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Escape') setMode('message');
            }}
          />
          <div className="buttons">
            <button
              type="submit"
              className={mode === 'cancel' ? 'danger' : 'primary'}
              disabled={props.busy || (mode === 'sub-task' && extra.trim() === '')}
            >
              {MODE_TEXT[mode].submit}
            </button>
            <button type="button" onClick={() => setMode('message')}>
              Back
            </button>
          </div>
        </form>
      )}
      {props.error !== undefined && (
        <p role="alert" className="error">
          {props.error}
        </p>
      )}
      <div className="composer-foot">
        <p className="identity" id={identityId}>
          as <strong>{props.identity}</strong>
        </p>
        {!props.newTask && mode === 'message' && (
          <fieldset className="controls">
            <legend className="visually-hidden">Task controls</legend>
            <button type="button" onClick={() => setMode('sub-task')}>
              Sub-task…
            </button>
            <button type="button" onClick={() => setMode('complete')}>
              Complete…
            </button>
            <button type="button" onClick={() => setMode('cancel')}>
              Cancel task…
            </button>
          </fieldset>
        )}
      </div>
    </div>
  );
};
