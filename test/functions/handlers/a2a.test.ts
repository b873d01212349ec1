import { Message } from '@a2a-js/sdk';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  STATUS_METADATA_KEY,
  TASK_EXTENSION_URI,
  TASK_METADATA_KEY,
} from '../../../functions/core/a2a/identifiers.js';
import { AUDIT_EXTENSION_URI } from '../../../functions/core/audit/identifiers.js';
import { ERROR_CODES, type ErrorCode, HarnessError } from '../../../functions/core/errors.js';
import { AGENT_CARD_PATH, createA2aHandler } from '../../../functions/handlers/a2a.js';
import {
  A2A_ERROR_FOR_CODE,
  A2A_ERRORS,
  toA2aError,
} from '../../../functions/service/a2a-errors.js';
import { A2aService } from '../../../functions/service/a2a-service.js';
import { apiGatewayEvent } from '../../support/api-gateway.js';
import { ALICE, STATES, STRANGER, view } from '../../support/harness.js';
import { authorizationFor } from '../../support/identity.js';
import { envelopeMessage, textMessage } from '../../support/messages.js';
import { inMemoryRuntime, lambdaContext } from '../support.js';

const setup = (replies: Array<{ text: string }> = []) => {
  const parts = inMemoryRuntime({ replies });
  const service = new A2aService(parts.runtime, { blockingTimeoutMs: 50, pollIntervalMs: 5 });
  const handler = createA2aHandler(
    () => parts.runtime,
    () => service
  );
  const call = async (event: Partial<APIGatewayProxyEvent>): Promise<APIGatewayProxyResult> =>
    (await handler(apiGatewayEvent(event), lambdaContext('A2aFunction'))) as APIGatewayProxyResult;
  /** A JSON-RPC POST as a client of A2A 1.0 sends it (the caller asserted by header). */
  const rpc = async (
    body: unknown,
    options: { as?: string; headers?: Record<string, string> } = {}
  ) => {
    const response = await call({
      headers: {
        'Content-Type': 'application/json',
        'A2A-Version': '1.0',
        ...authorizationFor(options.as ?? ALICE),
        ...options.headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.statusCode, body: JSON.parse(response.body) as RpcReply };
  };
  return { ...parts, call, rpc };
};

interface RpcReply {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: Record<string, unknown> & { task?: Record<string, unknown> };
  error?: { code: number; message: string; data?: unknown[] };
}

const request = (method: string, params: unknown, id: string | number = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});

const sendMessage = (message: ReturnType<typeof textMessage>, returnImmediately = true) =>
  request('SendMessage', {
    message: Message.toJSON(message),
    configuration: { returnImmediately },
  });

describe('the A2A handler: the agent card', () => {
  const getCard = (call: ReturnType<typeof setup>['call'], headers: Record<string, string> = {}) =>
    call({
      httpMethod: 'GET',
      path: AGENT_CARD_PATH,
      headers: { Host: 'agent.example', 'X-Forwarded-Proto': 'https', ...headers },
    });

  it('serves the card with the task extension under capabilities.extensions and both bindings, with an ETag and Cache-Control', async () => {
    const { call } = setup();

    const response = await getCard(call);

    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({
      'Content-Type': 'application/json',
      'Cache-Control': expect.stringMatching(/max-age=\d+/),
      ETag: expect.stringMatching(/^".+"$/),
    });
    const card = JSON.parse(response.body);
    expect(card.capabilities.extensions).toEqual([
      expect.objectContaining({
        uri: TASK_EXTENSION_URI,
        required: false,
        params: {
          agent_id: 'tiny-harness',
          json_rpc_methods: ['tiny-harness/ForkTask', 'tiny-harness/GetTaskAt'],
          http_routes: ['POST /tasks/{id}:fork', 'GET /tasks/{id}:at'],
        },
      }),
      expect.objectContaining({ uri: AUDIT_EXTENSION_URI, required: false }),
    ]);
    expect(card.supportedInterfaces).toEqual([
      expect.objectContaining({
        url: 'https://agent.example',
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
      }),
      expect.objectContaining({
        url: 'https://agent.example',
        protocolBinding: 'HTTP+JSON',
        protocolVersion: '1.0',
      }),
    ]);
  });

  it('answers 304 with no body to a request whose If-None-Match is the current ETag', async () => {
    const { call } = setup();
    const etag = (await getCard(call)).headers?.ETag as string;

    const cached = await getCard(call, { 'If-None-Match': etag });
    expect(cached.statusCode).toBe(304);
    expect(cached.body).toBe('');
    expect(cached.headers?.ETag).toBe(etag);

    const stale = await getCard(call, { 'If-None-Match': '"an-older-card"' });
    expect(stale.statusCode).toBe(200);
  });
});

describe('the A2A handler: JSON-RPC errors', () => {
  it('refuses a request without an A2A-Version header (0.3 is assumed) with -32009', async () => {
    const { call, executions } = setup();

    const response = await call({
      headers: { 'Content-Type': 'application/json', ...authorizationFor(ALICE) },
      body: JSON.stringify(sendMessage(textMessage('hi'))),
    });

    const reply = JSON.parse(response.body) as RpcReply;
    expect(reply.error?.code).toBe(-32009);
    expect(reply.error?.message).toMatch(/0\.3/);
    expect(executions.calls).toEqual([]);
  });

  it('refuses an unsupported A2A-Version with -32009', async () => {
    const { rpc } = setup();
    const reply = await rpc(sendMessage(textMessage('hi')), { headers: { 'A2A-Version': '2.0' } });
    expect(reply.body.error?.code).toBe(-32009);
  });

  it('answers a body that is not JSON with -32700 and a null id', async () => {
    const { rpc } = setup();
    const reply = await rpc('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(reply.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: expect.any(String), data: expect.any(Array) },
    });
  });

  it('carries the google.rpc.ErrorInfo of an A2A error in error.data (§3.3.2, §9.5), and none for an unknown method', async () => {
    const { rpc } = setup();

    const missing = await rpc(request('GetTask', { id: 'no-such-task' }));
    const unknown = await rpc(request('TeleportTask', {}));

    expect(missing.body.error).toEqual({
      code: -32001,
      message: expect.any(String),
      data: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'TASK_NOT_FOUND',
          domain: 'a2a-protocol.org',
        },
      ],
    });
    expect(unknown.body.error).not.toHaveProperty('data');
  });

  it('echoes the request id on a version refusal found before the body is read', async () => {
    const { rpc } = setup();
    const reply = await rpc(request('GetTask', { id: 'x' }, 'req-3'), {
      headers: { 'A2A-Version': '0.3' },
    });
    expect(reply.body).toMatchObject({ id: 'req-3', error: { code: -32009 } });
  });

  it.each([
    ['no jsonrpc member', { id: 7, method: 'GetTask', params: {} }],
    ['jsonrpc 1.0', { jsonrpc: '1.0', id: 7, method: 'GetTask', params: {} }],
    ['no method', { jsonrpc: '2.0', id: 7, params: {} }],
    ['an array', [request('GetTask', { id: 'x' }, 7)]],
  ])('answers JSON that is not a JSON-RPC request (%s) with -32600', async (_, body) => {
    const { rpc } = setup();
    const reply = await rpc(body);
    expect(reply.body.error?.code).toBe(-32600);
    if (!Array.isArray(body)) expect(reply.body.id).toBe(7);
  });

  it('answers an unknown method with -32601, echoing the id', async () => {
    const { rpc } = setup();
    const reply = await rpc(request('TeleportTask', {}, 'req-9'));
    expect(reply.body).toEqual({
      jsonrpc: '2.0',
      id: 'req-9',
      error: { code: -32601, message: expect.stringContaining('TeleportTask') },
    });
  });

  it('answers params that are not an object with -32602', async () => {
    const { rpc } = setup();
    const reply = await rpc(request('GetTask', 'task-1'));
    expect(reply.body.error?.code).toBe(-32602);
  });
});

