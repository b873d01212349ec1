/**
 * The per-caller stream cap (functions/handlers/stream-cap.ts) refuses one stream too many with
 * 429 and Retry-After, in the error shape of the binding the request used, before the handler
 * reads anything.
 */
import middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { StreamLeases } from '../../../functions/adapters/streams/dynamodb-stream-leases.js';
import { createLogger } from '../../../functions/adapters/system/logger.js';
import { readRuntimeConfig } from '../../../functions/composition/runtime-config.js';
import type { A2aHttpResult } from '../../../functions/handlers/a2a/http.js';
import { capStreamsPerCaller } from '../../../functions/handlers/stream-cap.js';
import { apiGatewayEvent } from '../../support/api-gateway.js';
import { authorizationFor, TEST_BEARER_TOKENS } from '../../support/identity.js';
import { lambdaContext } from '../support.js';

/** Leases that are all taken: every stream is one too many. */
const allTaken: StreamLeases = {
  acquire: async () => false,
  release: async () => undefined,
};

const capped = () => {
  const reached: APIGatewayProxyEvent[] = [];
  const config = readRuntimeConfig({
    TINY_HARNESS_TABLE: 'tiny-harness-test',
    TINY_HARNESS_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:t',
    TINY_HARNESS_BEARER_TOKENS: TEST_BEARER_TOKENS,
    TINY_HARNESS_STREAMS_PER_CALLER: '2',
  });
  const logger = createLogger({ level: 'error', write: () => undefined });
  const handler = middy(async (event: APIGatewayProxyEvent): Promise<A2aHttpResult> => {
    reached.push(event);
    return { statusCode: 200, body: '' };
  }).use(
    capStreamsPerCaller(
      () => ({ config, logger }),
      () => allTaken
    )
  );
  return {
    reached,
    call: async (event: Partial<APIGatewayProxyEvent>) =>
      (await handler(
        apiGatewayEvent({ ...event, headers: { ...authorizationFor('alice'), ...event.headers } }),
        lambdaContext('A2aFunction')
      )) as A2aHttpResult & { body: string },
  };
};

const DETAILS = [
  {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason: 'TOO_MANY_STREAMS',
    domain: 'tiny-harness',
    metadata: { limit: '2' },
  },
  { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '30s' },
];
const MESSAGE = 'too many open streams: at most 2 per caller; close one, or retry later';

describe('one stream more than the cap', () => {
  it('over JSON-RPC: 429, Retry-After, and a JSON-RPC error with the request’s id', async () => {
    const { reached, call } = capped();
    const answer = await call({
      httpMethod: 'POST',
      path: '/',
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'sub-1',
        method: 'SubscribeToTask',
        params: { id: 't-1' },
      }),
    });
    expect(answer.statusCode).toBe(429);
    expect(answer.headers).toEqual({ 'Content-Type': 'application/json', 'Retry-After': '30' });
    expect(JSON.parse(answer.body)).toEqual({
      jsonrpc: '2.0',
      id: 'sub-1',
      error: { code: -32000, message: MESSAGE, data: DETAILS },
    });
    expect(reached).toHaveLength(0);
  });

  it('over HTTP+JSON: 429, Retry-After, and a google.rpc.Status, RESOURCE_EXHAUSTED', async () => {
    const { reached, call } = capped();
    for (const [httpMethod, path] of [
      ['POST', '/message:stream'],
      ['GET', '/tasks/t-1:subscribe'],
    ] as const) {
      const answer = await call({ httpMethod, path, body: httpMethod === 'POST' ? '{}' : null });
      expect(answer.statusCode, path).toBe(429);
      expect(answer.headers).toEqual({
        'Content-Type': 'application/a2a+json',
        'Retry-After': '30',
      });
      expect(JSON.parse(answer.body)).toEqual({
        error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: MESSAGE, details: DETAILS },
      });
    }
    expect(reached).toHaveLength(0);
  });

  it('leaves requests that do not stream alone', async () => {
    const { reached, call } = capped();
    const answer = await call({
      httpMethod: 'POST',
      path: '/',
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 't-1' } }),
    });
    expect(answer.statusCode).toBe(200);
    expect(reached).toHaveLength(1);
  });
});
