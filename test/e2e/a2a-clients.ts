import {
  type ListTasksRequest,
  type Message,
  roleToJSON,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
  taskStateFromJSON,
  taskStateToJSON,
} from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { EVENT_MEDIA_TYPE } from '../../functions/core/a2a/identifiers.js';
import { userTextMessage } from '../../functions/core/loop/messages.js';
import { tokenFor } from '../support/identity.js';
import { readSse } from '../support/sse.js';

/**
 * Four A2A clients with one interface, for stating each behaviour once: the real SDK client over
 * its JSON-RPC transport and over its REST transport, and a raw `fetch` client of our own (no SDK
 * code: it reads the spec's wire format itself) over each binding.
 */

export interface TaskView {
  id: string;
  contextId: string;
  state: string;
  history: Array<{ role: string; text: string; participantId?: string }>;
  /**
   * Each artifact's name, the text of its text parts, the kind of each part in order (`text`,
   * `data`, …) and the value of its first data part, if any.
   */
  artifacts: Array<{ name: string; text: string; kinds: string[]; data?: unknown }>;
}

export interface PushView {
  id: string;
  taskId: string;
  url: string;
  token: string;
}

/** One event of a stream: what it is, the task state it carries, its status message's text. */
export interface EventView {
  kind: 'task' | 'statusUpdate' | 'artifactUpdate' | 'message';
  taskId: string;
  /** `TASK_STATE_...`; empty for an artifact update or a message. */
  state: string;
  text: string;
  /** The SSE frame's `id:` (the raw client reads it; the SDK does not expose it). */
  id?: string;
}

export interface SubscribeOptions {
  /** Resume after this frame id (the SSE `Last-Event-ID` header). */
  lastEventId?: string;
}

export interface SendOptions {
  /** The message's id (a fresh one when unset). */
  messageId?: string;
  taskId?: string;
  contextId?: string;
  /** Extension URIs for the request's `A2A-Extensions` header. */
  extensions?: string[];
  /** A task envelope (docs/a2a/ext): a data part of the event media type, next to the text. */
  envelope?: { kind: 'task' | 'control'; payload: Record<string, unknown> };
  /** `configuration.taskPushNotificationConfig`: a webhook for the task, stored with the message. */
  pushConfig?: { url: string; token: string };
  /** `configuration.historyLength`: how much history the answer carries. */
  historyLength?: number;
}

/** ListTasks filters, by the wire's names; an absent one is left unset (the SDK: undefined). */
export interface ListFilter {
  status?: string;
  statusTimestampAfter?: string;
}

export interface A2aClient {
  name: string;
  send(text: string, options?: SendOptions): Promise<TaskView>;
  getTask(id: string, historyLength?: number): Promise<TaskView>;
  listTasks(page: { pageSize?: number; pageToken?: string }): Promise<{
    ids: string[];
    nextPageToken: string;
    totalSize: number;
  }>;
  /** ListTasks with filters only: the ids listed. */
  listTasksWhere(filter: ListFilter): Promise<string[]>;
  /**
   * SendMessage with a message as a user wrote it, right or wrong: the raw clients send it as
   * JSON, the SDK client hands it to the SDK as if it were an SDK `Message` (the SDK encodes it).
   */
  sendAsWritten(message: Record<string, unknown>): Promise<TaskView>;
  cancel(id: string): Promise<TaskView>;
  createPush(
    taskId: string,
    config: { id?: string; url: string; token?: string }
  ): Promise<PushView>;
  getPush(taskId: string, id: string): Promise<PushView>;
  listPush(taskId: string): Promise<PushView[]>;
  deletePush(taskId: string, id: string): Promise<void>;
  /** SendStreamingMessage: the stream's events as they arrive, until the server ends it. */
  stream(text: string, options?: SendOptions): AsyncGenerator<EventView>;
  /** SubscribeToTask: the stream's events as they arrive, until the server ends it. */
  subscribe(taskId: string, options?: SubscribeOptions): AsyncGenerator<EventView>;
  /** The `A2A-Extensions` header of the last response. */
  lastExtensionsHeader(): string | null;
}

/** The A2A error a call failed with, by its semantic name (`TaskNotFoundError`, ...). */
export const failureOf = async (call: Promise<unknown>): Promise<string> =>
  (await refusalOf(call)).name;

