import { A2aError, toA2aError } from '../../service/a2a-errors.js';
import type { A2aService } from '../../service/a2a-service.js';
import { REQUESTS } from './request-params.js';
import {
  invalid,
  jsonBody,
  queryFields,
  type RestReply,
  type RestRequest,
  restFailure,
  withPathField,
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

const subscribe: Run = async ([taskId = ''], request, service) => {
  // POST carries the request as its body, GET as its query (the spec's route is a GET).
  const fields = request.method === 'GET' ? queryFields(request.query) : jsonBody(request);
  const subscription = REQUESTS.subscribe(
    withPathField(fields, 'id', taskId),
    request.method === 'GET' ? 'query' : 'body'
  );
  return new Streamed(
    await service.subscribe({
      taskId: subscription.id,
      participantId: request.caller,
      lastEventId: request.lastEventId,
    })
  );
};

const TASK = '([^/:]+)';

const pushConfigRef = (request: RestRequest, taskId: string, configId: string) =>
  withPathField(withPathField(queryFields(request.query), 'taskId', taskId), 'id', configId);

/** The HTTP+JSON binding's routes (§5.3), at the same base URL as JSON-RPC (which is `POST /`). */
const ROUTES: readonly Route[] = [
  {
    method: 'POST',
    pattern: /^\/message:send$/,
    operation: 'SendMessage',
    run: async (_, request, service) => {
      const send = REQUESTS.sendMessage(jsonBody(request), 'body');
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
          sendOptionsOf(REQUESTS.sendMessage(jsonBody(request), 'body'), request.caller)
        )
      ),
  },
  {
    method: 'GET',
    pattern: /^\/tasks$/,
    operation: 'ListTasks',
    run: async (_, request, service) => {
      const list = REQUESTS.listTasks(queryFields(request.query), 'query');
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
    run: async ([taskId = ''], request, service) => {
      const get = REQUESTS.getTask(
        withPathField(queryFields(request.query), 'id', taskId),
        'query'
      );
      return ok(
        taskToJson(
          await service.getTask({
            taskId: get.id,
            participantId: request.caller,
            historyLength: get.historyLength,
          })
        )
      );
    },
  },
  {
    method: 'POST',
    pattern: new RegExp(`^/tasks/${TASK}:cancel$`),
    operation: 'CancelTask',
    run: async ([taskId = ''], request, service) => {
      const cancel = REQUESTS.cancelTask(withPathField(jsonBody(request), 'id', taskId), 'body');
      return ok(taskToJson(await service.cancelTask(cancel.id, request.caller)));
    },
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
      const config = REQUESTS.pushConfigBody(jsonBody(request), 'body');
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
    run: async ([taskId = ''], request, service) => {
      const list = REQUESTS.listPushConfigs(
        withPathField(queryFields(request.query), 'taskId', taskId),
        'query'
      );
      return ok(pushConfigListToJson(await service.pushConfigs.list(list, request.caller)));
    },
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/tasks/${TASK}/pushNotificationConfigs/([^/]+)$`),
    operation: 'GetTaskPushNotificationConfig',
    run: async ([taskId = '', configId = ''], request, service) => {
      const ref = REQUESTS.getPushConfig(pushConfigRef(request, taskId, configId), 'query');
      return ok(
        pushConfigToJson(await service.pushConfigs.get(ref.taskId, ref.id, request.caller))
      );
    },
  },
  {
    method: 'DELETE',
    pattern: new RegExp(`^/tasks/${TASK}/pushNotificationConfigs/([^/]+)$`),
    operation: 'DeleteTaskPushNotificationConfig',
    run: async ([taskId = '', configId = ''], request, service) => {
      const ref = REQUESTS.deletePushConfig(pushConfigRef(request, taskId, configId), 'query');
      await service.pushConfigs.delete(ref.taskId, ref.id, request.caller);
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    pattern: /^\/extendedAgentCard$/,
    operation: 'GetExtendedAgentCard',
    run: async (_, request) => {
      REQUESTS.getExtendedCard(queryFields(request.query), 'query');
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
  onStreamError: (error: A2aError) => void = () => undefined
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
