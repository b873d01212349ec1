import { readSecretString } from '../adapters/aws/secret-string.js';
import { A2aRemoteAgents, type RemoteAgentSettings } from '../adapters/remote/a2a-remote-agents.js';
import {
  bearerCredentials,
  type Credentials,
  noCredentials,
  oauth2Credentials,
  type SecretReader,
} from '../adapters/remote/credentials.js';
import type { RemoteAgentAuth, RemoteAgentsConfig, SecretSource } from './remote-agents-config.js';
import type { RuntimeConfig } from './runtime-config.js';

/** One request to a remote agent (its card, its token endpoint, an A2A call) at most this long. */
const REMOTE_TIMEOUT_MS = 15_000;

const secretReader = (source: SecretSource, config: RuntimeConfig): SecretReader => {
  if ('env' in source) {
    const value = config.remoteAgentSecrets.get(source.env);
    return async () => {
      if (value === undefined) throw new Error(`${source.env} is not set`);
      return value;
    };
  }
  return () => readSecretString(source.secretArn, config.AWS_REGION);
};

const credentialsOf = (
  auth: RemoteAgentAuth,
  config: RuntimeConfig,
  fetchImpl: typeof fetch
): Credentials => {
  switch (auth.type) {
    case 'none':
      return noCredentials;
    case 'bearer':
      return bearerCredentials(secretReader(auth.token, config));
    case 'oauth2':
      return oauth2Credentials({
        tokenUrl: auth.tokenUrl,
        clientId: auth.clientId,
        clientSecret: secretReader(auth.clientSecret, config),
        scope: auth.scope,
        fetch: fetchImpl,
        timeoutMs: REMOTE_TIMEOUT_MS,
      });
  }
};

const settingsOf = (
  agents: RemoteAgentsConfig,
  credentials: (auth: RemoteAgentAuth) => Credentials
): RemoteAgentSettings[] =>
  Object.entries(agents).map(([id, agent]) => ({
    id,
    description: agent.description,
    push: agent.push,
    policy: {
      pollSeconds: agent.pollSeconds,
      maxPollSeconds: agent.maxPollSeconds,
      unreachableSeconds: agent.unreachableSeconds,
    },
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
      credentialsOf(auth, config, fetchImpl)
    ),
    fetch: fetchImpl,
    timeoutMs: REMOTE_TIMEOUT_MS,
  });

/** The directory as registration needs it: cards are public, so no credential is read. */
export const registrationAgents = (agents: RemoteAgentsConfig): A2aRemoteAgents =>
  new A2aRemoteAgents({
    agents: settingsOf(agents, () => noCredentials),
    timeoutMs: REMOTE_TIMEOUT_MS,
  });
