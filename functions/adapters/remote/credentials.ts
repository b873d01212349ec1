import * as z from 'zod';
import { RemoteCallError } from '../../core/errors.js';

/** Reads a secret's value when it is first needed (the environment's, or Secrets Manager's). */
export type SecretReader = () => Promise<string>;

/**
 * How requests to one remote agent authenticate: the headers to send, and a way to drop what a
 * 401 showed to be stale (an expired access token) so the next request gets a fresh one.
 */
export interface Credentials {
  headers(): Promise<Record<string, string>>;
  invalidate(): void;
}

export const noCredentials: Credentials = {
  headers: async () => ({}),
  invalidate: () => undefined,
};

/** A bearer token, read once and kept (a secret: never logged). */
export const bearerCredentials = (token: SecretReader): Credentials => {
  let value: Promise<string> | undefined;
  return {
    headers: async () => {
      value ??= token();
      try {
        return { Authorization: `Bearer ${await value}` };
      } catch (error) {
        value = undefined;
        throw error;
      }
    },
    // A rotated secret is read again.
    invalidate: () => {
      value = undefined;
    },
  };
};

const TokenResponseSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: z.coerce.number().positive().optional(),
});

/** An access token is renewed this long before the expiry its endpoint announced. */
const EXPIRY_MARGIN_MS = 60_000;
/** When the endpoint announces no expiry, a token is kept this long. */
const DEFAULT_LIFETIME_MS = 5 * 60_000;

/**
 * OAuth 2.0 client credentials (RFC 6749 §4.4): an access token from the token endpoint,
 * authenticated with HTTP Basic (§2.3.1), kept until shortly before it expires. The client
 * secret and the tokens are never logged.
 */
export const oauth2Credentials = (options: {
  tokenUrl: string;
  clientId: string;
  clientSecret: SecretReader;
  scope: string | undefined;
  fetch: typeof fetch;
  timeoutMs: number;
  now?: () => number;
}): Credentials => {
  const now = options.now ?? Date.now;
  let cached: { token: string; expiresAt: number } | undefined;
  let pending: Promise<string> | undefined;
  const fetchToken = async (): Promise<string> => {
    const secret = await options.clientSecret();
    const basic = Buffer.from(
      `${encodeURIComponent(options.clientId)}:${encodeURIComponent(secret)}`
    ).toString('base64');
    const body = new URLSearchParams({ grant_type: 'client_credentials' });
    if (options.scope !== undefined) body.set('scope', options.scope);
    let response: Response;
    try {
      response = await options.fetch(options.tokenUrl, {
        method: 'POST',
        headers: {
          Authorization: `Basic ${basic}`,
          'Content-Type': 'application/x-www-form-urlencoded',
          Accept: 'application/json',
        },
        body,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      throw new RemoteCallError(
        'unreachable',
        `its token endpoint did not answer: ${describe(error)}`,
        {
          cause: error,
        }
      );
    }
    if (!response.ok) {
      throw new RemoteCallError(
        'unreachable',
        `its token endpoint refused the client credentials (HTTP ${response.status})`
      );
    }
    const parsed = TokenResponseSchema.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success) {
      throw new RemoteCallError('garbage', 'its token endpoint answered without an access_token');
    }
    const lifetime =
      parsed.data.expires_in === undefined ? DEFAULT_LIFETIME_MS : parsed.data.expires_in * 1000;
    cached = {
      token: parsed.data.access_token,
      expiresAt: now() + Math.max(0, lifetime - EXPIRY_MARGIN_MS),
    };
    return cached.token;
  };
  return {
    headers: async () => {
      if (cached !== undefined && cached.expiresAt > now()) {
        return { Authorization: `Bearer ${cached.token}` };
      }
      pending ??= fetchToken().finally(() => {
        pending = undefined;
      });
      return { Authorization: `Bearer ${await pending}` };
    },
    invalidate: () => {
      cached = undefined;
    },
  };
};

/** A failed request in a few words, without what it carried. */
export const describe = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'no answer in time';
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string')
    return `${cause.code}${typeof cause.message === 'string' ? ` (${cause.message})` : ''}`;
  return error.message.slice(0, 300);
};
