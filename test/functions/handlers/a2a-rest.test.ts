import { Message } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { ALICE, BOB, view } from '../../support/harness.js';
import { authorizationFor } from '../../support/identity.js';
import { textMessage } from '../../support/messages.js';
import { a2aSetup } from './a2a-calls.js';

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';

describe('the HTTP+JSON binding (§5.3, §11) on the wire', () => {
  it('answers with Content-Type application/a2a+json, on success and on error', async () => {
    const { rest, harness } = a2aSetup([{ text: 'Hello Alice.' }]);
    const started = await harness.start(textMessage('hi'), ALICE);

    const found = await rest('GET', `/tasks/${started.task.id}`);
    const missing = await rest('GET', '/tasks/no-such-task');

    expect(found.status).toBe(200);
    expect(found.headers['Content-Type']).toBe('application/a2a+json');
    expect(missing.headers['Content-Type']).toBe('application/a2a+json');
  });

  it('answers TaskNotFound with 404 and a google.rpc.Status body whose details carry the ErrorInfo the SDK reads (§5.4)', async () => {
    const { rest } = a2aSetup();

    const reply = await rest('GET', '/tasks/no-such-task');

    expect(reply.status).toBe(404);
    expect(JSON.parse(reply.raw)).toEqual({
      error: {
        code: 404,
        status: 'NOT_FOUND',
        message: expect.any(String),
        details: [{ '@type': ERROR_INFO, reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }],
      },
    });
  });

  it('answers TaskNotCancelable with 400 FAILED_PRECONDITION', async () => {
    const { rest, harness } = a2aSetup([{ text: 'Hello Alice.' }]);
    const started = await harness.start(textMessage('hi'), ALICE);
    await harness.complete(started.task.id, ALICE, 'done');

    const reply = await rest('POST', `/tasks/${started.task.id}:cancel`);

    expect(reply.status).toBe(400);
    expect(reply.error).toMatchObject({
      status: 'FAILED_PRECONDITION',
      details: [expect.objectContaining({ reason: 'TASK_NOT_CANCELABLE' })],
    });
  });

  it('answers a path that is no A2A operation with a plain 404, whatever the headers', async () => {
    const { call } = a2aSetup();

    for (const [httpMethod, path] of [
      ['GET', '/'],
      ['GET', '/favicon.ico'],
      ['PUT', '/tasks/abc'],
      ['GET', '/tenant-x/tasks'],
    ] as const) {
      const response = await call({ httpMethod, path, headers: authorizationFor(ALICE) });
      expect(response.statusCode).toBe(404);
      expect(JSON.parse(response.body).error).toMatchObject({ code: 404, details: [] });
    }
  });

  it('refuses a request without A2A-Version (0.3 is assumed, §3.6) with 400 VERSION_NOT_SUPPORTED, and takes the version as a query parameter too', async () => {
    const { call } = a2aSetup();

    const refused = await call({
      httpMethod: 'GET',
      path: '/tasks',
      headers: authorizationFor(ALICE),
    });
    const byQuery = await call({
      httpMethod: 'GET',
      path: '/tasks',
      headers: authorizationFor(ALICE),
      queryStringParameters: { 'A2A-Version': '1.0' },
    });

    expect(refused.statusCode).toBe(400);
    expect(JSON.parse(refused.body).error.details[0].reason).toBe('VERSION_NOT_SUPPORTED');
    expect(byQuery.statusCode).toBe(200);
  });

  it('refuses a body that is not JSON, or not of a JSON media type, with 400, creating nothing', async () => {
    const { call, harness } = a2aSetup();
    const send = (contentType: string, body: string) =>
      call({
        httpMethod: 'POST',
        path: '/message:send',
        headers: { 'A2A-Version': '1.0', 'Content-Type': contentType, ...authorizationFor(ALICE) },
        body,
      });

    const notJson = await send('application/json', '{"message": ');
    const wrongType = await send(
      'text/plain',
      JSON.stringify({ message: Message.toJSON(textMessage('hi')) })
    );

    expect(notJson.statusCode).toBe(400);
    expect(JSON.parse(notJson.body).error.details[0].reason).toBe('INVALID_PARAMS');
    expect(wrongType.statusCode).toBe(400);
    expect(JSON.parse(wrongType.body).error.details[0].reason).toBe('CONTENT_TYPE_NOT_SUPPORTED');
    expect(await harness.store.list({})).toEqual([]);
  });

  it('answers a deleted push config with 204 and no body, and a created one with 201', async () => {
    const { rest, harness } = a2aSetup([{ text: 'Hello Alice.' }]);
    const started = await harness.start(textMessage('hi'), ALICE);
    const configs = `/tasks/${started.task.id}/pushNotificationConfigs`;

    const created = await rest('POST', configs, {
      body: { id: 'hook', url: 'https://hooks.example.com/' },
    });
    const deleted = await rest('DELETE', `${configs}/hook`);

    expect(created.status).toBe(201);
    expect(deleted.status).toBe(204);
    expect(deleted.raw).toBe('');
  });

  it('refuses a push config whose body names another task than the path', async () => {
    const { rest, harness, pushConfigs } = a2aSetup([{ text: 'Hello Alice.' }]);
    const started = await harness.start(textMessage('hi'), ALICE);

    const reply = await rest('POST', `/tasks/${started.task.id}/pushNotificationConfigs`, {
      body: { taskId: 'another-task', url: 'https://hooks.example.com/' },
    });

    expect(reply.status).toBe(400);
    expect(await pushConfigs.list(started.task.id)).toEqual([]);
  });

  it.each([
    ['/tasks', { pageSize: 'ten' }],
    ['/tasks', { includeArtifacts: 'yes' }],
    ['/tasks', { historyLength: '1.5' }],
    ['/tasks/some-task', { historyLength: 'all' }],
  ])('refuses a malformed query parameter on GET %s %j with 400 naming it', async (path, query) => {
    const { rest } = a2aSetup();
    const reply = await rest('GET', path, { query });
    expect(reply.status).toBe(400);
    expect(reply.error?.details).toEqual([
      expect.objectContaining({ reason: 'INVALID_PARAMS' }),
      {
        '@type': 'type.googleapis.com/google.rpc.BadRequest',
        fieldViolations: [expect.objectContaining({ field: Object.keys(query)[0] })],
      },
    ]);
  });

  it('refuses a request without a bearer token (401), and one whose message speaks for someone else', async () => {
    const { call, harness } = a2aSetup();
    const send = (headers: Record<string, string>, participant: string) =>
      call({
        httpMethod: 'POST',
        path: '/message:send',
        headers: { 'A2A-Version': '1.0', 'Content-Type': 'application/a2a+json', ...headers },
        body: JSON.stringify({
          message: Message.toJSON({
            ...textMessage('hi'),
            metadata: { participant_id: participant },
          }),
          configuration: { returnImmediately: true },
        }),
      });

    const anonymous = await send({ 'X-Participant-Id': BOB }, BOB);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers?.['WWW-Authenticate']).toContain('Bearer');

    const impersonating = await send(authorizationFor(ALICE), BOB);
    expect(impersonating.statusCode).toBe(400);
    expect(await harness.store.list({})).toEqual([]);

    const own = await send(authorizationFor(BOB), BOB);
    expect(own.statusCode).toBe(200);
    const taskId = JSON.parse(own.body).task.id as string;
    expect(view(await harness.task(taskId)).extension.participants).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: BOB, role: 'reporter' })])
    );
  });

  it('keeps JSON-RPC at POST / beside the HTTP+JSON routes', async () => {
    const { rpc, rest } = a2aSetup();
    const rpcReply = await rpc('ListTasks', {});
    const restReply = await rest('GET', '/tasks');
    expect(rpcReply.result).toEqual(restReply.result);
    expect(rpcReply.headers['Content-Type']).toBe('application/json');
  });
});
