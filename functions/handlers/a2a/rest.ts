import { SendMessageRequest, TaskPushNotificationConfig } from '@a2a-js/sdk';
import { A2aError, toA2aError } from '../../service/a2a-errors.js';
import type { A2aService } from '../../service/a2a-service.js';
import {
  decode,
  integerParam,
  invalid,
  jsonBody,
  listTasksRequest,
  type RestReply,
  type RestRequest,
  restFailure,
} from './rest-request.js';
import { isBlocking, sendOptionsOf } from './send-request.js';
import { Streamed, sseFrames } from './sse.js';
import {
  listTasksToJson,
  pushConfigListToJson,
  pushConfigToJson,
  sendMessageResultToJson,
  taskToJson,
} from './wire.js';

export { type RestReply, type RestRequest, restFailure };

type Run = (
  ids: readonly string[],
  request: RestRequest,
  service: A2aService
) => Promise<{ status: number; body?: unknown } | Streamed>;

interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  /** Over the path as received; captures are percent-decoded path segments. */
  pattern: RegExp;
  operation: string;
  run: Run;
}

const ok = (body: unknown) => ({ status: 200, body });

const subscribe: Run = async ([taskId = ''], request, service) =>
  new Streamed(
    await service.subscribe({
      taskId,
      participantId: request.caller,
      lastEventId: request.lastEventId,
    })
  );

const TASK = '([^/:]+)';

/** The HTTP+JSON binding's routes (§5.3), at the same base URL as JSON-RPC (which is `POST /`). */
const ROUTES: readonly Route[] = [
  {
    method: 'POST',
    pattern: /^\/message:send$/,
    operation: 'SendMessage',
    run: async (_, request, service) => {
      const send = decode(SendMessageRequest, jsonBody(request));
      const task = await service.sendMessage({
        ...sendOptionsOf(send, request.caller),
        blocking: isBlocking(send),
      });
      return ok(sendMessageResultToJson(task));
    },
  },
  {
    method: 'POST',
    pattern: /^\/message:stream$/,
    operation: 'SendStreamingMessage',
    run: async (_, request, service) =>
      new Streamed(
        await service.sendStreamingMessage(
          sendOptionsOf(decode(SendMessageRequest, jsonBody(request)), request.caller)
        )
      ),
  },
  {
    method: 'GET',
    pattern: /^\/tasks$/,
    operation: 'ListTasks',
    run: async (_, request, service) => {
      const list = listTasksRequest(request.query);
      return ok(
        listTasksToJson(
          await service.listTasks(list, request.caller),
          list.includeArtifacts === true
        )
      );
    },
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/tasks/${TASK}$`),
    operation: 'GetTask',
    run: async ([taskId = ''], request, service) =>
      ok(
        taskToJson(
          await service.getTask({
            taskId,
            participantId: request.caller,
            historyLength: integerParam('historyLength', request.query.historyLength),
          })
        )
      ),
  },
  {
    method: 'POST',
    pattern: new RegExp(`^/tasks/${TASK}:cancel$`),
    operation: 'CancelTask',
    run: async ([taskId = ''], request, service) =>
      ok(taskToJson(await service.cancelTask(taskId, request.caller))),
  },
  {
    method: 'POST',
    pattern: new RegExp(`^/tasks/${TASK}:subscribe$`),
    operation: 'SubscribeToTask',
    run: subscribe,
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/tasks/${TASK}:subscribe$`),
    operation: 'SubscribeToTask',
    run: subscribe,
  },
  {
    method: 'POST',
    pattern: new RegExp(`^/tasks/${TASK}/pushNotificationConfigs$`),
    operation: 'CreateTaskPushNotificationConfig',
    run: async ([taskId = ''], request, service) => {
      const config = decode(TaskPushNotificationConfig, jsonBody(request));
      if (config.taskId !== '' && config.taskId !== taskId) {
        throw invalid('the body names another task than the path');
      }
      const created = await service.pushConfigs.create({ ...config, taskId }, request.caller);
      return { status: 201, body: pushConfigToJson(created) };
    },
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/tasks/${TASK}/pushNotificationConfigs$`),
    operation: 'ListTaskPushNotificationConfigs',
    run: async ([taskId = ''], request, service) =>
      ok(
        pushConfigListToJson(
          await service.pushConfigs.list(
            {
              tenant: '',
              taskId,
              pageSize: integerParam('pageSize', request.query.pageSize) ?? 0,
              pageToken: request.query.pageToken ?? '',
            },
            request.caller
          )
        )
      ),
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/tasks/${TASK}/pushNotificationConfigs/([^/]+)$`),
    operation: 'GetTaskPushNotificationConfig',
    run: async ([taskId = '', configId = ''], request, service) =>
      ok(pushConfigToJson(await service.pushConfigs.get(taskId, configId, request.caller))),
  },
  {
    method: 'DELETE',
    pattern: new RegExp(`^/tasks/${TASK}/pushNotificationConfigs/([^/]+)$`),
    operation: 'DeleteTaskPushNotificationConfig',
    run: async ([taskId = '', configId = ''], request, service) => {
      await service.pushConfigs.delete(taskId, configId, request.caller);
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    pattern: /^\/extendedAgentCard$/,
    operation: 'GetExtendedAgentCard',
    run: async () => {
      throw new A2aError('UnsupportedOperation', 'this agent has no extended agent card');
    },
  },
];

const decodeSegment = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw invalid('the path is not valid percent-encoding');
  }
};

/** A route that serves the method and path, with its captured path segments (still encoded). */
export interface MatchedRoute {
  route: Route;
  segments: string[];
}

/** The route for a method and path; undefined when none serves them (a 404, before any check). */
export const matchRoute = (method: string, path: string): MatchedRoute | undefined => {
  for (const route of ROUTES) {
    if (route.method !== method) continue;
    const match = route.pattern.exec(path);
    if (match !== null) return { route, segments: match.slice(1) };
  }
  return undefined;
};

export const noRoute = (method: string, path: string): RestReply =>
  restFailure(new A2aError('MethodNotFound', `no A2A operation at ${method} ${path}`));

/** One HTTP+JSON request on its route, answered with the service's result or its A2A error. */
export const dispatchRest = async (
  matched: MatchedRoute,
  request: RestRequest,
  service: A2aService,
  onStreamError: (error: unknown) => void = () => undefined
): Promise<RestReply> => {
  const { route, segments } = matched;
  try {
    const reply = await route.run(segments.map(decodeSegment), request, service);
    if (reply instanceof Streamed) {
      const framing = {
        event: (json: unknown) => json,
        error: (e: A2aError) => restFailure(e).body,
      };
      return {
        status: 200,
        stream: sseFrames(reply.items, framing, onStreamError),
        operation: route.operation,
      };
    }
    return { ...reply, operation: route.operation };
  } catch (error) {
    return { ...restFailure(toA2aError(error)), operation: route.operation };
  }
};