/** The A2A error a call failed with: its semantic name and its message. */
export const refusalOf = async (
  call: Promise<unknown>
): Promise<{ name: string; message: string }> => {
  try {
    await call;
  } catch (error) {
    return { name: (error as Error).name, message: (error as Error).message };
  }
  throw new Error('the call succeeded');
};

/** The rest of a stream, read to the end the server gives it. */
export const rest = async (events: AsyncGenerator<EventView>): Promise<EventView[]> => {
  const read: EventView[] = [];
  for await (const event of events) read.push(event);
  return read;
};

/** A stream's first event: it has started, the server has read where the log ends. */
export const opened = async (events: AsyncGenerator<EventView>): Promise<EventView> => {
  const first = await events.next();
  if (first.done === true) throw new Error('the stream ended before its first event');
  return first.value;
};

let counter = 0;
const messageId = () => `a2a-e2e-${Date.now()}-${++counter}`;

/** The header that says who the client is: its bearer token (TINY_HARNESS_BEARER_TOKENS). */
export const identityHeaders = (participantId: string): Record<string, string> => ({
  Authorization: `Bearer ${tokenFor(participantId)}`,
});

// ---------------------------------------------------------------------------------------------
// The SDK client

const sdkTaskView = (task: Task): TaskView => ({
  id: task.id,
  contextId: task.contextId,
  state: taskStateToJSON(task.status?.state ?? 0),
  history: task.history.map((message) => ({
    role: roleToJSON(message.role),
    text: message.parts
      .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
      .join(''),
    ...(typeof message.metadata?.participant_id === 'string'
      ? { participantId: message.metadata.participant_id }
      : {}),
  })),
  artifacts: task.artifacts.map((artifact) => {
    const data = artifact.parts.find((part) => part.content?.$case === 'data')?.content;
    return {
      name: artifact.name,
      text: artifact.parts
        .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
        .join(''),
      kinds: artifact.parts.map((part) => part.content?.$case ?? 'none'),
      ...(data?.$case === 'data' ? { data: data.value } : {}),
    };
  }),
});

const textOf = (message: Message | undefined) =>
  (message?.parts ?? [])
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .join('');

const sdkEventView = ({ payload }: StreamResponse): EventView => {
  if (payload === undefined) throw new Error('a stream response without a payload');
  switch (payload.$case) {
    case 'task':
    case 'statusUpdate': {
      const status = payload.value.status;
      return {
        kind: payload.$case,
        taskId: payload.$case === 'task' ? payload.value.id : payload.value.taskId,
        state: taskStateToJSON(status?.state ?? 0),
        text: textOf(status?.message),
      };
    }
    case 'artifactUpdate':
      return { kind: 'artifactUpdate', taskId: payload.value.taskId, state: '', text: '' };
    case 'message':
      return {
        kind: 'message',
        taskId: payload.value.taskId,
        state: '',
        text: textOf(payload.value),
      };
  }
};

const sdkPushView = (config: TaskPushNotificationConfig): PushView => ({
  id: config.id,
  taskId: config.taskId,
  url: config.url,
  token: config.token,
});

