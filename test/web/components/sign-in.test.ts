// @vitest-environment happy-dom
/**
 * Sign-in with the hosted UI (authorization code with PKCE), run against a stand-in of the
 * browser and of Cognito's token endpoint: what the page sends, what it keeps, when it refreshes.
 */
import { createHash, webcrypto } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type BrowserEnv,
  beginSignIn,
  type CognitoSettings,
  cognitoSession,
  completeSignIn,
  participantOf,
} from '../../../web/src/auth/cognito.js';

const SETTINGS: CognitoSettings = {
  kind: 'cognito',
  domain: 'https://harness-prod-1.auth.eu-west-1.amazoncognito.com',
  client_id: 'web-client',
  scopes: ['openid', 'tiny-harness/a2a'],
  participant_claim: 'cognito:username',
};

const jwt = (claims: Record<string, unknown>) =>
  ['{"alg":"none"}', JSON.stringify(claims), 'sig']
    .map((part) => Buffer.from(part).toString('base64url'))
    .join('.');

/** A browser tab at `href` and a token endpoint answering `answers` in turn. */
const tab = (href: string, answers: Array<{ status: number; body: unknown }> = []) => {
  const storage = new Map<string, string>();
  const calls: Array<{ url: string; form: URLSearchParams; headers: Headers; at: string }> = [];
  const state = { href, assigned: '', replaced: '', now: 1_000_000 };
  const env: BrowserEnv = {
    storage: {
      getItem: (key: string) => storage.get(key) ?? null,
      setItem: (key: string, value: string) => {
        storage.set(key, value);
      },
      removeItem: (key: string) => {
        storage.delete(key);
      },
    } as unknown as Storage,
    location: {
      get href() {
        return state.href;
      },
      origin: new URL(href).origin,
      hash: new URL(href).hash,
      assign: (url: string | URL) => {
        state.assigned = String(url);
      },
    },
    history: {
      replaceState: (_data: unknown, _unused: string, url?: string | URL | null) => {
        state.replaced = String(url);
      },
    },
    fetch: async (input, init) => {
      calls.push({
        url: String(input),
        form: new URLSearchParams(String(init?.body)),
        headers: new Headers(init?.headers),
        // Where the page was when it asked: a request after it left would never be sent.
        at: state.assigned,
      });
      const answer = answers.shift() ?? { status: 500, body: {} };
      return new Response(JSON.stringify(answer.body), { status: answer.status });
    },
    crypto: webcrypto as unknown as Crypto,
    now: () => state.now,
  };
  return { env, storage, calls, state };
};

const LOGOUT = `${SETTINGS.domain}/logout?client_id=web-client&logout_uri=https%3A%2F%2Fweb.example%2F`;

/** Tokens of a tab signed in an hour ago. */
const signedIn = (now: number) => ({
  access_token: 'access-1',
  refresh_token: 'refresh-1',
  expires_at: now + 3_600_000,
});

