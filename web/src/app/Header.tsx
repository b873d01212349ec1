/** The page's header: which agent, as whom, and how to change that. */
import { useId, useState } from 'react';
import { writeOverride } from '../auth/local-token.js';
import type { Session } from '../auth/session.js';

export const identityOf = (session: Session) => session.participant ?? 'an unnamed participant';

export const Header = (props: { agentName: string; agentUrl: string; session: Session }) => {
  const { session } = props;
  const [switching, setSwitching] = useState(false);
  const tokenId = useId();
  const participantId = useId();
  return (
    <header className="top">
      <a className="skip" href="#main">
        Skip to the task
      </a>
      <h1>
        <a href="#/">tiny-harness</a>
        {props.agentName !== 'tiny-harness' && (
          <span className="agent" title={props.agentUrl}>
            {props.agentName}
          </span>
        )}
      </h1>
      <div className="who">
        <span>
          as <strong className="me">{identityOf(session)}</strong>
        </span>
        {session.kind === 'token' ? (
          <button
            type="button"
            onClick={() => setSwitching((open) => !open)}
            aria-expanded={switching}
          >
            Use another token
          </button>
        ) : (
          <button type="button" onClick={() => session.signOut()}>
            Sign out
          </button>
        )}
      </div>
      {switching && (
        <form
          className="switch-token"
          onSubmit={(event) => {
            event.preventDefault();
            const data = new FormData(event.currentTarget);
            const token = String(data.get('token') ?? '').trim();
            const participant = String(data.get('participant') ?? '').trim();
            if (token === '') return;
            writeOverride(window.sessionStorage, { token, participant: participant || null });
            window.location.reload();
          }}
        >
          <label htmlFor={tokenId}>Bearer token (from TINY_HARNESS_BEARER_TOKENS)</label>
          <input id={tokenId} name="token" type="password" autoComplete="off" required />
          <label htmlFor={participantId}>Participant it is (shown only)</label>
          <input id={participantId} name="participant" autoComplete="off" />
          <div className="buttons">
            <button type="submit" className="primary">
              Use it in this tab
            </button>
            <button type="button" onClick={() => session.signOut()}>
              Back to the token npm start gave
            </button>
          </div>
        </form>
      )}
    </header>
  );
};
