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

/** The agent card (A2A §8.2), cacheable: Cache-Control and an ETag, 304 when unchanged. */
export const agentCardResponse = (
  event: APIGatewayProxyEvent,
  card: AgentCard
): APIGatewayProxyResult => {
  const body = JSON.stringify(cardToJson(card));
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  // A 304 carries the Cache-Control the 200 would have (RFC 9110 §15.4.5).
  const headers = { 'Cache-Control': CARD_CACHE_CONTROL, ETag: etag };
  if (matchesEtag(header(event, 'if-none-match'), etag))
    return { statusCode: 304, headers, body: '' };
  return { statusCode: 200, headers: { 'Content-Type': 'application/json', ...headers }, body };
};
