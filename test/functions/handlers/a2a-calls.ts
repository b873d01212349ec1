import { Readable } from 'node:stream';
import { Message } from '@a2a-js/sdk';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { ScriptedReply } from '../../../functions/core/testing/scripted-model.js';
import { createA2aHandler } from '../../../functions/handlers/a2a.js';
import { A2A_ERRORS, type A2aErrorName } from '../../../functions/service/a2a-errors.js';
import { A2aService } from '../../../functions/service/a2a-service.js';
import type { StreamTiming } from '../../../functions/service/task-stream.js';
import { apiGatewayEvent } from '../../support/api-gateway.js';
import { ALICE } from '../../support/harness.js';
import { authorizationFor } from '../../support/identity.js';
import { readSse } from '../../support/sse.js';
import { BackgroundExecutions } from '../background-executions.js';
import { inMemoryRuntime, lambdaContext, withExecutionWaker } from '../support.js';

/**
 * The A2A handler on the in-memory runtime, driven over either binding with the same calls, so a
 * test states a behaviour once and checks it on JSON-RPC and on HTTP+JSON.
 */

export interface CallOptions {
  as?: string;
  headers?: Record<string, string>;
}

/** A JSON answer, read off either binding: the result, or the error as that binding spelt it. */
export interface Outcome {
  status: number;
  headers: Record<string, string>;
  /** The JSON-RPC `result`, or the REST body on success (undefined for 204). */
  result?: Record<string, unknown> & { task?: Record<string, unknown> };
  /** The JSON-RPC `error`, or the REST `error` (a google.rpc.Status). */
  error?: {
    code: number;
    message: string;
    status?: string;
    data?: unknown[];
    details?: unknown[];
  };
  raw: string;
  /** For a streaming call that started its stream: what the stream carried, read to its end. */
  stream?: StreamRead;
}

export interface StreamRead {
  /** Each `data:` frame's `StreamResponse` (JSON-RPC: the response's `result`), with its `id:`. */
  events: Array<{ id?: string; response: Record<string, Record<string, unknown>> }>;
  /** The error of an `event: error` frame, as the binding spelt it. */
  error?: Outcome['error'];
  keepAlives: number;
}

export type BindingName = 'JSON-RPC' | 'HTTP+JSON';

export interface BindingCalls {
  name: BindingName;
  send(message: Message, options?: CallOptions & { configuration?: object }): Promise<Outcome>;
  getTask(id: string, historyLength?: number, options?: CallOptions): Promise<Outcome>;
  listTasks(
    query?: Record<string, string | number | boolean>,
    options?: CallOptions
  ): Promise<Outcome>;
  cancel(id: string, options?: CallOptions): Promise<Outcome>;
  createPush(
    taskId: string,
    config: Record<string, unknown>,
    options?: CallOptions
  ): Promise<Outcome>;
  getPush(taskId: string, id: string, options?: CallOptions): Promise<Outcome>;
  listPush(taskId: string, options?: CallOptions): Promise<Outcome>;
  deletePush(taskId: string, id: string, options?: CallOptions): Promise<Outcome>;
  stream(message: Message, options?: CallOptions): Promise<Outcome>;
  subscribe(id: string, options?: CallOptions): Promise<Outcome>;
}

/** Stream timings short enough for unit tests. */
export const TEST_STREAM_TIMING: StreamTiming = {
  pollIntervalMs: 2,
  keepAliveMs: 10_000,
  maxDurationMs: 5_000,
};

export interface SetupOptions {
  /** Run turns after each call, as Step Functions would (default: only record the calls). */
  background?: boolean;
  stream?: Partial<StreamTiming>;
}

const readStream = async (body: Readable, binding: BindingName): Promise<StreamRead> => {
  const read: StreamRead = { events: [], keepAlives: 0 };
  for await (const entry of readSse(body)) {
    if (entry.kind === 'comment') {
      read.keepAlives++;
      continue;
    }
    const json = JSON.parse(entry.frame.data) as Record<string, never>;
    if (entry.frame.event === 'error') {
      read.error = json.error;
      continue;
    }
    const response = (
      binding === 'JSON-RPC' ? json.result : json
    ) as StreamRead['events'][0]['response'];
    read.events.push({ ...(entry.frame.id === undefined ? {} : { id: entry.frame.id }), response });
  }
  return read;
};

