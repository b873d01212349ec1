import { readSecretString } from '../adapters/aws/secret-string.js';
import {
  bearerCredentials,
  type Credentials,
  noCredentials,
  oauth2Credentials,
  type SecretReader,
} from '../adapters/remote/credentials.js';
import type { AuthConfig, SecretSource } from './auth-config.js';

/** Where the configured secrets are read: the environment's values (read at start) and the region. */
export interface SecretsAt {
  /** The values of the environment secrets the configuration names, by variable. */
  environment: ReadonlyMap<string, string>;
  region: string;
  /**
   * Told each secret read from Secrets Manager, as it is read: it joins the secrets the logs and
   * intake mask (`rememberSecret`). The environment's are there from the start.
   */
  remember?: (secret: string) => void;
}

/** A secret read when first needed: from the environment, or from Secrets Manager. */
export const secretReader = (source: SecretSource, at: SecretsAt): SecretReader => {
  if ('env' in source) {
    const value = at.environment.get(source.env);
    return async () => {
      if (value === undefined) throw new Error(`${source.env} is not set`);
      return value;
    };
  }
  return async () => {
    const value = await readSecretString(source.secretArn, at.region);
    at.remember?.(value);
    return value;
  };
};

/** The credentials a configured `auth` sends (secrets and tokens are never logged). */
export const credentialsOf = (
  auth: AuthConfig,
  at: SecretsAt,
  options: { fetch: typeof fetch; timeoutMs: number }
): Credentials => {
  switch (auth.type) {
    case 'none':
      return noCredentials;
    case 'bearer':
      return bearerCredentials(secretReader(auth.token, at));
    case 'oauth2':
      return oauth2Credentials({
        tokenUrl: auth.tokenUrl,
        clientId: auth.clientId,
        clientSecret: secretReader(auth.clientSecret, at),
        scope: auth.scope,
        fetch: options.fetch,
        timeoutMs: options.timeoutMs,
      });
  }
};
