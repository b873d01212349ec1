import { createHash } from 'node:crypto';
import type { AgentCard } from '@a2a-js/sdk';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { RuntimeConfig } from '../../composition/runtime-config.js';
import { buildAgentCard, cardToJson } from '../../core/a2a/agent-card.js';
import { cardSecurity } from '../../core/a2a/security.js';
import { header } from './http.js';

export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

const baseUrlOf = (event: APIGatewayProxyEvent, runtime: { config: RuntimeConfig }): string => {
  if (runtime.config.TINY_HARNESS_BASE_URL) return runtime.config.TINY_HARNESS_BASE_URL;
  const host = header(event, 'host') ?? 'localhost';
  const proto = header(event, 'x-forwarded-proto') ?? 'https';
  const stage = event.requestContext?.stage ? `/${event.requestContext.stage}` : '';
  return `${proto}://${host}${stage}`;
};

/** The card, for its own endpoint and for what a request may ask of it (extensions). */
export const cardOf = (
  event: APIGatewayProxyEvent,
  runtime: { config: RuntimeConfig }
): AgentCard =>
  buildAgentCard({
    baseUrl: baseUrlOf(event, runtime),
    agentId: runtime.config.TINY_HARNESS_AGENT_ID,
    skills: runtime.config.TINY_HARNESS_AGENT_SKILLS,
    // The card says how to authenticate, matching what the API enforces (A2A §4.5).
    ...cardSecurity(
      runtime.config.TINY_HARNESS_AUTH_MODE === 'cognito'
        ? { mode: 'cognito', tokenUrl: runtime.config.TINY_HARNESS_OAUTH_TOKEN_URL }
        : { mode: 'tokens' }
    ),
  });

const CARD_CACHE_CONTROL = 'public, max-age=300';

/** Whether an `If-None-Match` list names this entity tag (weak comparison, RFC 9110 §13.1.2). */
const matchesEtag = (ifNoneMatch: string | undefined, etag: string): boolean => {
  if (ifNoneMatch === undefined) return false;
  const tags = ifNoneMatch.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  return tags.includes('*') || tags.includes(etag);
};

/**
 * When the card a handler serves was made: the moment the handler was built, to the second (an
 * HTTP-date has no finer unit). The card comes from the deployment's code and configuration,
 * which an instance reads once and never changes: so no card it serves changed after this, and
 * this is at or after the deployment's build (the start of `npm start`, which synthesizes its
 * template then; a Lambda instance's cold start, which comes after its deployment).
 */
export const cardBuiltAt = (now = Date.now()): Date => new Date(Math.floor(now / 1000) * 1000);

/**
 * Whether the card is unchanged since `If-Modified-Since` (RFC 9110 §13.1.3): ignored beside an
 * `If-None-Match` (the ETag decides), and when it is not a date or is later than now.
 */
const unmodifiedSince = (
  event: APIGatewayProxyEvent,
  lastModified: Date,
  now = Date.now()
): boolean => {
  const since = header(event, 'if-modified-since');
  if (since === undefined || header(event, 'if-none-match') !== undefined) return false;
  const at = Date.parse(since);
  return !Number.isNaN(at) && at <= now && lastModified.getTime() <= at;
};

/**
 * The agent card (A2A §8.2), cacheable: Cache-Control, an ETag and Last-Modified (`builtAt`),
 * 304 when unchanged by either validator.
 */
export const agentCardResponse = (
  event: APIGatewayProxyEvent,
  card: AgentCard,
  builtAt: Date
): APIGatewayProxyResult => {
  const body = JSON.stringify(cardToJson(card));
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  // A 304 carries the Cache-Control the 200 would have (RFC 9110 §15.4.5).
  const headers = {
    'Cache-Control': CARD_CACHE_CONTROL,
    ETag: etag,
    'Last-Modified': builtAt.toUTCString(),
  };
  if (matchesEtag(header(event, 'if-none-match'), etag) || unmodifiedSince(event, builtAt))
    return { statusCode: 304, headers, body: '' };
  return { statusCode: 200, headers: { 'Content-Type': 'application/json', ...headers }, body };
};