/** Until the page has left (sign-out navigates once the revocation is settled). */
const left = async (state: { assigned: string }) => {
  for (let tries = 0; state.assigned === '' && tries < 100; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe('signing in with the hosted UI', () => {
  it('sends the browser to /oauth2/authorize with a S256 challenge of a verifier it keeps, and the state', async () => {
    const { env, storage, state } = tab('https://web.example/#/tasks/t-1');
    await beginSignIn(SETTINGS, env);
    const url = new URL(state.assigned);
    expect(`${url.origin}${url.pathname}`).toBe(`${SETTINGS.domain}/oauth2/authorize`);
    const query = Object.fromEntries(url.searchParams);
    const pending = JSON.parse(storage.get('tiny-harness.cognito.pending') ?? '{}');
    expect(query).toEqual({
      response_type: 'code',
      client_id: 'web-client',
      redirect_uri: 'https://web.example/',
      scope: 'openid tiny-harness/a2a',
      state: pending.state,
      code_challenge: createHash('sha256').update(pending.verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    expect(pending.verifier.length).toBeGreaterThanOrEqual(43);
    expect(pending.return_to).toBe('#/tasks/t-1');
  });

  it('trades the code for tokens with the verifier, keeps them, and goes back to where it was', async () => {
    const first = tab('https://web.example/#/tasks/t-1');
    await beginSignIn(SETTINGS, first.env);
    const pending = JSON.parse(first.storage.get('tiny-harness.cognito.pending') ?? '{}');
    const access = jwt({ 'cognito:username': 'alice', sub: 'abc' });
    const back = tab(`https://web.example/?code=the-code&state=${pending.state}`, [
      { status: 200, body: { access_token: access, refresh_token: 'refresh-1', expires_in: 3600 } },
    ]);
    back.storage.set('tiny-harness.cognito.pending', JSON.stringify(pending));
    expect(await completeSignIn(SETTINGS, back.env)).toBe(true);
    expect(back.calls[0]?.url).toBe(`${SETTINGS.domain}/oauth2/token`);
    expect(Object.fromEntries(back.calls[0]?.form ?? [])).toEqual({
      client_id: 'web-client',
      grant_type: 'authorization_code',
      code: 'the-code',
      redirect_uri: 'https://web.example/',
      code_verifier: pending.verifier,
    });
    expect(back.state.replaced).toBe('/#/tasks/t-1');
    expect(back.storage.has('tiny-harness.cognito.pending')).toBe(false);
    const session = cognitoSession(SETTINGS, back.env);
    expect(session?.participant).toBe('alice');
    await expect(session?.accessToken()).resolves.toBe(access);
  });

  it('refuses an answer whose state this tab did not send, and an error from the hosted UI', async () => {
    const forged = tab('https://web.example/?code=c&state=not-mine');
    forged.storage.set(
      'tiny-harness.cognito.pending',
      JSON.stringify({ state: 'mine', verifier: 'v', return_to: '' })
    );
    await expect(completeSignIn(SETTINGS, forged.env)).rejects.toThrow(
      'the answer does not match a sign-in from this tab'
    );
    expect(forged.calls).toEqual([]);
    const denied = tab('https://web.example/?error=access_denied&error_description=User+cancelled');
    await expect(completeSignIn(SETTINGS, denied.env)).rejects.toThrow(
      'sign-in failed: User cancelled'
    );
    expect(await completeSignIn(SETTINGS, tab('https://web.example/#/').env)).toBe(false);
  });

  it('refreshes the access token a minute before it expires, once for concurrent calls; signs out at the hosted UI', async () => {
    const { env, storage, calls, state } = tab('https://web.example/', [
      { status: 200, body: { access_token: 'second', expires_in: 3600 } },
    ]);
    storage.set(
      'tiny-harness.cognito.tokens',
      JSON.stringify({
        access_token: 'first',
        refresh_token: 'r-1',
        expires_at: state.now + 120_000,
      })
    );
    const session = cognitoSession(SETTINGS, env);
    await expect(session?.accessToken()).resolves.toBe('first');
    state.now += 61_000;
    const [a, b] = await Promise.all([session?.accessToken(), session?.accessToken()]);
    expect([a, b]).toEqual(['second', 'second']);
    expect(calls.map((call) => Object.fromEntries(call.form))).toEqual([
      { client_id: 'web-client', grant_type: 'refresh_token', refresh_token: 'r-1' },
    ]);
    // The refresh token is kept when the answer carries none.
    expect(JSON.parse(storage.get('tiny-harness.cognito.tokens') ?? '{}').refresh_token).toBe(
      'r-1'
    );
    session?.signOut();
    expect(storage.has('tiny-harness.cognito.tokens')).toBe(false);
    await expect(session?.accessToken()).rejects.toThrow('signed out');
    await left(state);
    expect(state.assigned).toBe(LOGOUT);
  });

  it('signs out by revoking the refresh token with the client id alone, then leaving for the hosted UI', async () => {
    const { env, storage, calls, state } = tab('https://web.example/', [{ status: 200, body: {} }]);
    storage.set('tiny-harness.cognito.tokens', JSON.stringify(signedIn(state.now)));
    cognitoSession(SETTINGS, env)?.signOut();
    expect(storage.has('tiny-harness.cognito.tokens')).toBe(false);
    await left(state);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.url).toBe(`${SETTINGS.domain}/oauth2/revoke`);
    expect(Object.fromEntries(calls[0]?.form ?? [])).toEqual({
      token: 'refresh-1',
      client_id: 'web-client',
    });
    // A public client: no secret, so no Authorization; a form POST, so no CORS preflight.
    expect(calls[0]?.headers.get('authorization')).toBeNull();
    expect(calls[0]?.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
    expect(calls[0]?.at).toBe('');
    expect(state.assigned).toBe(LOGOUT);
  });

  it('signs out all the same when the revocation fails, and revokes nothing without a refresh token', async () => {
    const failing = tab('https://web.example/');
    failing.env.fetch = async () => {
      throw new TypeError('Failed to fetch');
    };
    failing.storage.set('tiny-harness.cognito.tokens', JSON.stringify(signedIn(failing.state.now)));
    cognitoSession(SETTINGS, failing.env)?.signOut();
    await left(failing.state);
    expect(failing.state.assigned).toBe(LOGOUT);

    const bare = tab('https://web.example/');
    bare.storage.set(
      'tiny-harness.cognito.tokens',
      JSON.stringify({ ...signedIn(bare.state.now), refresh_token: null })
    );
    cognitoSession(SETTINGS, bare.env)?.signOut();
    expect(bare.state.assigned).toBe(LOGOUT);
    expect(bare.calls).toEqual([]);
  });

  it('names the participant by the configured claim, else username, else sub', () => {
    expect(
      participantOf(jwt({ 'cognito:username': 'alice', username: 'x' }), 'cognito:username')
    ).toBe('alice');
    expect(participantOf(jwt({ username: 'bob', sub: 's' }), 'cognito:username')).toBe('bob');
    expect(participantOf(jwt({ sub: 'client-7' }), 'cognito:username')).toBe('client-7');
    expect(participantOf('not a jwt', 'cognito:username')).toBeNull();
  });
});
