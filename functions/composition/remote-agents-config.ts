import * as z from 'zod';
import { parseJsonVariable } from './json-config.js';
import { SECRET_ARN } from './model-config.js';

/**
 * The directory of remote A2A agents a task may delegate to (`TINY_HARNESS_REMOTE_AGENTS`, CDK
 * context `remoteAgents`): agent id → where its card is, how to authenticate to it, and how to
 * follow its tasks. One schema for `npm start`, the Lambdas and `cdk synth`; the cloud's rules
 * (secrets from Secrets Manager, https) are applied by `remoteAgentsProblems`.
 */

/** Where a secret comes from: an environment variable (locally) or a Secrets Manager secret. */
const SecretSourceSchema = z.union([
  z.strictObject({
    env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the name of an environment variable')
      .describe('Locally: the variable holding the secret.'),
  }),
  z.strictObject({
    secretArn: z
      .string()
      .min(1)
      .describe('In the cloud: the Secrets Manager secret (its full ARN) holding the secret.'),
  }),
]);
export type SecretSource = z.infer<typeof SecretSourceSchema>;

const AuthSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('none') }),
  z.strictObject({ type: z.literal('bearer'), token: SecretSourceSchema }),
  z.strictObject({
    type: z.literal('oauth2'),
    /** The token endpoint of an OAuth 2.0 client-credentials grant (RFC 6749 §4.4). */
    tokenUrl: z.url({ protocol: /^https?$/, error: 'an http(s) URL' }),
    clientId: z.string().min(1),
    clientSecret: SecretSourceSchema,
    scope: z.string().min(1).optional(),
  }),
]);
export type RemoteAgentAuth = z.infer<typeof AuthSchema>;

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

export const RemoteAgentsSchema = z
  .record(z.string(), RemoteAgentSchema)
  .superRefine((agents, context) => {
    for (const id of Object.keys(agents)) {
      if (AGENT_ID.test(id)) continue;
      context.addIssue({
        code: 'custom',
        path: [id],
        message: 'not an agent id: lower-case letters, digits, "-" and "_", at most 63',
      });
    }
  });
export type RemoteAgentsConfig = z.infer<typeof RemoteAgentsSchema>;

/** The configuration's text (JSON) as the schema reads it; '' or unset is no remote agent. */
export const parseRemoteAgents = (text: string | undefined): RemoteAgentsConfig =>
  parseJsonVariable(RemoteAgentsSchema, text, {});

/** Every secret source of the directory, with where it is used (for messages and grants). */
export const secretSourcesOf = (
  agents: RemoteAgentsConfig
): Array<{ agent: string; field: string; source: SecretSource }> =>
  Object.entries(agents).flatMap(([agent, config]) => {
    const { auth } = config;
    if (auth.type === 'bearer') return [{ agent, field: 'auth.token', source: auth.token }];
    if (auth.type === 'oauth2')
      return [{ agent, field: 'auth.clientSecret', source: auth.clientSecret }];
    return [];
  });

/**
 * What a deployment refuses that `npm start` takes: a secret in the environment (a Lambda's
 * environment is readable by anyone who can read the function), a secret named by anything but
 * its full ARN (an IAM grant on a partial ARN matches nothing), and plain http.
 */
export const cloudRemoteAgentsProblems = (agents: RemoteAgentsConfig): string[] => {
  const problems: string[] = [];
  for (const { agent, field, source } of secretSourcesOf(agents)) {
    if ('env' in source) {
      problems.push(
        `${agent}.${field}: in a deployment a secret comes from Secrets Manager: {"secretArn": "arn:aws:secretsmanager:…"}, not from the environment`
      );
    } else if (!SECRET_ARN.test(source.secretArn)) {
      problems.push(
        `${agent}.${field}: the secret's full ARN, with the six characters Secrets Manager adds to its name (arn:aws:secretsmanager:<region>:<account>:secret:<name>-AbCdEf)`
      );
    }
  }
  for (const [agent, config] of Object.entries(agents)) {
    const urls = [
      ['card', config.card],
      ...(config.auth.type === 'oauth2' ? [['auth.tokenUrl', config.auth.tokenUrl]] : []),
    ];
    for (const [field, url] of urls) {
      if (url?.startsWith('http://')) {
        problems.push(`${agent}.${field}: a deployment calls remote agents over https only`);
      }
    }
  }
  return problems;
};

/** Every secret ARN the directory names: what the functions that call remote agents may read. */
export const remoteSecretArns = (agents: RemoteAgentsConfig): string[] => [
  ...new Set(
    secretSourcesOf(agents).flatMap(({ source }) =>
      'secretArn' in source ? [source.secretArn] : []
    )
  ),
];

/**
 * The values of the directory's environment secrets, read from `env`; a variable that is not set
 * is a configuration error naming it. The values are secrets: never logged.
 */
export const environmentSecrets = (
  agents: RemoteAgentsConfig,
  env: Record<string, string | undefined>
): { values: Map<string, string>; missing: string[] } => {
  const values = new Map<string, string>();
  const missing: string[] = [];
  for (const { agent, field, source } of secretSourcesOf(agents)) {
    if (!('env' in source)) continue;
    const value = env[source.env];
    if (value === undefined || value === '') {
      missing.push(`${agent}.${field} names ${source.env}, which is not set`);
    } else {
      values.set(source.env, value);
    }
  }
  return { values, missing };
};
