/**
 * Who is calling (A2A §7, §13): the server authenticates every request, and the authenticated
 * principal is the caller's participant id. Nothing in a request body can change it.
 *
 * - `tokens` (local): `Authorization: Bearer <token>` against the tokens from configuration
 *   (TINY_HARNESS_BEARER_TOKENS), compared in constant time.
 * - `cognito` (cloud): API Gateway's Cognito authorizer has verified the JWT (signature, expiry,
 *   the A2A scope) before the Lambda runs; its claims arrive in `requestContext.authorizer`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { A2aError } from './a2a-errors.js';

export interface IdentitySettings {
  mode: 'tokens' | 'cognito';
  /** token → participant id (tokens mode). */
  tokens: ReadonlyMap<string, string>;
  /**
   * The claim holding the participant id (cognito mode), `cognito:username` by default. Name a
   * claim the user cannot write (never a user-writable custom attribute): it is an identity.
   */
  participantClaim?: string | undefined;
  /**
   * The agent's own participant id. It is never a caller: the agent is every task's assignee,
   * so a caller with its id would be on every task and act as the agent.
   */
  agentId: string;
}

export const DEFAULT_PARTICIPANT_CLAIM = 'cognito:username';

export type CallerResult =
  | { ok: true; participantId: string }
  | {
      ok: false;
      status: 401;
      reason: string;
      /** The `WWW-Authenticate` challenge to answer with (RFC 6750 §3). */
      challenge: string;
    };

const REALM = 'Bearer realm="tiny-harness"';

const refuse = (reason: string, error?: 'invalid_token'): CallerResult => ({
  ok: false,
  status: 401,
  reason,
  // RFC 6750 §3.1: no error code when the request carried no credentials at all.
  challenge: error === undefined ? REALM : `${REALM}, error="${error}"`,
});

/** The token of an `Authorization: Bearer <token>` header (the scheme is case-insensitive). */
export const bearerTokenOf = (authorization: string | undefined): string | undefined =>
  authorization?.match(/^\s*bearer\s+(\S+)\s*$/i)?.[1];

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * Constant-time string equality. Both sides are hashed first, so the buffers compared are
 * always 32 bytes: `timingSafeEqual` needs equal lengths, and comparing lengths would leak one.
 */
export const tokensEqual = (a: string, b: string): boolean => timingSafeEqual(digest(a), digest(b));

/** The configured tokens' digests, computed once per map (a cold start's configuration). */
const digests = new WeakMap<ReadonlyMap<string, string>, ReadonlyArray<[Buffer, string]>>();

const digestsOf = (tokens: ReadonlyMap<string, string>): ReadonlyArray<[Buffer, string]> => {
  let known = digests.get(tokens);
  if (known === undefined) {
    known = [...tokens].map(([token, participantId]) => [digest(token), participantId]);
    digests.set(tokens, known);
  }
  return known;
};

const fromTokens = (token: string, tokens: ReadonlyMap<string, string>): string | undefined => {
  const offered = digest(token);
  let found: string | undefined;
  // Every entry is compared, matched or not: the time taken says nothing about which one matched.
  for (const [candidate, participantId] of digestsOf(tokens)) {
    if (timingSafeEqual(offered, candidate) && found === undefined) found = participantId;
  }
  return found;
};

/**
 * Cognito access tokens (what scoped methods accept) carry a person's name as `username`;
 * ID tokens as `cognito:username`; a client-credentials token has neither, and its `sub` is the
 * app client id. The configured claim wins, then these, in this order.
 */
const FALLBACK_CLAIMS = ['username', 'sub'] as const;

