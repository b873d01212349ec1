import * as z from 'zod';
import { A2A_ERRORS, A2aError, errorDetails, toA2aError } from '../../service/a2a-errors.js';
import type { A2aService } from '../../service/a2a-service.js';
import { checkBodyMediaType } from './http.js';
import { checkJsonDepth } from './json-depth.js';
import { REQUESTS } from './request-params.js';
import { isBlocking, sendOptionsOf } from './send-request.js';
import { Streamed, sseFrames } from './sse.js';
import {
  listTasksToJson,
  pushConfigListToJson,
  pushConfigToJson,
  sendMessageResultToJson,
  taskToJson,
} from './wire.js';

export { toA2aError };

export const JsonRpcRequestSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number(), z.null()]).optional(),
  method: z.string().min(1),
  params: z.unknown().optional(),
});

type JsonRpcId = string | number | null;

export interface JsonRpcReply {
  status: number;
  body: Record<string, unknown>;
  /** SSE frames instead of `body`, for the streaming methods once their stream has started. */
  stream?: AsyncIterable<string>;
  /** The method the request named, for the log line (absent when none could be read). */
  operation?: string;
  error?: A2aError;
}

/** An error reply (§9.5): the code, and the A2A error's ErrorInfo as `data` when it has one. */
export const jsonRpcFailure = (id: JsonRpcId, error: A2aError): JsonRpcReply => {
  const details = errorDetails(error);
  return {
    status: 200,
    body: {
      jsonrpc: '2.0',
      id,
      error: {
        code: A2A_ERRORS[error.kind].code,
        message: error.message,
        ...(details.length > 0 ? { data: details } : {}),
      },
    },
    error,
  };
};

/** The request's id when the body is a JSON object with a usable one, for errors found early. */
export const jsonRpcIdOf = (body: string): JsonRpcId => {
  try {
    const id = (JSON.parse(body) as { id?: unknown } | null)?.id;
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  } catch {
    return null;
  }
};

/**
 * A method's params, checked against its request message (request-params.ts) before anything
 * converts them. Absent params read as `{}`: a method whose request has required fields refuses.
 */
const paramsOf = <T>(parse: (raw: unknown) => T, params: unknown): T => parse(params ?? {});

/** Who calls, and what the transport said besides the body. */
export interface JsonRpcCall {
  caller: string;
  /** The request's `Content-Type`. */
  contentType?: string | undefined;
  /** The SSE `Last-Event-ID` header, for SubscribeToTask. */
  lastEventId?: number | undefined;
}

type Method = (params: unknown, call: JsonRpcCall, service: A2aService) => Promise<unknown>;

/** The A2A 1.0 JSON-RPC methods (§5.3), named as the SDK's JsonRpcTransport sends them. */
const METHODS: Record<string, Method> = {
  SendMessage: async (params, { caller }, service) => {
    const request = paramsOf(REQUESTS.sendMessage, params);
    const task = await service.sendMessage({
      ...sendOptionsOf(request, caller),
      blocking: isBlocking(request),
    });
    return sendMessageResultToJson(task);
  },
  SendStreamingMessage: async (params, { caller }, service) =>
    new Streamed(
      await service.sendStreamingMessage(
        sendOptionsOf(paramsOf(REQUESTS.sendMessage, params), caller)
      )
    ),
  SubscribeToTask: async (params, { caller, lastEventId }, service) => {
    const request = paramsOf(REQUESTS.subscribe, params);
    return new Streamed(
      await service.subscribe({ taskId: request.id, participantId: caller, lastEventId })
    );
  },
  GetTask: async (params, { caller }, service) => {
    const request = paramsOf(REQUESTS.getTask, params);
    return taskToJson(
      await service.getTask({
        taskId: request.id,
        participantId: caller,
        historyLength: request.historyLength,
      })
    );
  },
  ListTasks: async (params, { caller }, service) => {
    const request = paramsOf(REQUESTS.listTasks, params);
    return listTasksToJson(
      await service.listTasks(request, caller),
      request.includeArtifacts === true
    );
  },
  CancelTask: async (params, { caller }, service) => {
    const request = paramsOf(REQUESTS.cancelTask, params);
    return taskToJson(await service.cancelTask(request.id, caller));
  },
  CreateTaskPushNotificationConfig: async (params, { caller }, service) => {
    const request = paramsOf(REQUESTS.createPushConfig, params);
    return pushConfigToJson(await service.pushConfigs.create(request, caller));
  },
  GetTaskPushNotificationConfig: async (params, { caller }, service) => {
    const request = paramsOf(REQUESTS.getPushConfig, params);
    return pushConfigToJson(await service.pushConfigs.get(request.taskId, request.id, caller));
  },
  ListTaskPushNotificationConfigs: async (params, { caller }, service) => {
    const request = paramsOf(REQUESTS.listPushConfigs, params);
    return pushConfigListToJson(await service.pushConfigs.list(request, caller));
  },
  DeleteTaskPushNotificationConfig: async (params, { caller }, service) => {
    const request = paramsOf(REQUESTS.deletePushConfig, params);
    await service.pushConfigs.delete(request.taskId, request.id, caller);
    // The method's result is google.protobuf.Empty.
    return {};
  },
  // The card declares no extended card (§3.3.4: then UnsupportedOperation).
  GetExtendedAgentCard: async (params) => {
    paramsOf(REQUESTS.getExtendedCard, params);
    throw new A2aError('UnsupportedOperation', 'this agent has no extended agent card');
  },
};

/** One JSON-RPC request, answered as a reply whose errors are the spec's codes. */
export const dispatchJsonRpc = async (
  body: string,
  call: JsonRpcCall,
  service: A2aService,
  onStreamError: (error: A2aError) => void = () => undefined
): Promise<JsonRpcReply> => {
  let raw: unknown;
  try {
    checkBodyMediaType(call.contentType);
    raw = JSON.parse(body);
  } catch (error) {
    return jsonRpcFailure(
      null,
      error instanceof A2aError ? error : new A2aError('ParseError', 'the body is not JSON')
    );
  }
  const request = JsonRpcRequestSchema.safeParse(raw);
  if (!request.success) {
    return jsonRpcFailure(
      jsonRpcIdOf(body),
      new A2aError('InvalidRequest', 'not a JSON-RPC 2.0 request')
    );
  }
  const id = request.data.id ?? null;
  const name = request.data.method;
  const method = Object.hasOwn(METHODS, name) ? METHODS[name] : undefined;
  if (method === undefined) {
    return {
      ...jsonRpcFailure(id, new A2aError('MethodNotFound', `no method ${name}`)),
      operation: name,
    };
  }
  try {
    checkJsonDepth(request.data.params, 'params');
    const result = await method(request.data.params, call, service);
    if (result instanceof Streamed) {
      const stream = sseFrames(
        result.items,
        {
          event: (streamResponse) => ({ jsonrpc: '2.0', id, result: streamResponse }),
          error: (error) => jsonRpcFailure(id, error).body,
        },
        onStreamError
      );
      return { status: 200, body: {}, stream, operation: name };
    }
    return { status: 200, body: { jsonrpc: '2.0', id, result }, operation: name };
  } catch (error) {
    return { ...jsonRpcFailure(id, toA2aError(error)), operation: name };
  }
};
