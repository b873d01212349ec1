import { A2aRemoteAgents, type RemoteAgentSettings } from '../adapters/remote/a2a-remote-agents.js';
import { type Credentials, noCredentials } from '../adapters/remote/credentials.js';
import { credentialsOf } from './credentials.js';
import { rosterEntryOf } from './remote-agent-roster.js';
import type { RemoteAgentAuth, RemoteAgentsConfig } from './remote-agents-config.js';
import type { RuntimeConfig } from './runtime-config.js';
import { rememberSecret } from './secret-list.js';

/** One request to a remote agent (its card, its token endpoint, an A2A call) at most this long. */
const REMOTE_TIMEOUT_MS = 15_000;

const settingsOf = (
  agents: RemoteAgentsConfig,
  credentials: (auth: RemoteAgentAuth) => Credentials
): RemoteAgentSettings[] =>
  Object.entries(agents).map(([id, agent]) => ({
    ...rosterEntryOf(id, agent),
    cardUrl: agent.card,
    credentials: credentials(agent.auth),
  }));

/** The directory of remote agents from configuration (TINY_HARNESS_REMOTE_AGENTS). */
export const buildRemoteAgents = (
  config: RuntimeConfig,
  fetchImpl: typeof fetch = fetch
): A2aRemoteAgents =>
  new A2aRemoteAgents({
    agents: settingsOf(config.TINY_HARNESS_REMOTE_AGENTS, (auth) =>
      credentialsOf(
        auth,
        {
          environment: config.remoteAgentSecrets,
          region: config.AWS_REGION,
          remember: (secret) => rememberSecret(config, secret),
        },
        { fetch: fetchImpl, timeoutMs: REMOTE_TIMEOUT_MS }
      )
    ),
    fetch: fetchImpl,
    timeoutMs: REMOTE_TIMEOUT_MS,
    // The same switch as webhooks': http to loopback is for two stacks on one machine.
    endpoints: { allowLoopback: config.TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS },
  });

/**
 * The directory as a deployment's registration needs it: cards are public, so no credential is
 * read. Its function is given no TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS: endpoints are https.
 */
export const registrationAgents = (
  agents: RemoteAgentsConfig,
  env: Record<string, string | undefined> = process.env
): A2aRemoteAgents =>
  new A2aRemoteAgents({
    agents: settingsOf(agents, () => noCredentials),
    timeoutMs: REMOTE_TIMEOUT_MS,
    // Read alone, not with the runtime's whole schema: this function's bundle holds no more.
    endpoints: { allowLoopback: env.TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS === 'true' },
  });
