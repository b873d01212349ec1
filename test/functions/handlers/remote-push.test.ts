import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { tokenHashOf } from '../../../functions/adapters/remote/push-token.js';
import { creatingLink } from '../../../functions/core/remote/remote-link.js';
import { createRemotePushHandler } from '../../../functions/handlers/remote-push.js';
import { inMemoryRuntime, lambdaContext } from '../support.js';

const LINK = 'c'.repeat(32);

const event = (overrides: Partial<APIGatewayProxyEvent>): APIGatewayProxyEvent =>
  ({
    httpMethod: 'POST',
    path: `/remote-agents/push/p-1/${LINK}`,
    headers: { 'X-A2A-Notification-Token': 'the-token' },
    body: JSON.stringify({ statusUpdate: { taskId: 'r-1' } }),
    isBase64Encoded: false,
    requestContext: {},
    ...overrides,
  }) as APIGatewayProxyEvent;

const setup = async () => {
  const { runtime, logs } = inMemoryRuntime();
  await runtime.remote.links.create(
    creatingLink({
      parentId: 'p-1',
      linkId: LINK,
      agent: 'ledger',
      messageId: 'p-1:1:1:c',
      delivery: 'push',
      tokenHash: tokenHashOf('the-token'),
      now: '2026-01-01T00:00:00.000Z',
    })
  );
  const handler = createRemotePushHandler(() => runtime);
  const call = async (overrides: Partial<APIGatewayProxyEvent>) => {
    const result = await handler(event(overrides), lambdaContext('RemotePushFunction'));
    return { status: result.statusCode, body: JSON.parse(result.body || '{}') as unknown };
  };
  return { call, logs };
};

describe('our webhook for remote agents', () => {
  it("refuses, before reading anything, what is not a push to one of our children's webhooks", async () => {
    const { call } = await setup();
    expect((await call({ path: '/remote-agents/push/p-1/not-a-link' })).status).toBe(404);
    expect((await call({ httpMethod: 'GET' })).status).toBe(405);
    expect((await call({ body: 'not json' })).status).toBe(400);
    expect((await call({ body: '[1, 2]' })).status).toBe(400);
  });

  it('answers an unknown child and a wrong token alike, 401, and never logs a token', async () => {
    const { call, logs } = await setup();
    const wrong = await call({ headers: { 'X-A2A-Notification-Token': 'guess' } });
    const unknown = await call({ path: `/remote-agents/push/p-2/${LINK}` });
    const missing = await call({ headers: {} });
    expect([wrong, unknown, missing]).toEqual(
      Array(3).fill({ status: 401, body: { message: 'unknown child or wrong token' } })
    );
    expect(JSON.stringify(logs())).not.toContain('the-token');
  });

  it('takes a push for a child still being created (its follower reads the task once it is)', async () => {
    const { call } = await setup();
    expect(await call({})).toEqual({ status: 200, body: { message: 'received' } });
  });
});