describe('the A2A handler: methods', () => {
  it('creates a task on SendMessage and starts its first execution; returnImmediately answers at once', async () => {
    const { rpc, executions, harness } = setup();

    const reply = await rpc(sendMessage(textMessage('hello')));

    expect(reply.status).toBe(200);
    const task = reply.body.result?.task as { id: string; contextId: string; status: unknown };
    expect(task.id).toEqual(expect.any(String));
    // The creation took the message in for the model: WORKING from its first write.
    expect(task.status).toMatchObject({ state: 'TASK_STATE_WORKING' });
    expect(executions.calls).toEqual([
      { method: 'start', ref: { taskId: task.id, generation: 1, turn: 0 } },
    ]);
    const stored = view(await harness.task(task.id));
    expect(stored.extension.participants).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: ALICE })])
    );
    expect(await harness.store.readInbox(task.id)).toEqual([]);
    expect(await harness.store.readHistory(task.id)).toEqual([
      expect.objectContaining({ kind: 'participant_message', participantId: ALICE, text: 'hello' }),
    ]);
  });

  it('answers a blocking SendMessage with the task as it is once the wait runs out', async () => {
    const { rpc, executions } = setup();
    const reply = await rpc(sendMessage(textMessage('hello'), false));
    expect(reply.body.result?.task).toMatchObject({ status: { state: 'TASK_STATE_WORKING' } });
    expect(executions.started).toHaveLength(1);
  });

  it('answers GetTask to a participant with the task and its extension', async () => {
    const { rpc, harness } = setup([{ text: 'Hello Alice.' }]);
    const started = await harness.start(textMessage('hi'), ALICE);

    const reply = await rpc(request('GetTask', { id: started.task.id }));

    expect(reply.body.result).toMatchObject({
      id: started.task.id,
      status: { state: STATES.INPUT_REQUIRED },
      metadata: {
        [TASK_METADATA_KEY]: expect.objectContaining({ participants: expect.any(Array) }),
        [STATUS_METADATA_KEY]: { sub_state: 'awaiting-next-message' },
      },
    });
  });

  it('answers GetTask by a non-participant with -32001, exactly as for a missing id', async () => {
    const { rpc, harness } = setup([{ text: 'Hello Alice.' }]);
    const started = await harness.start(textMessage('hi'), ALICE);

    const hidden = await rpc(request('GetTask', { id: started.task.id }), { as: STRANGER });
    const missing = await rpc(request('GetTask', { id: 'no-such-task' }), { as: STRANGER });

    expect(hidden.body.error?.code).toBe(-32001);
    expect(hidden).toEqual(missing);
  });

  it('cancels a parked task on CancelTask: its execution is resumed with its token to end itself', async () => {
    const { rpc, harness, executions } = setup([{ text: 'Hello Alice.' }]);
    const started = await harness.start(textMessage('hi'), ALICE);
    const token = (await harness.task(started.task.id)).loop.parkToken;
    expect(token).toEqual(expect.any(String));

    const reply = await rpc(request('CancelTask', { id: started.task.id }));

    expect(reply.body.result).toMatchObject({ status: { state: STATES.CANCELED } });
    expect(executions.calls).toEqual([{ method: 'resume', token }]);
  });

  it('refuses CancelTask of a completed task with -32002 and changes nothing', async () => {
    const { rpc, harness, executions } = setup([{ text: 'Hello Alice.' }]);
    const started = await harness.start(textMessage('hi'), ALICE);
    await harness.complete(started.task.id, ALICE, 'thanks, done');
    const completed = await harness.task(started.task.id);
    expect(view(completed).state).toBe(STATES.COMPLETED);

    const reply = await rpc(request('CancelTask', { id: started.task.id }));

    expect(reply.body.error?.code).toBe(-32002);
    expect(await harness.task(started.task.id)).toEqual(completed);
    expect(executions.calls).toEqual([]);
  });

  it('refuses a new task whose envelope sets model with -32602, and stores nothing', async () => {
    const { rpc, harness, executions } = setup();

    const reply = await rpc(
      sendMessage(envelopeMessage('task', { goal: 'Cheap answers', model: 'gpt-cheap' }))
    );

    expect(reply.body.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('model'),
    });
    expect(await harness.store.list({ participantId: ALICE })).toEqual([]);
    expect(executions.calls).toEqual([]);
  });

  it('refuses an envelope setting model on an existing task with -32602, and changes nothing stored', async () => {
    const { rpc, harness, executions } = setup([{ text: 'Hello Alice.' }]);
    const started = await harness.start(textMessage('hi'), ALICE);
    const taskId = started.task.id;
    const snapshot = async () => ({
      record: await harness.task(taskId),
      events: await harness.events.read(taskId),
      inbox: await harness.store.readInbox(taskId),
    });
    const before = await snapshot();
    const message = {
      ...envelopeMessage('task', { model: 'gpt-cheap' }, { text: 'use this model' }),
      taskId,
    };

    const reply = await rpc(sendMessage(message));

    expect(reply.body.error?.code).toBe(-32602);
    expect(await snapshot()).toEqual(before);
    expect(executions.calls).toEqual([]);
  });
});

