import {
  CancelTaskRequest,
  GetTaskRequest,
  SendMessageRequest,
  SendMessageResponse,
  Task,
} from '@a2a-js/sdk';
import { z } from 'zod';
import { isHarnessError } from '../../core/errors.js';
import { A2A_ERROR_FOR_CODE, A2A_ERRORS, A2aError } from '../../service/a2a-errors.js';
import type { A2aService } from '../../service/a2a-service.js';

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
}

const failure = (id: JsonRpcId, error: A2aError): JsonRpcReply => ({
  status: 200,
  body: {
    jsonrpc: '2.0',
    id,
    error: { code: A2A_ERRORS[error.kind].code, message: error.message },
  },
});

/** Any error as the A2A error a client may see: typed ones mapped, the rest never exposed. */
export const toA2aError = (error: unknown): A2aError => {
  if (error instanceof A2aError) return error;
  if (isHarnessError(error)) return new A2aError(A2A_ERROR_FOR_CODE[error.code], error.message);
  return new A2aError('InternalError', 'internal error');
};

const paramsOf = <T>(fns: { fromJSON(value: unknown): T }, params: unknown): T => {
  if (typeof params !== 'object' || params === null) {
    throw new A2aError('InvalidParams', 'params must be an object');
  }
  try {
    return fns.fromJSON(params);
  } catch (error) {
    throw new A2aError('InvalidParams', `invalid params: ${(error as Error).message}`);
  }
};

type Method = (params: unknown, caller: string, service: A2aService) => Promise<unknown>;

/** The JSON-RPC methods served here; the A2A surface issue adds the rest of A2A 1.0. */
const METHODS: Record<string, Method> = {
  SendMessage: async (params, caller, service) => {
    const request = paramsOf(SendMessageRequest, params);
    if (request.message === undefined) throw new A2aError('InvalidParams', 'message is required');
    const task = await service.sendMessage({
      message: request.message,
      sender: caller,
      blocking: request.configuration?.returnImmediately !== true,
    });
    return SendMessageResponse.toJSON({ payload: { $case: 'task', value: task } });
  },
  GetTask: async (params, caller, service) => {
    const request = paramsOf(GetTaskRequest, params);
    return Task.toJSON(await service.getTask(request.id, caller));
  },
  CancelTask: async (params, caller, service) => {
    const request = paramsOf(CancelTaskRequest, params);
    return Task.toJSON(await service.cancelTask(request.id, caller));
  },
};

/** One JSON-RPC request, answered as a reply whose errors are the spec's codes. */
export const dispatchJsonRpc = async (
  body: string,
  caller: string,
  service: A2aService
): Promise<JsonRpcReply> => {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    return failure(null, new A2aError('ParseError', 'the body is not JSON'));
  }
  const request = JsonRpcRequestSchema.safeParse(raw);
  if (!request.success) {
    const id = (raw as { id?: unknown } | null)?.id;
    return failure(
      typeof id === 'string' || typeof id === 'number' ? id : null,
      new A2aError('InvalidRequest', 'not a JSON-RPC 2.0 request')
    );
  }
  const id = request.data.id ?? null;
  const method = METHODS[request.data.method];
  if (method === undefined) {
    return failure(id, new A2aError('MethodNotFound', `no method ${request.data.method}`));
  }
  try {
    const result = await method(request.data.params, caller, service);
    return { status: 200, body: { jsonrpc: '2.0', id, result } };
  } catch (error) {
    return failure(id, toA2aError(error));
  }
};
