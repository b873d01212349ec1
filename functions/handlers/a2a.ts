import { createHash } from 'node:crypto';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { errorFields } from '../adapters/system/logger.js';
import { lambdaRuntime, type Runtime } from '../composition/runtime.js';
import { buildAgentCard, cardToJson } from '../core/a2a/agent-card.js';
import { A2A_ERRORS } from '../service/a2a-errors.js';
import { A2aService } from '../service/a2a-service.js';
import { dispatchJsonRpc } from './a2a/json-rpc.js';

export const AGENT_CARD_PATH = '/.well-known/agent-card.json';
const SUPPORTED_VERSIONS = new Set(['1.0']);

const header = (event: APIGatewayProxyEvent, name: string): string | undefined => {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
};

const json = (
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {}
): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

const baseUrlOf = (event: APIGatewayProxyEvent, runtime: Runtime): string => {
  if (runtime.config.TINY_HARNESS_BASE_URL) return runtime.config.TINY_HARNESS_BASE_URL;
  const host = header(event, 'host') ?? 'localhost';
  const proto = header(event, 'x-forwarded-proto') ?? 'https';
  const stage = event.requestContext?.stage ? `/${event.requestContext.stage}` : '';
  return `${proto}://${host}${stage}`;
};

/**
 * Who is calling. Until the A2A surface issue brings authentication, the caller asserts an
 * identity with the `X-Participant-Id` header or the message's `participant_id` metadata (the
 * reference's convention); a caller asserting none is `anonymous`.
 */
export const callerOf = (event: APIGatewayProxyEvent, body: string): string => {
  const asserted = header(event, 'x-participant-id');
  if (asserted) return asserted;
  try {
    const parsed = JSON.parse(body) as {
      params?: { message?: { metadata?: { participant_id?: unknown } } };
    };
    const fromMessage = parsed.params?.message?.metadata?.participant_id;
    if (typeof fromMessage === 'string' && fromMessage !== '') return fromMessage;
  } catch {
    // Not JSON: the dispatcher answers with a parse error.
  }
  return 'anonymous';
};

const CARD_CACHE_CONTROL = 'public, max-age=300';

/** Whether an `If-None-Match` list names this entity tag (weak comparison, RFC 9110 §13.1.2). */
const matchesEtag = (ifNoneMatch: string | undefined, etag: string): boolean => {
  if (ifNoneMatch === undefined) return false;
  const tags = ifNoneMatch.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  return tags.includes('*') || tags.includes(etag);
};

/** The agent card (A2A §8.2), cacheable: Cache-Control and an ETag, 304 when unchanged. */
const agentCardResponse = (
  event: APIGatewayProxyEvent,
  runtime: Runtime
): APIGatewayProxyResult => {
  const card = buildAgentCard({
    baseUrl: baseUrlOf(event, runtime),
    agentId: runtime.config.TINY_HARNESS_AGENT_ID,
  });
  const body = JSON.stringify(cardToJson(card));
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  // A 304 carries the Cache-Control the 200 would have (RFC 9110 §15.4.5).
  const headers = { 'Cache-Control': CARD_CACHE_CONTROL, ETag: etag };
  if (matchesEtag(header(event, 'if-none-match'), etag))
    return { statusCode: 304, headers, body: '' };
  return { statusCode: 200, headers: { 'Content-Type': 'application/json', ...headers }, body };
};

export const createA2aHandler = (runtime: () => Runtime, service: () => A2aService) =>
  middy(async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    const { logger } = runtime();
    if (event.httpMethod === 'GET' && event.path.endsWith(AGENT_CARD_PATH)) {
      return agentCardResponse(event, runtime());
    }
    if (event.httpMethod !== 'POST') return json(404, { error: 'not found' });
    const version = header(event, 'a2a-version') || '0.3';
    const body = event.isBase64Encoded
      ? Buffer.from(event.body ?? '', 'base64').toString('utf8')
      : (event.body ?? '');
    if (!SUPPORTED_VERSIONS.has(version)) {
      return json(200, {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: A2A_ERRORS.VersionNotSupported.code,
          message: `A2A protocol version ${version} is not supported`,
        },
      });
    }
    const caller = callerOf(event, body);
    try {
      const reply = await dispatchJsonRpc(body, caller, service());
      logger.info('a2a request', {
        caller,
        status: reply.status,
        error: (reply.body.error as { code?: number } | undefined)?.code,
      });
      return json(reply.status, reply.body);
    } catch (error) {
      logger.error('a2a request failed', errorFields(error));
      return json(500, {
        jsonrpc: '2.0',
        id: null,
        error: { code: A2A_ERRORS.InternalError.code, message: 'internal error' },
      });
    }
  });

let serviceMemo: A2aService | undefined;
const lambdaService = () => {
  serviceMemo ??= new A2aService(lambdaRuntime(), {
    blockingTimeoutMs: 25_000,
    pollIntervalMs: 250,
  });
  return serviceMemo;
};

export const handler = createA2aHandler(lambdaRuntime, lambdaService);