describe('the mapping of core errors to A2A errors', () => {
  it('maps every HarnessError code, and nothing else, to an A2A error the server answers with', () => {
    expect(Object.keys(A2A_ERROR_FOR_CODE).sort()).toEqual([...ERROR_CODES].sort());
    for (const code of ERROR_CODES) expect(A2A_ERRORS).toHaveProperty(A2A_ERROR_FOR_CODE[code]);
  });

  it.each(ERROR_CODES)('answers a HarnessError %s with its mapped A2A error', (code) => {
    class Coded extends HarnessError {
      readonly code: ErrorCode = code;
    }
    const mapped = toA2aError(new Coded(`failure ${code}`));
    expect(mapped.kind).toBe(A2A_ERROR_FOR_CODE[code]);
    // An internal error's own message may name tables or hosts: the client gets only an id.
    if (mapped.kind === 'InternalError') {
      expect(mapped.message).toBe(`internal error (correlation id ${mapped.correlationId})`);
    } else if (mapped.kind === 'Busy') {
      // A lost race says what happened and what to do, never which table it lost on.
      expect(mapped.message).toBe(
        'the task is busy with other writers: nothing was written; retry'
      );
    } else {
      expect(mapped.message).toBe(`failure ${code}`);
    }
  });

  it('never exposes an untyped error: it is an internal error with only a correlation id', () => {
    const cause = new Error('secret connection string');
    const mapped = toA2aError(cause);
    expect(mapped.kind).toBe('InternalError');
    expect(mapped.correlationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(mapped.message).toBe(`internal error (correlation id ${mapped.correlationId})`);
    expect(mapped.cause).toBe(cause);
    expect(toA2aError(new Error('again')).correlationId).not.toBe(mapped.correlationId);
  });
});