/** The real SDK client for one participant, over the transport the factory offers. */
export const sdkClient = async (
  url: string,
  participantId: string,
  transport: 'JSONRPC' | 'HTTP+JSON'
): Promise<A2aClient> => {
  let extensionsHeader: string | null = null;
  const fetchImpl: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(identityHeaders(participantId))) {
      headers.set(name, value);
    }
    const response = await fetch(input, { ...init, headers });
    extensionsHeader = response.headers.get('A2A-Extensions');
    return response;
  };
  const factory =
    transport === 'JSONRPC'
      ? new JsonRpcTransportFactory({ fetchImpl })
      : new RestTransportFactory({ fetchImpl });
  const client: Client = await new ClientFactory({
    transports: [factory],
    preferredTransports: [transport],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  }).createFromUrl(url);
  if (client.protocolVersion !== '1.0') throw new Error('expected A2A 1.0');

  return {
    name: `SDK client over ${transport}`,
    send: async (text, options = {}) => {
      const plain: Message = userTextMessage({
        messageId: options.messageId ?? messageId(),
        text,
        taskId: options.taskId,
        contextId: options.contextId,
      });
      const message: Message =
        options.envelope === undefined
          ? plain
          : {
              ...plain,
              parts: [
                ...plain.parts,
                {
                  content: { $case: 'data', value: options.envelope },
                  metadata: undefined,
                  filename: '',
                  mediaType: EVENT_MEDIA_TYPE,
                },
              ],
            };
      const configuration =
        options.pushConfig === undefined && options.historyLength === undefined
          ? undefined
          : {
              acceptedOutputModes: [],
              taskPushNotificationConfig:
                options.pushConfig === undefined
                  ? undefined
                  : {
                      tenant: '',
                      id: '',
                      taskId: '',
                      ...options.pushConfig,
                      authentication: undefined,
                    },
              historyLength: options.historyLength,
              returnImmediately: false,
            };
      const result = await client.sendMessage(
        { tenant: '', message, configuration, metadata: undefined },
        options.extensions === undefined
          ? undefined
          : { serviceParameters: { 'A2A-Extensions': options.extensions.join(',') } }
      );
      if (!('status' in result)) throw new Error('expected a Task');
      return sdkTaskView(result);
    },
    getTask: async (id, historyLength) =>
      sdkTaskView(
        await client.getTask(
          historyLength === undefined ? { tenant: '', id } : { tenant: '', id, historyLength }
        )
      ),
    listTasks: async (page) => {
      const response = await client.listTasks({
        tenant: '',
        contextId: '',
        status: 0,
        pageSize: page.pageSize,
        pageToken: page.pageToken ?? '',
        historyLength: undefined,
        statusTimestampAfter: undefined,
        includeArtifacts: undefined,
      });
      return {
        ids: response.tasks.map((task) => task.id),
        nextPageToken: response.nextPageToken,
        totalSize: response.totalSize,
      };
    },
    listTasksWhere: async (filter) => {
      // As a user writes it: only the filters wanted, the rest left unset.
      const request = {
        ...(filter.status === undefined ? {} : { status: taskStateFromJSON(filter.status) }),
        ...(filter.statusTimestampAfter === undefined
          ? {}
          : { statusTimestampAfter: filter.statusTimestampAfter }),
      } as ListTasksRequest;
      return (await client.listTasks(request)).tasks.map((task) => task.id);
    },
    sendAsWritten: async (message) => {
      const result = await client.sendMessage({ message: message as unknown as Message } as never);
      if (!('status' in result)) throw new Error('expected a Task');
      return sdkTaskView(result);
    },
    cancel: async (id) =>
      sdkTaskView(await client.cancelTask({ tenant: '', id, metadata: undefined })),
    createPush: async (taskId, config) =>
      sdkPushView(
        await client.createTaskPushNotificationConfig({
          tenant: '',
          id: config.id ?? '',
          taskId,
          url: config.url,
          token: config.token ?? '',
          authentication: undefined,
        })
      ),
    getPush: async (taskId, id) =>
      sdkPushView(await client.getTaskPushNotificationConfig({ tenant: '', taskId, id })),
    listPush: async (taskId) =>
      (
        await client.listTaskPushNotificationConfig({
          tenant: '',
          taskId,
          pageSize: 0,
          pageToken: '',
        })
      ).configs.map(sdkPushView),
    deletePush: async (taskId, id) =>
      client.deleteTaskPushNotificationConfig({ tenant: '', taskId, id }),
    stream: async function* (text, options = {}) {
      const message = userTextMessage({
        messageId: options.messageId ?? messageId(),
        text,
        taskId: options.taskId,
        contextId: options.contextId,
      });
      const events = client.sendMessageStream({
        tenant: '',
        message,
        configuration: undefined,
        metadata: undefined,
      });
      for await (const event of events) yield sdkEventView(event);
    },
    subscribe: async function* (taskId, options = {}) {
      const events = client.resubscribeTask(
        { tenant: '', id: taskId },
        options.lastEventId === undefined
          ? undefined
          : { serviceParameters: { 'Last-Event-ID': options.lastEventId } }
      );
      for await (const event of events) yield sdkEventView(event);
    },
    lastExtensionsHeader: () => extensionsHeader,
  };
};

// ---------------------------------------------------------------------------------------------
// The raw client: plain fetch and JSON, written from the spec's binding sections (§5.3, §5.4,
// §9, §11), sharing no code with the SDK or the server.

