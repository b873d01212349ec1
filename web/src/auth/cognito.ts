/**
 * Sign-in with the user pool's hosted UI: OAuth 2.0 authorization code with PKCE (RFC 7636), a
 * public client (no secret in the page). The access token carries the A2A scope API Gateway
 * requires; it is kept for this browser tab (sessionStorage) and refreshed before it expires.
 */
import type { WebConfig } from '../generated/web-config.js';
import { type Session, SignInRequired } from './session.js';

export type CognitoSettings = Extract<WebConfig['auth'], { kind: 'cognito' }>;

/** What the flow touches of the browser, so a test can run it against a stand-in. */
export interface BrowserEnv {
  storage: Storage;
  location: Pick<Location, 'href' | 'origin' | 'hash' | 'assign'>;
  history: Pick<History, 'replaceState'>;
  fetch: typeof fetch;
  crypto: Crypto;
  now(): number;
}

interface Tokens {
  access_token: string;
  refresh_token: string | null;
  /** Epoch milliseconds. */
  expires_at: number;
}

interface Pending {
  state: string;
  verifier: string;
  /** The page's hash when sign-in began, to come back to it. */
  return_to: string;
}

const TOKENS_KEY = 'tiny-harness.cognito.tokens';
/** Sign-out waits this long at most for the revocation before it leaves for the hosted UI. */
const REVOKE_TIMEOUT_MS = 3_000;
const PENDING_KEY = 'tiny-harness.cognito.pending';
/** Refresh this long before the token expires, so no call goes out with an expiring one. */
const EARLY_MS = 60_000;

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

const randomString = (env: BrowserEnv, size: number) =>
  base64url(env.crypto.getRandomValues(new Uint8Array(size)));

const challengeOf = async (env: BrowserEnv, verifier: string) =>
  base64url(
    new Uint8Array(await env.crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)))
  );

export const redirectUriOf = (env: Pick<BrowserEnv, 'location'>) => `${env.location.origin}/`;

const readJson = <T>(storage: Storage, key: string): T | undefined => {
  try {
    return (JSON.parse(storage.getItem(key) ?? 'null') as T | null) ?? undefined;
  } catch {
    return undefined;
  }
};

/** Sends the browser to the hosted UI; it comes back to `/` with `?code=…&state=…`. */
export const beginSignIn = async (settings: CognitoSettings, env: BrowserEnv): Promise<void> => {
  const verifier = randomString(env, 48);
  const pending: Pending = {
    state: randomString(env, 16),
    verifier,
    return_to: env.location.hash,
  };
  env.storage.setItem(PENDING_KEY, JSON.stringify(pending));
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: settings.client_id,
    redirect_uri: redirectUriOf(env),
    scope: settings.scopes.join(' '),
    state: pending.state,
    code_challenge: await challengeOf(env, verifier),
    code_challenge_method: 'S256',
  });
  env.location.assign(`${settings.domain}/oauth2/authorize?${query}`);
};

const tokenRequest = async (
  settings: CognitoSettings,
  env: BrowserEnv,
  form: Record<string, string>
): Promise<Tokens> => {
  const response = await env.fetch(`${settings.domain}/oauth2/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: settings.client_id, ...form }),
  });
  const body = (await response.json().catch(() => ({}))) as {
    access_token?: string;
    refresh_token?: string;
    expires_in?: number;
    error?: string;
    error_description?: string;
  };
  if (!response.ok || typeof body.access_token !== 'string') {
    throw new SignInRequired(
      `sign-in failed: ${body.error_description ?? body.error ?? `HTTP ${response.status}`}`
    );
  }
  return {
    access_token: body.access_token,
    refresh_token: body.refresh_token ?? form.refresh_token ?? null,
    expires_at: env.now() + (body.expires_in ?? 3600) * 1000,
  };
};

/**
 * Revokes a refresh token (RFC 7009, Cognito's /oauth2/revoke): it, and every access token it
 * issued, can no longer be refreshed or used with Cognito. The page's client is public, so the
 * client id alone identifies it. A form POST with no other header needs no CORS preflight, so
 * the request reaches Cognito even where the page may not read the answer: a failure is not the
 * user's to handle, sign-out goes on.
 */
const revokeRefreshToken = async (
  settings: CognitoSettings,
  env: BrowserEnv,
  token: string
): Promise<void> => {
  try {
    await env.fetch(`${settings.domain}/oauth2/revoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, client_id: settings.client_id }),
      signal: AbortSignal.timeout(REVOKE_TIMEOUT_MS),
    });
  } catch {
    // Offline, timed out, or an answer CORS hides: the token still expires on its own.
  }
};

