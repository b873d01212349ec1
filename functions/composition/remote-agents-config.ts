import * as z from 'zod';
import {
  type AuthConfig,
  AuthSchema,
  authSecrets,
  authUrls,
  cloudSecretProblems,
  environmentSecretValues,
  type NamedSecret,
  plainHttpProblems,
  secretArnsOf,
} from './auth-config.js';
import { namedRecord, parseJsonVariable } from './json-config.js';

/**
 * The directory of remote A2A agents a task may delegate to (`TINY_HARNESS_REMOTE_AGENTS`, CDK
 * context `remoteAgents`): agent id → where its card is, how to authenticate to it, and how to
 * follow its tasks. One schema for `npm start`, the Lambdas and `cdk synth`; the cloud's rules
 * (secrets from Secrets Manager, https) are applied by `remoteAgentsProblems`.
 */

export type { SecretSource } from './auth-config.js';
export type RemoteAgentAuth = AuthConfig;

/** Whole seconds: a Step Functions Wait takes no fraction. */
const seconds = (fallback: number, max: number) => z.int().min(1).max(max).default(fallback);

export const RemoteAgentSchema = z.strictObject({
  /** The agent card's URL (`https://agent.example.com/.well-known/agent-card.json`). */
  card: z.url({ protocol: /^https?$/, error: 'the agent card URL, http(s)' }),
  /** What the model reads about the agent in spawn_subtask's description. */
  description: z.string().max(500).default(''),
  auth: AuthSchema.default({ type: 'none' }),
  /** Follow its tasks by push notification when its card offers them (else by polling). */
  push: z.boolean().default(true),
  /** The first wait between two polls; each quiet poll doubles it, up to `maxPollSeconds`. */
  pollSeconds: seconds(2, 3_600),
  /** The longest wait between two polls; with push, the safety poll's interval. */
  maxPollSeconds: seconds(300, 3_600),
  /** How long the agent may go unanswered (down, timing out, answering garbage) before its child fails. */
  unreachableSeconds: seconds(600, 7 * 86_400),
});
export type RemoteAgentConfig = z.infer<typeof RemoteAgentSchema>;

/** Agent ids are what the model names in spawn_subtask: short, lower case, no spaces. */
export const AGENT_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export const RemoteAgentsSchema = namedRecord(
  RemoteAgentSchema,
  AGENT_ID,
  'not an agent id: lower-case letters, digits, "-" and "_", at most 63'
);
export type RemoteAgentsConfig = z.infer<typeof RemoteAgentsSchema>;

/** The configuration's text (JSON) as the schema reads it; '' or unset is no remote agent. */
export const parseRemoteAgents = (text: string | undefined): RemoteAgentsConfig =>
  parseJsonVariable(RemoteAgentsSchema, text, {});

/** Every secret the directory names, with where (`<agent>.auth.token`), for messages and grants. */
export const remoteAgentSecrets = (agents: RemoteAgentsConfig): NamedSecret[] =>
  Object.entries(agents).flatMap(([agent, config]) => authSecrets(agent, config.auth));

/**
 * What a deployment refuses that `npm start` takes: secrets from the environment or by a partial
 * ARN (`cloudSecretProblems`), and plain http.
 */
export const cloudRemoteAgentsProblems = (agents: RemoteAgentsConfig): string[] => {
  const problems = cloudSecretProblems(remoteAgentSecrets(agents));
  for (const [agent, config] of Object.entries(agents)) {
    problems.push(
      ...plainHttpProblems(
        agent,
        [['card', config.card], ...authUrls(config.auth)],
        'remote agents'
      )
    );
  }
  return problems;
};

/** Every secret ARN the directory names: what the functions that call remote agents may read. */
export const remoteSecretArns = (agents: RemoteAgentsConfig): string[] =>
  secretArnsOf(remoteAgentSecrets(agents));

/**
 * The values of the directory's environment secrets, read from `env`; a variable that is not set
 * is a configuration error naming it. The values are secrets: never logged.
 */
export const environmentSecrets = (
  agents: RemoteAgentsConfig,
  env: Record<string, string | undefined>
): { values: Map<string, string>; missing: string[] } =>
  environmentSecretValues(remoteAgentSecrets(agents), env);
