/**
 * The page: read /config.json, establish who the page acts as (the local token, or a Cognito
 * sign-in), connect to the agent, then show the workspace. Every failure on the way says what to do.
 */
import { useEffect, useState } from 'react';
import { type Agent, connectAgent, describeError } from '../agent/agent.js';
import {
  beginSignIn,
  browserEnv,
  type CognitoSettings,
  cognitoSession,
  completeSignIn,
} from '../auth/cognito.js';
import { tokenSession } from '../auth/local-token.js';
import type { Session } from '../auth/session.js';
import { loadConfig, type WebConfig } from '../config.js';
import { Workspace } from './Workspace.js';

type Phase =
  | { phase: 'loading'; what: string }
  | { phase: 'failed'; message: string }
  | { phase: 'sign-in'; settings: CognitoSettings; message?: string }
  | { phase: 'ready'; agent: Agent; session: Session; config: WebConfig };

const sessionOf = async (config: WebConfig): Promise<Session | CognitoSettings> => {
  if (config.auth.kind === 'token') {
    return tokenSession(config.auth, window.sessionStorage, () => window.location.reload());
  }
  const settings = config.auth;
  const env = browserEnv();
  await completeSignIn(settings, env);
  return cognitoSession(settings, env) ?? settings;
};

export const App = () => {
  const [phase, setPhase] = useState<Phase>({
    phase: 'loading',
    what: 'Reading the configuration…',
  });
  useEffect(() => {
    let cognito: CognitoSettings | undefined;
    const signInAgain = (message: string) => {
      if (cognito !== undefined) setPhase({ phase: 'sign-in', settings: cognito, message });
    };
    void (async () => {
      try {
        const config = await loadConfig();
        if (config.auth.kind === 'cognito') cognito = config.auth;
        const session = await sessionOf(config);
        if (!('accessToken' in session)) {
          setPhase({ phase: 'sign-in', settings: session });
          return;
        }
        setPhase({ phase: 'loading', what: `Connecting to ${config.api_url}…` });
        const agent = await connectAgent(config.api_url, session, (error) =>
          cognito === undefined
            ? setPhase({
                phase: 'failed',
                message: `${error.message}: the token is not one the agent knows. Use the address npm start printed, or another token.`,
              })
            : signInAgain('Your session has ended: sign in again.')
        );
        setPhase({ phase: 'ready', agent, session, config });
      } catch (error) {
        if (cognito !== undefined && (error as Error).name === 'SignInRequired') {
          signInAgain(describeError(error));
          return;
        }
        setPhase({ phase: 'failed', message: describeError(error) });
      }
    })();
  }, []);

  if (phase.phase === 'ready') {
    return <Workspace agent={phase.agent} session={phase.session} apiUrl={phase.config.api_url} />;
  }
  return (
    <main className="splash" id="main">
      <h1>tiny-harness</h1>
      {phase.phase === 'loading' && <p role="status">{phase.what}</p>}
      {phase.phase === 'failed' && (
        <div role="alert" className="error">
          <p>{phase.message}</p>
          <button type="button" onClick={() => window.location.reload()}>
            Try again
          </button>
        </div>
      )}
      {phase.phase === 'sign-in' && (
        <>
          {phase.message !== undefined && (
            <p role="alert" className="error">
              {phase.message}
            </p>
          )}
          <p>Sign in to see your tasks.</p>
          <button
            type="button"
            className="primary"
            onClick={() => void beginSignIn(phase.settings, browserEnv())}
          >
            Sign in
          </button>
        </>
      )}
    </main>
  );
};