/**
 * An error as the binding spelt it: the JSON-RPC code, or the HTTP status and ErrorInfo reason of
 * the HTTP+JSON binding (which cannot tell a parse error from invalid params, as the SDK cannot).
 */
export const errorOf = (binding: BindingName, outcome: Outcome) =>
  binding === 'JSON-RPC'
    ? { code: outcome.error?.code }
    : {
        status: outcome.status,
        reason: (outcome.error?.details?.[0] as { reason?: string } | undefined)?.reason ?? null,
      };

/** How the binding spells the A2A error `kind` (§5.4). */
export const spelling = (binding: BindingName, kind: A2aErrorName) =>
  binding === 'JSON-RPC'
    ? { code: A2A_ERRORS[kind].code }
    : { status: A2A_ERRORS[kind].http, reason: A2A_ERRORS[kind].reason };

export const event = apiGatewayEvent;

export const a2aSetup = (replies: ScriptedReply[] = [], options: SetupOptions = {}) => {
  const built = inMemoryRuntime({ replies });
  const background = new BackgroundExecutions(built.harness.deps);
  // The background executions are what the runtime's waker wakes, too.
  const runtime = options.background
    ? withExecutionWaker({ ...built.runtime, executions: background })
    : built.runtime;
  const parts = { ...built, runtime, background };
  const service = new A2aService(runtime, {
    blockingTimeoutMs: 50,
    pollIntervalMs: 5,
    stream: { ...TEST_STREAM_TIMING, ...options.stream },
  });
  const handler = createA2aHandler(
    () => runtime,
    () => service
  );
  const rawCall = (overrides: Partial<APIGatewayProxyEvent>) =>
    handler(event(overrides), lambdaContext('A2aFunction'));
  /** A call whose answer is not a stream. */
  const call = async (overrides: Partial<APIGatewayProxyEvent>): Promise<APIGatewayProxyResult> => {
    const response = await rawCall(overrides);
    if (typeof response.body !== 'string') throw new Error('the answer is a stream');
    return { ...response, body: response.body };
  };

  const baseHeaders = (options: CallOptions, contentType: string) => ({
    'Content-Type': contentType,
    'A2A-Version': '1.0',
    ...authorizationFor(options.as ?? ALICE),
    ...options.headers,
  });

  const read = async (response: Awaited<ReturnType<typeof rawCall>>, binding: BindingName) => {
    const headers = (response.headers ?? {}) as Record<string, string>;
    if (response.body instanceof Readable) {
      return {
        status: response.statusCode,
        headers,
        raw: '',
        json: undefined,
        stream: await readStream(response.body, binding),
      };
    }
    const raw = response.body;
    const json = raw === '' ? undefined : (JSON.parse(raw) as Record<string, never>);
    return { status: response.statusCode, headers, raw, json, stream: undefined };
  };

  let rpcId = 0;
  /** One JSON-RPC call (POST /), as the SDK's JsonRpcTransport sends it. */
  const rpc = async (
    method: string,
    params: unknown,
    options: CallOptions = {}
  ): Promise<Outcome> => {
    const response = await read(
      await rawCall({
        headers: baseHeaders(options, 'application/json'),
        body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
      }),
      'JSON-RPC'
    );
    const body = response.json as Pick<Outcome, 'result' | 'error'> | undefined;
    return { ...response, result: body?.result, error: body?.error };
  };

  /** One HTTP+JSON call, as the SDK's RestTransport sends it. */
  const rest = async (
    method: string,
    path: string,
    options: CallOptions & { body?: unknown; query?: Record<string, string> } = {}
  ): Promise<Outcome> => {
    const response = await read(
      await rawCall({
        httpMethod: method,
        path,
        headers: baseHeaders(options, 'application/json'),
        queryStringParameters: options.query ?? null,
        body: options.body === undefined ? null : JSON.stringify(options.body),
      }),
      'HTTP+JSON'
    );
    const body = response.json as (Outcome['result'] & Pick<Outcome, 'error'>) | undefined;
    if (response.stream !== undefined) return response;
    return response.status >= 400
      ? { ...response, error: body?.error }
      : { ...response, result: body };
  };

  const stringQuery = (query: Record<string, string | number | boolean>) =>
    Object.fromEntries(Object.entries(query).map(([key, value]) => [key, String(value)]));

  const jsonRpc: BindingCalls = {
    name: 'JSON-RPC',
    send: (message, options = {}) =>
      rpc(
        'SendMessage',
        {
          message: Message.toJSON(message),
          configuration: options.configuration ?? { returnImmediately: true },
        },
        options
      ),
    getTask: (id, historyLength, options) =>
      rpc('GetTask', historyLength === undefined ? { id } : { id, historyLength }, options),
    listTasks: (query = {}, options) => rpc('ListTasks', query, options),
    cancel: (id, options) => rpc('CancelTask', { id }, options),
    createPush: (taskId, config, options) =>
      rpc('CreateTaskPushNotificationConfig', { ...config, taskId }, options),
    getPush: (taskId, id, options) => rpc('GetTaskPushNotificationConfig', { taskId, id }, options),
    listPush: (taskId, options) => rpc('ListTaskPushNotificationConfigs', { taskId }, options),
    deletePush: (taskId, id, options) =>
      rpc('DeleteTaskPushNotificationConfig', { taskId, id }, options),
    stream: (message, options) =>
      rpc('SendStreamingMessage', { message: Message.toJSON(message) }, options),
    subscribe: (id, options) => rpc('SubscribeToTask', { id }, options),
  };

  const task = (id: string) => `/tasks/${encodeURIComponent(id)}`;
  const httpJson: BindingCalls = {
    name: 'HTTP+JSON',
    send: (message, options = {}) =>
      rest('POST', '/message:send', {
        ...options,
        body: {
          message: Message.toJSON(message),
          configuration: options.configuration ?? { returnImmediately: true },
        },
      }),
    getTask: (id, historyLength, options = {}) =>
      rest('GET', task(id), {
        ...options,
        ...(historyLength === undefined ? {} : { query: { historyLength: String(historyLength) } }),
      }),
    listTasks: (query = {}, options = {}) =>
      rest('GET', '/tasks', { ...options, query: stringQuery(query) }),
    cancel: (id, options = {}) => rest('POST', `${task(id)}:cancel`, options),
    createPush: (taskId, config, options = {}) =>
      rest('POST', `${task(taskId)}/pushNotificationConfigs`, {
        ...options,
        body: { ...config, taskId },
      }),
    getPush: (taskId, id, options = {}) =>
      rest('GET', `${task(taskId)}/pushNotificationConfigs/${encodeURIComponent(id)}`, options),
    listPush: (taskId, options = {}) =>
      rest('GET', `${task(taskId)}/pushNotificationConfigs`, options),
    deletePush: (taskId, id, options = {}) =>
      rest('DELETE', `${task(taskId)}/pushNotificationConfigs/${encodeURIComponent(id)}`, options),
    stream: (message, options = {}) =>
      rest('POST', '/message:stream', { ...options, body: { message: Message.toJSON(message) } }),
    subscribe: (id, options = {}) => rest('POST', `${task(id)}:subscribe`, options),
  };

  return { ...parts, service, call, rawCall, rpc, rest, bindings: [jsonRpc, httpJson] as const };
};

export const BINDINGS: readonly BindingName[] = ['JSON-RPC', 'HTTP+JSON'];

/** The calls of one binding on a fresh setup. */
export const setupFor = (
  binding: BindingName,
  replies: ScriptedReply[] = [],
  options: SetupOptions = {}
) => {
  const setup = a2aSetup(replies, options);
  const calls = setup.bindings.find((candidate) => candidate.name === binding);
  if (calls === undefined) throw new Error(`no binding ${binding}`);
  return { ...setup, calls };
};
