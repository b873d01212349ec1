import * as z from 'zod';
import { SECRET_ARN } from './model-config.js';

/**
 * How the harness authenticates to a server it calls (a remote A2A agent, an MCP server): none, a
 * bearer token, or OAuth 2.0 client credentials; each secret from the environment (locally) or
 * from Secrets Manager (in the cloud). One schema for `npm start`, the Lambdas and `cdk synth`.
 */

/** Where a secret comes from: an environment variable (locally) or a Secrets Manager secret. */
export const SecretSourceSchema = z.union([
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

export const AuthSchema = z.discriminatedUnion('type', [
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
export type AuthConfig = z.infer<typeof AuthSchema>;

/** A secret an entry's auth names, with where (`<entry>.auth.token`) for messages. */
export interface NamedSecret {
  where: string;
  source: SecretSource;
}

/** The secrets `auth` names, labelled by `entry` (an agent id, a server name). */
export const authSecrets = (entry: string, auth: AuthConfig): NamedSecret[] => {
  if (auth.type === 'bearer') return [{ where: `${entry}.auth.token`, source: auth.token }];
  if (auth.type === 'oauth2')
    return [{ where: `${entry}.auth.clientSecret`, source: auth.clientSecret }];
  return [];
};

/**
 * What a deployment refuses of a secret that `npm start` takes: one in the environment (a
 * Lambda's environment is readable by anyone who can read the function), and one named by
 * anything but its full ARN (an IAM grant on a partial ARN matches nothing).
 */
export const cloudSecretProblems = (secrets: readonly NamedSecret[]): string[] =>
  secrets.flatMap(({ where, source }) => {
    if ('env' in source) {
      return [
        `${where}: in a deployment a secret comes from Secrets Manager: {"secretArn": "arn:aws:secretsmanager:…"}, not from the environment`,
      ];
    }
    if (!SECRET_ARN.test(source.secretArn)) {
      return [
        `${where}: the secret's full ARN, with the six characters Secrets Manager adds to its name (arn:aws:secretsmanager:<region>:<account>:secret:<name>-AbCdEf)`,
      ];
    }
    return [];
  });

/** The secret ARNs named: what the functions that use them may read, and nothing else. */
export const secretArnsOf = (secrets: readonly NamedSecret[]): string[] => [
  ...new Set(secrets.flatMap(({ source }) => ('secretArn' in source ? [source.secretArn] : []))),
];

/**
 * The values of the environment secrets named, read from `env`; a variable that is not set is a
 * configuration error naming it. The values are secrets: never logged.
 */
export const environmentSecretValues = (
  secrets: readonly NamedSecret[],
  env: Record<string, string | undefined>
): { values: Map<string, string>; missing: string[] } => {
  const values = new Map<string, string>();
  const missing: string[] = [];
  for (const { where, source } of secrets) {
    if (!('env' in source)) continue;
    const value = env[source.env];
    if (value === undefined || value === '') {
      missing.push(`${where} names ${source.env}, which is not set`);
    } else {
      values.set(source.env, value);
    }
  }
  return { values, missing };
};

/** The fields of `urls` that are plain http, each a problem: a deployment calls `what` over https only. */
export const plainHttpProblems = (
  entry: string,
  urls: ReadonlyArray<readonly [field: string, url: string]>,
  what: string
): string[] =>
  urls.flatMap(([field, url]) =>
    url.startsWith('http://')
      ? [`${entry}.${field}: a deployment calls ${what} over https only`]
      : []
  );

/** The URLs of `auth` a deployment checks (the token endpoint), by field. */
export const authUrls = (auth: AuthConfig): Array<readonly [string, string]> =>
  auth.type === 'oauth2' ? [['auth.tokenUrl', auth.tokenUrl]] : [];
