/**
 * The task extension's fork and time-travel doors (docs/a2a/fork.md): JSON-RPC
 * `tiny-harness/ForkTask` and `tiny-harness/GetTaskAt`, `POST /tasks/{id}:fork` and
 * `GET /tasks/{id}:at`. The A2A entry point asks these first; anything else is the bindings' own.
 */
import * as z from 'zod';
import {
  FORK_JSON_RPC_METHOD,
  FORK_REST_SUFFIX,
  TASK_AT_JSON_RPC_METHOD,
  TASK_AT_REST_SUFFIX,
} from '../core/a2a/identifiers.js';
import type { HistoryPoint } from '../core/loop/history-point.js';
import { MAX_PARTICIPANTS, ParticipantSchema } from '../core/task/extension.schema.js';
import { A2aError, toA2aError } from '../service/a2a-errors.js';
import type { A2aService, HistorySources } from '../service/a2a-service.js';
import { callsMethod, ExtensionRequestSchema, invalidParams } from './a2a/extension-request.js';
import type { JsonRpcReply } from './a2a/json-rpc.js';
import { jsonRpcFailure } from './a2a/json-rpc.js';
import type { RestReply, RestRequest } from './a2a/rest-request.js';
import { jsonBody, restFailure } from './a2a/rest-request.js';
import { taskToJson } from './a2a/wire.js';

/** The longest name a fork may be given: a name is a label, not a brief. */
export const MAX_FORK_NAME = 200;

const pointShape = {
  messageId: z.string().min(1).max(1_000).optional(),
  beforeTurn: z.int().min(1).max(1_000_000_000).optional(),
  historyLength: z.int().min(0).optional(),
};

const onePoint = (params: { messageId?: string | undefined; beforeTurn?: number | undefined }) =>
  params.messageId === undefined || params.beforeTurn === undefined;
const ONE_POINT = { message: 'name a point by messageId or by beforeTurn, not both' };

const TaskAtParamsSchema = z.strictObject(pointShape).refine(onePoint, ONE_POINT);

const ForkParamsSchema = z
  .strictObject({
    ...pointShape,
    name: z.string().trim().min(1).max(MAX_FORK_NAME).optional(),
    text: z.string().max(100_000).optional(),
    participants: z.array(ParticipantSchema).max(MAX_PARTICIPANTS).optional(),
  })
  .refine(onePoint, ONE_POINT);

const pointOf = (params: z.infer<typeof TaskAtParamsSchema>): HistoryPoint =>
  params.messageId !== undefined
    ? { kind: 'message', messageId: params.messageId }
    : params.beforeTurn !== undefined
      ? { kind: 'before_turn', turn: params.beforeTurn }
      : { kind: 'latest' };

/** One of the two methods, answered with a Task; `taskId` named by the request. */
const answerMethod = async (
  method: string,
  taskId: string,
  raw: unknown,
  caller: string,
  service: A2aService,
  sources: HistorySources
): Promise<unknown> => {
  if (method === TASK_AT_JSON_RPC_METHOD) {
    const params = TaskAtParamsSchema.safeParse(raw);
    if (!params.success) throw invalidParams(params.error);
    const request = { taskId, participantId: caller, point: pointOf(params.data) };
    return taskToJson(
      await service.taskAt({ ...request, historyLength: params.data.historyLength }, sources)
    );
  }
  const params = ForkParamsSchema.safeParse(raw);
  if (!params.success) throw invalidParams(params.error);
  const { name, text, participants, historyLength } = params.data;
  const request = { taskId, participantId: caller, point: pointOf(params.data) };
  return taskToJson(
    await service.forkTask({ ...request, name, text, participants, historyLength }, sources)
  );
};

const METHODS = new Set([FORK_JSON_RPC_METHOD, TASK_AT_JSON_RPC_METHOD]);

/** Whether a JSON-RPC body calls one of the methods (read before any A2A dispatch). */
export const isForkJsonRpc = (body: string): boolean => callsMethod(body, METHODS);

export const answerForkJsonRpc = async (
  body: string,
  caller: string,
  service: A2aService,
  sources: HistorySources
): Promise<JsonRpcReply> => {
  const request = ExtensionRequestSchema.safeParse(JSON.parse(body));
  if (!request.success) {
    return jsonRpcFailure(null, new A2aError('InvalidRequest', 'not a JSON-RPC 2.0 request'));
  }
  const { method, params } = request.data;
  const id = request.data.id ?? null;
  try {
    const withId = z.looseObject({ id: z.string().min(1) }).safeParse(params);
    if (!withId.success) throw invalidParams(withId.error);
    const { id: taskId, ...rest } = withId.data;
    const result = await answerMethod(method, taskId, rest, caller, service, sources);
    return { status: 200, body: { jsonrpc: '2.0', id, result }, operation: method };
  } catch (error) {
    return { ...jsonRpcFailure(id, toA2aError(error)), operation: method };
  }
};

const ROUTES = [
  { method: 'POST', suffix: FORK_REST_SUFFIX, serves: FORK_JSON_RPC_METHOD },
  { method: 'GET', suffix: TASK_AT_REST_SUFFIX, serves: TASK_AT_JSON_RPC_METHOD },
].map((route) => ({ ...route, path: new RegExp(`^/tasks/([^/:]+)${route.suffix}$`) }));

/** The route of `POST /tasks/{id}:fork` or `GET /tasks/{id}:at`, or undefined for any other. */
export const forkRoute = (
  method: string,
  path: string
): { taskId: string; serves: string } | undefined => {
  for (const route of ROUTES) {
    if (route.method !== method) continue;
    const segment = route.path.exec(path)?.[1];
    if (segment === undefined) continue;
    try {
      return { taskId: decodeURIComponent(segment), serves: route.serves };
    } catch {
      return undefined;
    }
  }
  return undefined;
};

/** A query string's value as the JSON field it stands for: a number where one is expected. */
const integerQuery = (value: string | undefined, name: string): number | undefined => {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new A2aError('InvalidParams', `${name} must be an integer`);
  return Number(value);
};

export const answerForkRest = async (
  route: { taskId: string; serves: string },
  request: RestRequest,
  service: A2aService,
  sources: HistorySources
): Promise<RestReply> => {
  const operation = route.serves === FORK_JSON_RPC_METHOD ? 'ForkTask' : 'GetTaskAt';
  try {
    const { query } = request;
    const raw =
      route.serves === FORK_JSON_RPC_METHOD
        ? jsonBody(request)
        : Object.fromEntries(
            Object.entries({
              messageId: query.messageId,
              beforeTurn: integerQuery(query.beforeTurn, 'beforeTurn'),
              historyLength: integerQuery(query.historyLength, 'historyLength'),
            }).filter(([, value]) => value !== undefined)
          );
    const body = await answerMethod(
      route.serves,
      route.taskId,
      raw,
      request.caller,
      service,
      sources
    );
    return { status: 200, body, operation };
  } catch (error) {
    return { ...restFailure(toA2aError(error)), operation };
  }
};
