import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_MEDIA_TYPE } from '../../functions/core/a2a/identifiers.js';
import { ScriptedModel } from '../../functions/core/testing/scripted-model.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { authorizationFor } from '../support/identity.js';
import { startStack } from '../support/local-stack.js';

/**
 * Every error this server can answer, over the wire of both bindings, from a raw `fetch` client:
 * the spec's code (JSON-RPC, §9.5) or HTTP status and ErrorInfo reason (HTTP+JSON, §5.4, §11.6),
 * and for each refused write, that nothing was stored.
 *
 * Not produced by this server, by design: PushNotificationNotSupported (-32003; the card
 * advertises push), InvalidAgentResponse (-32006; a client's error about an agent's answer),
 * ExtendedAgentCardNotConfigured (-32007; the card declares no extended card, so §3.3.4 asks for
 * UnsupportedOperation, tested below) and ExtensionSupportRequired (-32008; no extension of ours
 * is required).
 */

type Json = Record<string, unknown>;

interface WireAnswer {
  status: number;
  /** JSON-RPC: the `error` member; HTTP+JSON: the google.rpc.Status under `error`. */
  error: Json | undefined;
  body: Json | undefined;
}

let stack: LocalStack;
const model = new ScriptedModel();

const wire = async (
  path: string,
  init: { method?: string; body?: string; headers?: Record<string, string> } = {}
): Promise<WireAnswer> => {
  const response = await fetch(`${stack.url}${path}`, {
    method: init.method ?? 'POST',
    headers: {
      'A2A-Version': '1.0',
      'Content-Type': 'application/json',
      ...authorizationFor('alice'),
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  const text = await response.text();
  const body = text === '' ? undefined : (JSON.parse(text) as Json);
  return { status: response.status, error: body?.error as Json | undefined, body };
};

const rpc = (method: string, params: unknown, headers: Record<string, string> = {}) =>
  wire('/', { body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }), headers });

const reasonOf = (answer: WireAnswer) =>
  ((answer.error?.details as Json[] | undefined)?.[0]?.reason as string | undefined) ?? null;

const textMessage = (text: string, extra: Json = {}) => ({
  messageId: `errors-${Date.now()}-${Math.random()}`,
  role: 'ROLE_USER',
  parts: [{ text }],
  ...extra,
});

const send = async (text: string) => {
  model.push({ text: 'Parked.' });
  const answer = await rpc('SendMessage', { message: textMessage(text) });
  return (answer.body as { result: { task: { id: string; contextId: string } } }).result.task;
};

const tasksOfAlice = () => stack.runtime.loop.store.list({ participantId: 'alice' });

beforeAll(async () => {
  // One caller makes every request here, more than the local throttle's burst of 30 allows.
  stack = await startStack({ model, env: { TINY_HARNESS_THROTTLE_BURST: '1000' } });
});
afterAll(async () => {
  await stack?.close();
});

describe('A2A errors over JSON-RPC (§9.5, §5.4)', () => {
  it('-32700 for a body that is not JSON, with a null id', async () => {
    const answer = await wire('/', { body: '{"jsonrpc": "2.0", "method": ' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('-32600 for JSON that is not a JSON-RPC 2.0 request, keeping the id it could read', async () => {
    const answer = await wire('/', {
      body: JSON.stringify({ jsonrpc: '1.0', id: 3, method: 'GetTask' }),
    });
    expect(answer.body).toMatchObject({ id: 3, error: { code: -32600 } });
  });

  it('-32601 for an unknown method, the 0.3 names included', async () => {
    for (const method of ['message/send', 'tasks/get', 'NoSuchMethod']) {
      expect((await rpc(method, {})).error).toMatchObject({ code: -32601 });
    }
  });

  it('-32602 for params of the wrong shape or type, creating nothing', async () => {
    const before = await tasksOfAlice();
    for (const params of [[], 'text', { message: 'not a message' }, { message: { parts: 7 } }]) {
      expect((await rpc('SendMessage', params)).error).toMatchObject({ code: -32602 });
    }
    expect(await tasksOfAlice()).toEqual(before);
  });

  it('-32602 for a task envelope that sets a server-controlled field, applying none of it', async () => {
    const task = await send('hi');
    const envelope = {
      data: { kind: 'task', payload: { goal: 'changed', lifecycle: 'delegated' } },
      mediaType: EVENT_MEDIA_TYPE,
    };
    const before = (await stack.runtime.loop.store.get(task.id))?.task;

    const answer = await rpc('SendMessage', {
      message: { ...textMessage(''), taskId: task.id, parts: [envelope] },
    });

    expect(answer.error).toMatchObject({ code: -32602 });
    expect((await stack.runtime.loop.store.get(task.id))?.task.metadata).toEqual(before?.metadata);
  });

  it('-32001 for a missing task, and for another participant’s task', async () => {
    const task = await send('mine');
    expect((await rpc('GetTask', { id: 'no-such-task' })).error).toMatchObject({ code: -32001 });
    const asBob = await rpc('GetTask', { id: task.id }, authorizationFor('bob'));
    expect(asBob.error).toMatchObject({ code: -32001 });
  });

  it('-32002 for canceling a task that ended otherwise (a failed one)', async () => {
    // No scripted reply: the model fails the turn and the task with it.
    const answer = await rpc('SendMessage', { message: textMessage('no reply for this') });
    const task = (answer.body as { result: { task: { id: string; status: { state: string } } } })
      .result.task;
    expect(task.status.state).toBe('TASK_STATE_FAILED');

    expect((await rpc('CancelTask', { id: task.id })).error).toMatchObject({ code: -32002 });
  });

  it('-32004 for a message to an ended task, an unadvertised extension, and the extended card', async () => {
    const task = await send('short-lived');
    await rpc('CancelTask', { id: task.id });
    const late = await rpc('SendMessage', { message: textMessage('late', { taskId: task.id }) });
    const before = await tasksOfAlice();
    const unknownExtension = await rpc(
      'SendMessage',
      { message: textMessage('hi') },
      { 'A2A-Extensions': 'https://example.com/not-ours/v1' }
    );

    expect(late.error).toMatchObject({ code: -32004 });
    expect(unknownExtension.error).toMatchObject({ code: -32004 });
    expect(await tasksOfAlice()).toEqual(before);
    expect((await rpc('GetExtendedAgentCard', {})).error).toMatchObject({ code: -32004 });
  });

  it('-32009 without an A2A-Version (read as 0.3, §3.6) or with one not served, with its ErrorInfo', async () => {
    for (const version of ['', '0.3', '2.0']) {
      const answer = await rpc('GetTask', { id: 'x' }, { 'A2A-Version': version });
      expect(answer.error).toMatchObject({
        code: -32009,
        data: [expect.objectContaining({ reason: 'VERSION_NOT_SUPPORTED' })],
      });
    }
  });
});

describe('A2A errors over HTTP+JSON (§11.6, §5.4)', () => {
  const expectRest = (answer: WireAnswer, status: number, reason: string | null) => {
    expect(answer.status).toBe(status);
    expect(reasonOf(answer)).toBe(reason);
  };

  it('404 for a path that is no operation, before any other check', async () => {
    expectRest(
      await wire('/tasks/abc/nothing', { method: 'GET', headers: { 'A2A-Version': '' } }),
      404,
      null
    );
  });

  it('400 INVALID_PARAMS for a body that is not JSON or of the wrong shape, creating nothing', async () => {
    const before = await tasksOfAlice();
    expectRest(await wire('/message:send', { body: '{"message": ' }), 400, 'INVALID_PARAMS');
    expectRest(
      await wire('/message:send', { body: JSON.stringify({ message: { parts: 'x' } }) }),
      400,
      'INVALID_PARAMS'
    );
    expectRest(await wire('/tasks?pageSize=-1', { method: 'GET' }), 400, 'INVALID_PARAMS');
    expect(await tasksOfAlice()).toEqual(before);
  });

  it('400 CONTENT_TYPE_NOT_SUPPORTED for a body that is not JSON by its media type', async () => {
    const answer = await wire('/message:send', {
      body: JSON.stringify({ message: textMessage('hi') }),
      headers: { 'Content-Type': 'text/plain' },
    });
    expectRest(answer, 400, 'CONTENT_TYPE_NOT_SUPPORTED');
  });

  it('404 TASK_NOT_FOUND for a missing task and for another participant’s', async () => {
    const task = await send('mine too');
    expectRest(await wire('/tasks/no-such-task', { method: 'GET' }), 404, 'TASK_NOT_FOUND');
    expectRest(
      await wire(`/tasks/${task.id}`, { method: 'GET', headers: authorizationFor('bob') }),
      404,
      'TASK_NOT_FOUND'
    );
  });

  it('400 UNSUPPORTED_OPERATION for the extended card, and 400 VERSION_NOT_SUPPORTED without a version', async () => {
    expectRest(await wire('/extendedAgentCard', { method: 'GET' }), 400, 'UNSUPPORTED_OPERATION');
    expectRest(
      await wire('/tasks', { method: 'GET', headers: { 'A2A-Version': '' } }),
      400,
      'VERSION_NOT_SUPPORTED'
    );
  });
});

describe('refusals before any binding reads the request', () => {
  it('401 with a Bearer challenge for a request without a known token, storing nothing', async () => {
    const before = await tasksOfAlice();
    const answer = await wire('/', {
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }),
      headers: { Authorization: 'Bearer not-a-token' },
    });
    expect(answer.status).toBe(401);
    expect(await tasksOfAlice()).toEqual(before);
  });

  it('413 for a body over 1 MiB, on either binding, storing nothing', async () => {
    const before = await tasksOfAlice();
    const huge = 'x'.repeat(1024 * 1024 + 1);
    const params = { message: textMessage(huge) };
    const viaRpc = await rpc('SendMessage', params);
    const viaRest = await wire('/message:send', { body: JSON.stringify(params) });
    expect([viaRpc.status, viaRest.status]).toEqual([413, 413]);
    expect(await tasksOfAlice()).toEqual(before);
  });
});
