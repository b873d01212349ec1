import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { AGENT_CARD_PATH, createA2aHandler } from '../../../functions/handlers/a2a.js';
import { withBrowserOrigin } from '../../../functions/handlers/browser-origin.js';
import { A2aService } from '../../../functions/service/a2a-service.js';
import { apiGatewayEvent } from '../../support/api-gateway.js';
import { ALICE } from '../../support/harness.js';
import { authorizationFor } from '../../support/identity.js';
import { inMemoryRuntime, lambdaContext } from '../support.js';

/**
 * The A2A function's answers to the web renderer in the cloud (TINY_HARNESS_WEB_ORIGIN): the real
 * handler on the in-memory runtime, wrapped as the Lambda entry point wraps it.
 */

const WEB = 'https://d111111abcdef8.cloudfront.net';

const setup = (allowed: string | undefined) => {
  const { runtime } = inMemoryRuntime();
  const service = new A2aService(runtime, { blockingTimeoutMs: 50, pollIntervalMs: 5 });
  const handler = withBrowserOrigin(
    () => allowed,
    createA2aHandler(
      () => runtime,
      () => service
    )
  );
  return (event: Partial<APIGatewayProxyEvent>) =>
    handler(apiGatewayEvent(event), lambdaContext('A2aFunction'));
};

const listTasks = (headers: Record<string, string>) => ({
  httpMethod: 'GET',
  path: '/tasks',
  headers: { 'A2A-Version': '1.0', ...headers },
});

const card = (headers: Record<string, string>) => ({
  httpMethod: 'GET',
  path: AGENT_CARD_PATH,
  headers: { Host: 'agent.example', 'X-Forwarded-Proto': 'https', ...headers },
});

describe('the A2A function, read by the web renderer from its own origin', () => {
  it('names the configured origin on an answer to that origin, with the headers a page may read', async () => {
    const call = setup(WEB);
    const answer = await call(listTasks({ Origin: WEB, ...authorizationFor(ALICE) }));
    expect(answer.statusCode).toBe(200);
    expect(answer.headers).toMatchObject({
      'Access-Control-Allow-Origin': WEB,
      'Access-Control-Expose-Headers': 'A2A-Extensions, Retry-After, WWW-Authenticate',
      Vary: 'Origin',
      // The handler's own headers are kept.
      'Content-Type': expect.stringContaining('json'),
    });
  });

  it('names it on refusals too, so the page can read why (401 with its challenge)', async () => {
    const call = setup(WEB);
    const refused = await call(listTasks({ origin: WEB }));
    expect(refused.statusCode).toBe(401);
    expect(refused.headers?.['WWW-Authenticate']).toContain('Bearer');
    expect(refused.headers?.['Access-Control-Allow-Origin']).toBe(WEB);

    const unknownTask = await call({
      httpMethod: 'GET',
      path: '/tasks/no-such-task',
      headers: { 'A2A-Version': '1.0', Origin: WEB, ...authorizationFor(ALICE) },
    });
    expect(unknownTask.statusCode).toBe(404);
    expect(unknownTask.headers?.['Access-Control-Allow-Origin']).toBe(WEB);
  });

  it('names no origin for another site, or for a request with none, and still varies on Origin', async () => {
    const call = setup(WEB);
    for (const headers of [
      { Origin: 'https://evil.example', ...authorizationFor(ALICE) },
      { Origin: `${WEB}.evil.example`, ...authorizationFor(ALICE) },
      { Origin: 'https://evil.example' },
      authorizationFor(ALICE),
    ]) {
      const answer = await call(listTasks(headers));
      expect(answer.headers?.['Access-Control-Allow-Origin'], JSON.stringify(headers)).toBe(
        undefined
      );
      expect(answer.headers?.['Access-Control-Expose-Headers']).toBe(undefined);
      expect(answer.headers?.Vary).toBe('Origin');
    }
  });

  it('adds nothing when no origin is configured (the answer is the bare handler’s)', async () => {
    const wrapped = setup(undefined);
    const answer = await wrapped(card({ Origin: WEB }));
    expect(answer.statusCode).toBe(200);
    const headers = Object.keys(answer.headers ?? {});
    expect(headers.filter((name) => /^(access-control-|vary$)/i.test(name))).toEqual([]);
  });
});