/** §5.4: the JSON-RPC codes and the ErrorInfo reasons, by the error's name. */
const NAME_BY_CODE: Record<number, string> = {
  [-32001]: 'TaskNotFoundError',
  [-32002]: 'TaskNotCancelableError',
  [-32003]: 'PushNotificationNotSupportedError',
  [-32004]: 'UnsupportedOperationError',
  [-32005]: 'ContentTypeNotSupportedError',
  [-32008]: 'ExtensionSupportRequiredError',
  [-32009]: 'VersionNotSupportedError',
  [-32602]: 'RequestMalformedError',
};
const NAME_BY_REASON: Record<string, string> = {
  TASK_NOT_FOUND: 'TaskNotFoundError',
  TASK_NOT_CANCELABLE: 'TaskNotCancelableError',
  PUSH_NOTIFICATION_NOT_SUPPORTED: 'PushNotificationNotSupportedError',
  UNSUPPORTED_OPERATION: 'UnsupportedOperationError',
  CONTENT_TYPE_NOT_SUPPORTED: 'ContentTypeNotSupportedError',
  EXTENSION_SUPPORT_REQUIRED: 'ExtensionSupportRequiredError',
  VERSION_NOT_SUPPORTED: 'VersionNotSupportedError',
  INVALID_PARAMS: 'RequestMalformedError',
};

class RawA2aError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

type Json = Record<string, unknown>;

const rawTaskView = (task: Json): TaskView => ({
  id: task.id as string,
  contextId: task.contextId as string,
  state: (task.status as Json).state as string,
  history: ((task.history ?? []) as Json[]).map((message) => ({
    role: message.role as string,
    text: ((message.parts ?? []) as Json[]).map((part) => part.text ?? '').join(''),
    ...(typeof (message.metadata as Json | undefined)?.participant_id === 'string'
      ? { participantId: (message.metadata as Json).participant_id as string }
      : {}),
  })),
  artifacts: ((task.artifacts ?? []) as Json[]).map((artifact) => {
    const parts = (artifact.parts ?? []) as Json[];
    const data = parts.find((part) => part.data !== undefined);
    return {
      name: artifact.name as string,
      text: parts.map((part) => part.text ?? '').join(''),
      // A part is one of text, raw, url or data (the wire's oneof).
      kinds: parts.map(
        (part) => ['text', 'raw', 'url', 'data'].find((kind) => part[kind] !== undefined) ?? 'none'
      ),
      ...(data === undefined ? {} : { data: data.data }),
    };
  }),
});

const rawPushView = (config: Json): PushView => ({
  id: config.id as string,
  taskId: config.taskId as string,
  url: config.url as string,
  token: (config.token as string | undefined) ?? '',
});

const rawMessage = (text: string, options: SendOptions): Json => ({
  messageId: options.messageId ?? messageId(),
  role: 'ROLE_USER',
  parts: [
    { text },
    ...(options.envelope === undefined
      ? []
      : [{ data: options.envelope, mediaType: EVENT_MEDIA_TYPE }]),
  ],
  ...(options.taskId === undefined ? {} : { taskId: options.taskId }),
  ...(options.contextId === undefined ? {} : { contextId: options.contextId }),
});

const rawText = (message: Json | undefined) =>
  ((message?.parts ?? []) as Json[]).map((part) => part.text ?? '').join('');

/** §4.2.5 StreamResponse: exactly one of task, message, statusUpdate, artifactUpdate. */
const rawEventView = (response: Json, id: string | undefined): EventView => {
  const kinds = ['task', 'message', 'statusUpdate', 'artifactUpdate'] as const;
  const present = kinds.filter((kind) => response[kind] !== undefined);
  const [kind] = present;
  if (kind === undefined || present.length !== 1) {
    throw new Error(`not a StreamResponse: ${JSON.stringify(response)}`);
  }
  const value = response[kind] as Json;
  const status = value.status as Json | undefined;
  return {
    kind,
    taskId: (kind === 'task' ? value.id : value.taskId) as string,
    state: (status?.state as string | undefined) ?? '',
    text: kind === 'message' ? rawText(value) : rawText(status?.message as Json | undefined),
    ...(id === undefined ? {} : { id }),
  };
};