const fromClaims = (claims: unknown, claim: string): string | undefined => {
  if (typeof claims !== 'object' || claims === null) return undefined;
  for (const name of [claim, ...FALLBACK_CLAIMS]) {
    const value = (claims as Record<string, unknown>)[name];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
};

/** What a request offers as its identity, whatever carried it. */
export interface OfferedIdentity {
  /** The `Authorization` header, as sent. */
  authorization: string | undefined;
  /** The claims an authorizer verified before the request reached us (cognito mode). */
  claims: unknown;
}

/**
 * The caller's participant id, or why the request is refused (401). Asked for every request
 * except the public agent card.
 */
export const resolveCaller = (
  offered: OfferedIdentity,
  settings: IdentitySettings
): CallerResult => {
  const resolved = resolveIdentity(offered, settings);
  if (resolved.ok && resolved.participantId === settings.agentId) {
    return refuse("the agent's own id is never a caller", 'invalid_token');
  }
  return resolved;
};

const resolveIdentity = (offered: OfferedIdentity, settings: IdentitySettings): CallerResult => {
  if (settings.mode === 'cognito') {
    // The authorizer refuses requests without a valid token before the Lambda runs; no claims
    // here means a method without it, which must not become an anonymous caller.
    const claim = settings.participantClaim ?? DEFAULT_PARTICIPANT_CLAIM;
    const participantId = fromClaims(offered.claims, claim);
    return participantId === undefined
      ? refuse('no verified identity on the request', 'invalid_token')
      : { ok: true, participantId };
  }
  const { authorization } = offered;
  if (authorization === undefined || authorization.trim() === '') {
    return refuse('an Authorization: Bearer token is required');
  }
  const token = bearerTokenOf(authorization);
  if (token === undefined) return refuse('only the Bearer authentication scheme is accepted');
  const participantId = fromTokens(token, settings.tokens);
  return participantId === undefined
    ? refuse('the bearer token is not valid', 'invalid_token')
    : { ok: true, participantId };
};

/**
 * A `participant_id` in a message's metadata that is not the authenticated caller's. Refused
 * as InvalidParams (-32602; HTTP+JSON 400) rather than silently rewritten: the server decides
 * who is calling, and a request claiming otherwise is wrong, not to be guessed at. Not a 403:
 * the JSON-RPC binding answers request errors in the body, and InvalidParams says nothing
 * about the participant named.
 */
export class ImpersonationError extends A2aError {
  constructor() {
    super(
      'InvalidParams',
      'participant_id in the message metadata is not the authenticated caller'
    );
  }
}

export const checkAssertedParticipant = (
  callerId: string,
  message: { metadata?: Record<string, unknown> | undefined }
): { ok: true } | { ok: false; error: ImpersonationError } => {
  const asserted = message.metadata?.participant_id;
  if (asserted === undefined || asserted === callerId) return { ok: true };
  return { ok: false, error: new ImpersonationError() };
};

/**
 * Refuses, at start, a token that would make the agent a caller (see `IdentitySettings.agentId`).
 * The message names the entry's participant, never the token.
 */
export const refuseAgentAsCaller = (tokens: ReadonlyMap<string, string>, agentId: string): void => {
  if ([...tokens.values()].includes(agentId)) {
    throw new Error(
      `TINY_HARNESS_BEARER_TOKENS maps a token to ${agentId}, the agent's own id (TINY_HARNESS_AGENT_ID): the agent is never a caller`
    );
  }
};

/**
 * `TINY_HARNESS_BEARER_TOKENS`: `token=participant,token=participant`. A token may itself end in
 * `=` (base64 padding): each entry splits at its last `=`. Errors never quote a token.
 */
export const parseBearerTokens = (text: string): Map<string, string> => {
  const tokens = new Map<string, string>();
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const [index, entry] of entries.entries()) {
    const at = entry.lastIndexOf('=');
    const token = entry.slice(0, Math.max(at, 0)).trim();
    const participantId = entry.slice(at + 1).trim();
    if (at <= 0 || token === '' || participantId === '') {
      throw new Error(`bearer token entry ${index + 1} is not token=participant`);
    }
    if (/\s/.test(token)) throw new Error(`bearer token entry ${index + 1} has whitespace in it`);
    if (tokens.has(token)) throw new Error(`bearer token entry ${index + 1} repeats a token`);
    tokens.set(token, participantId);
  }
  return tokens;
};