/**
 * Back from the hosted UI: trades the code for tokens (checking the state it was sent with) and
 * takes the code out of the address bar. Nothing to do on an ordinary load.
 */
export const completeSignIn = async (
  settings: CognitoSettings,
  env: BrowserEnv
): Promise<boolean> => {
  const url = new URL(env.location.href);
  const code = url.searchParams.get('code');
  const error = url.searchParams.get('error');
  if (code === null && error === null) return false;
  const pending = readJson<Pending>(env.storage, PENDING_KEY);
  env.storage.removeItem(PENDING_KEY);
  env.history.replaceState(null, '', `/${pending?.return_to ?? ''}`);
  if (error !== null) {
    throw new SignInRequired(
      `sign-in failed: ${url.searchParams.get('error_description') ?? error}`
    );
  }
  if (pending === undefined || url.searchParams.get('state') !== pending.state) {
    throw new SignInRequired('sign-in failed: the answer does not match a sign-in from this tab');
  }
  const tokens = await tokenRequest(settings, env, {
    grant_type: 'authorization_code',
    code: code ?? '',
    redirect_uri: redirectUriOf(env),
    code_verifier: pending.verifier,
  });
  env.storage.setItem(TOKENS_KEY, JSON.stringify(tokens));
  return true;
};

/** The claims of a JWT, unverified: only to show who is signed in (API Gateway verifies it). */
export const claimsOf = (token: string): Record<string, unknown> => {
  try {
    const payload = token.split('.')[1] ?? '';
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const bytes = Uint8Array.from(json, (char) => char.charCodeAt(0));
    return JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
  } catch {
    return {};
  }
};

/** The participant a token is: the configured claim, else `username`, else `sub` (docs/identity.md). */
export const participantOf = (token: string, claim: string): string | null => {
  const claims = claimsOf(token);
  for (const name of [claim, 'username', 'sub']) {
    if (typeof claims[name] === 'string') return claims[name] as string;
  }
  return null;
};

/** The signed-in session, or undefined when this tab has not signed in. */
export const cognitoSession = (settings: CognitoSettings, env: BrowserEnv): Session | undefined => {
  let tokens = readJson<Tokens>(env.storage, TOKENS_KEY);
  if (tokens === undefined) return undefined;
  let refreshing: Promise<Tokens> | undefined;
  return {
    kind: 'cognito',
    participant: participantOf(tokens.access_token, settings.participant_claim),
    accessToken: async () => {
      const current = tokens;
      if (current === undefined) throw new SignInRequired('signed out');
      if (current.expires_at - EARLY_MS > env.now()) return current.access_token;
      if (current.refresh_token === null) throw new SignInRequired('the session has expired');
      refreshing ??= tokenRequest(settings, env, {
        grant_type: 'refresh_token',
        refresh_token: current.refresh_token,
      }).finally(() => {
        refreshing = undefined;
      });
      tokens = await refreshing;
      env.storage.setItem(TOKENS_KEY, JSON.stringify(tokens));
      return tokens.access_token;
    },
    signOut: () => {
      const refresh = tokens?.refresh_token ?? null;
      tokens = undefined;
      env.storage.removeItem(TOKENS_KEY);
      const query = new URLSearchParams({
        client_id: settings.client_id,
        logout_uri: redirectUriOf(env),
      });
      const leave = () => env.location.assign(`${settings.domain}/logout?${query}`);
      // Revoked before the page leaves: a navigation would cancel the request.
      if (refresh === null) leave();
      else void revokeRefreshToken(settings, env, refresh).then(leave);
    },
  };
};

export const browserEnv = (): BrowserEnv => ({
  storage: window.sessionStorage,
  location: window.location,
  history: window.history,
  fetch: (input, init) => fetch(input, init),
  crypto: window.crypto,
  now: () => Date.now(),
});