/** A raw client of one binding for one participant. */
export const rawClient = (
  url: string,
  participantId: string,
  binding: 'JSONRPC' | 'HTTP+JSON'
): A2aClient => {
  let extensionsHeader: string | null = null;
  const headersFor = (contentType: string, extensions?: string[]) => ({
    'Content-Type': contentType,
    'A2A-Version': '1.0',
    ...identityHeaders(participantId),
    ...(extensions === undefined ? {} : { 'A2A-Extensions': extensions.join(', ') }),
  });

  let id = 0;
  const rpc = async (method: string, params: Json, extensions?: string[]): Promise<Json> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: headersFor('application/json', extensions),
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    extensionsHeader = response.headers.get('A2A-Extensions');
    const body = (await response.json()) as { id: number; result?: Json; error?: Json };
    if (body.error !== undefined) {
      const code = body.error.code as number;
      throw new RawA2aError(NAME_BY_CODE[code] ?? `JSON-RPC ${code}`, body.error.message as string);
    }
    if (body.id !== id) throw new Error('the response answers another request');
    return body.result ?? {};
  };

  const rest = async (
    method: string,
    path: string,
    body?: Json,
    extensions?: string[]
  ): Promise<Json> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: headersFor('application/a2a+json', extensions),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    extensionsHeader = response.headers.get('A2A-Extensions');
    if (response.status === 204) return {};
    if (!(response.headers.get('Content-Type') ?? '').startsWith('application/a2a+json')) {
      throw new Error(`unexpected Content-Type ${response.headers.get('Content-Type')}`);
    }
    const json = (await response.json()) as Json;
    if (response.status >= 400) {
      const error = json.error as Json;
      const reason = ((error.details ?? []) as Json[])[0]?.reason as string | undefined;
      throw new RawA2aError(
        (reason && NAME_BY_REASON[reason]) || `HTTP ${response.status}`,
        error.message as string
      );
    }
    return json;
  };

  const task = (taskId: string) => `/tasks/${encodeURIComponent(taskId)}`;
  const jsonRpc = binding === 'JSONRPC';

  /**
   * A streaming call (§9.4.2, §11.7): an error before the stream starts is an ordinary answer; once
   * it has started (text/event-stream), each `data:` frame is one StreamResponse (JSON-RPC: the
   * `result` of a response to our id) and an `error` event ends it with an error.
   */
  const sse = async function* (
    path: string,
    body: Json | undefined,
    headers: Record<string, string> = {}
  ): AsyncGenerator<EventView> {
    const requestId = ++id;
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: {
        ...headersFor(jsonRpc ? 'application/json' : 'application/a2a+json'),
        Accept: 'text/event-stream',
        ...headers,
      },
      body: JSON.stringify(jsonRpc ? { jsonrpc: '2.0', id: requestId, ...body } : (body ?? {})),
    });
    if (!(response.headers.get('Content-Type') ?? '').startsWith('text/event-stream')) {
      const json = (await response.json()) as Json;
      const error = json.error as Json;
      const reason = ((error.details ?? []) as Json[])[0]?.reason as string | undefined;
      const name = jsonRpc ? NAME_BY_CODE[error.code as number] : reason && NAME_BY_REASON[reason];
      throw new RawA2aError(name || `error ${JSON.stringify(error)}`, error.message as string);
    }
    if (response.body === null) throw new Error('a stream without a body');
    for await (const entry of readSse(response.body as unknown as AsyncIterable<Uint8Array>)) {
      if (entry.kind === 'comment') continue;
      const json = JSON.parse(entry.frame.data) as Json;
      if (entry.frame.event === 'error') {
        throw new RawA2aError('StreamError', JSON.stringify(json.error));
      }
      if (jsonRpc && json.id !== requestId) throw new Error('a frame answers another request');
      yield rawEventView((jsonRpc ? json.result : json) as Json, entry.frame.id);
    }
  };

  return {
    name: `raw fetch client over ${binding}`,
    send: async (text, options = {}) => {
      const configuration = {
        ...(options.pushConfig === undefined
          ? {}
          : { taskPushNotificationConfig: options.pushConfig }),
        ...(options.historyLength === undefined ? {} : { historyLength: options.historyLength }),
      };
      const params = {
        message: rawMessage(text, options),
        ...(Object.keys(configuration).length === 0 ? {} : { configuration }),
      };
      const result = jsonRpc
        ? await rpc('SendMessage', params, options.extensions)
        : await rest('POST', '/message:send', params, options.extensions);
      return rawTaskView(result.task as Json);
    },
    getTask: async (taskId, historyLength) => {
      const query = historyLength === undefined ? '' : `?historyLength=${historyLength}`;
      return rawTaskView(
        jsonRpc
          ? await rpc('GetTask', { id: taskId, ...(query === '' ? {} : { historyLength }) })
          : await rest('GET', `${task(taskId)}${query}`)
      );
    },
    listTasks: async (page) => {
      const params: Json = {
        ...(page.pageSize === undefined ? {} : { pageSize: page.pageSize }),
        ...(page.pageToken === undefined ? {} : { pageToken: page.pageToken }),
      };
      const query = new URLSearchParams(params as Record<string, string>).toString();
      const result = jsonRpc
        ? await rpc('ListTasks', params)
        : await rest('GET', `/tasks${query === '' ? '' : `?${query}`}`);
      if (typeof result.nextPageToken !== 'string') throw new Error('nextPageToken is missing');
      return {
        ids: ((result.tasks ?? []) as Json[]).map((listed) => listed.id as string),
        nextPageToken: result.nextPageToken,
        totalSize: result.totalSize as number,
      };
    },
    listTasksWhere: async (filter) => {
      const params = { ...filter } as Record<string, string>;
      const query = new URLSearchParams(params).toString();
      const result = jsonRpc
        ? await rpc('ListTasks', params)
        : await rest('GET', `/tasks${query === '' ? '' : `?${query}`}`);
      return ((result.tasks ?? []) as Json[]).map((listed) => listed.id as string);
    },
    sendAsWritten: async (message) => {
      const result = jsonRpc
        ? await rpc('SendMessage', { message })
        : await rest('POST', '/message:send', { message });
      return rawTaskView(result.task as Json);
    },
    cancel: async (taskId) =>
      rawTaskView(
        jsonRpc
          ? await rpc('CancelTask', { id: taskId })
          : await rest('POST', `${task(taskId)}:cancel`)
      ),
    createPush: async (taskId, config) =>
      rawPushView(
        jsonRpc
          ? await rpc('CreateTaskPushNotificationConfig', { ...config, taskId })
          : await rest('POST', `${task(taskId)}/pushNotificationConfigs`, { ...config, taskId })
      ),
    getPush: async (taskId, configId) =>
      rawPushView(
        jsonRpc
          ? await rpc('GetTaskPushNotificationConfig', { taskId, id: configId })
          : await rest('GET', `${task(taskId)}/pushNotificationConfigs/${configId}`)
      ),
    listPush: async (taskId) => {
      const result = jsonRpc
        ? await rpc('ListTaskPushNotificationConfigs', { taskId })
        : await rest('GET', `${task(taskId)}/pushNotificationConfigs`);
      return ((result.configs ?? []) as Json[]).map(rawPushView);
    },
    deletePush: async (taskId, configId) => {
      if (jsonRpc) await rpc('DeleteTaskPushNotificationConfig', { taskId, id: configId });
      else await rest('DELETE', `${task(taskId)}/pushNotificationConfigs/${configId}`);
    },
    stream: (text, options = {}) => {
      const params = { message: rawMessage(text, options) };
      return jsonRpc
        ? sse('', { method: 'SendStreamingMessage', params })
        : sse('/message:stream', params);
    },
    subscribe: (taskId, options = {}) => {
      const headers: Record<string, string> =
        options.lastEventId === undefined ? {} : { 'Last-Event-ID': options.lastEventId };
      return jsonRpc
        ? sse('', { method: 'SubscribeToTask', params: { id: taskId } }, headers)
        : sse(`${task(taskId)}:subscribe`, undefined, headers);
    },
    lastExtensionsHeader: () => extensionsHeader,
  };
};

/** The four clients every behaviour is stated through: the SDK's two transports, raw on each binding. */
export const FOUR_CLIENTS = [
  { label: 'the SDK client over JSON-RPC', kind: 'sdk', binding: 'JSONRPC' },
  { label: 'the SDK client over HTTP+JSON', kind: 'sdk', binding: 'HTTP+JSON' },
  { label: 'a raw fetch client over JSON-RPC', kind: 'raw', binding: 'JSONRPC' },
  { label: 'a raw fetch client over HTTP+JSON', kind: 'raw', binding: 'HTTP+JSON' },
] as const;

export type ClientKind = (typeof FOUR_CLIENTS)[number]['kind'];
export type ClientBinding = (typeof FOUR_CLIENTS)[number]['binding'];

/** A participant-id suffix per client, so the four runs never see each other's tasks. */
export const tagOf = (kind: ClientKind, binding: ClientBinding) =>
  `${kind}-${binding === 'JSONRPC' ? 'rpc' : 'rest'}`;

/** One of the four clients, for a participant. */
export const clientOf = (
  url: string,
  participantId: string,
  kind: ClientKind,
  binding: ClientBinding
): Promise<A2aClient> =>
  kind === 'sdk'
    ? sdkClient(url, participantId, binding)
    : Promise.resolve(rawClient(url, participantId, binding));
