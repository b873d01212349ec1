import fc from 'fast-check';
import { EVENT_MEDIA_TYPE } from '../../functions/core/a2a/identifiers.js';
import type { FuzzWorld } from './world.js';
import type { FieldKind } from './wrong-values.js';

/**
 * The A2A operations as the fuzzer sends them: valid params for each (ProtoJSON, as a client
 * would send them to either binding), the fields it may give a wrong type, and where the
 * HTTP+JSON binding carries each field (the path, the body or the query).
 */

export interface TypedField {
  /** The field's path in the params, `message.parts[0].text`. */
  path: string;
  kind: FieldKind;
}

export interface RestShape {
  method: 'GET' | 'POST' | 'DELETE';
  /** The route's path, from the params' path fields. */
  path: (params: Record<string, unknown>) => string;
  /** The params the path carries (left out of the body or query). */
  pathFields: readonly string[];
  /** Where the other params go. */
  carries: 'body' | 'query';
}

export interface Operation {
  name: string;
  params: (world: FuzzWorld) => fc.Arbitrary<Record<string, unknown>>;
  typed: readonly TypedField[];
  rest: RestShape;
}

/** A path segment; a lone surrogate cannot be percent-encoded, so it goes as U+FFFD. */
const segment = (value: unknown) =>
  encodeURIComponent(typeof value === 'string' ? value.replace(/\p{Surrogate}/gu, '\ufffd') : '');

/** Odd text: a lone surrogate (JSON can carry one), NUL, a byte-order mark, right-to-left. */
const ODD_TEXT = ['\ud800x', 'a\u0000b', '\ufeff', '\u202etxt.exe', '%00', '../..'];
const someText = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom('hello', 'note buy milk', 'AKIAIOSFODNN7EXAMPLE', 'ünïcödé ✓', ...ODD_TEXT)
);
const someId = fc.oneof(
  { weight: 4, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 8 }) },
  { weight: 1, arbitrary: fc.string({ minLength: 250, maxLength: 300 }) },
  { weight: 1, arbitrary: fc.constantFrom(...ODD_TEXT) }
);
/**
 * A task id: mostly one that exists, sometimes one that does not or is not the caller's. Only
 * the operations that may end a task are given the tasks that may be ended.
 */
const taskIdIn = (world: FuzzWorld, open = world.openTasks) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...open) },
    { weight: 1, arbitrary: fc.constant(world.endedTask) },
    { weight: 1, arbitrary: fc.constant(world.othersTask ?? 'no-such-task') },
    { weight: 1, arbitrary: someId }
  );
const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
/** The record without its undefined fields (an absent field, as a client leaves it out). */
const defined = (record: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));

const envelopePart = fc.record({
  data: fc.oneof(
    fc.record({ kind: fc.constant('task'), payload: fc.record({ name: someText }) }),
    fc.record({
      kind: fc.constant('control'),
      payload: fc.record({ action: fc.constantFrom('reject_criterion', 'pause') }),
    }),
    fc.jsonValue({ maxDepth: 3 })
  ),
  mediaType: fc.constant(EVENT_MEDIA_TYPE),
});
const part = fc.oneof(
  { weight: 6, arbitrary: fc.record({ text: someText }) },
  {
    weight: 1,
    arbitrary: fc.record({ text: someText, mediaType: fc.constantFrom('text/plain', 'text/html') }),
  },
  { weight: 1, arbitrary: envelopePart },
  { weight: 1, arbitrary: fc.record({ data: fc.jsonValue({ maxDepth: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ raw: fc.base64String({ maxLength: 16 }) }) },
  { weight: 1, arbitrary: fc.record({ url: fc.webUrl() }) }
);

const message = (world: FuzzWorld) =>
  fc
    .record({
      messageId: someId,
      role: fc.constantFrom('ROLE_USER', 1),
      parts: fc.array(part, { minLength: 1, maxLength: 3 }),
      taskId: optional(taskIdIn(world)),
      contextId: optional(fc.constantFrom(world.contextId, 'ctx-other')),
      metadata: optional(
        fc.oneof(fc.constant({ participant_id: 'alice' }), fc.dictionary(someText, fc.jsonValue()))
      ),
      referenceTaskIds: optional(fc.array(someId, { maxLength: 2 })),
    })
    .map(defined);

const pushConfig = fc
  .record({
    url: fc.constantFrom('https://hooks.example.com/a2a', 'http://127.0.0.1/x', 'not a url'),
    id: optional(fc.constantFrom('hook-1', 'hook-2', 'bad id!')),
    token: optional(fc.constantFrom('t0ken', 'has space')),
    authentication: optional(
      fc.record({ scheme: fc.constantFrom('Bearer', ''), credentials: someText })
    ),
  })
  .map(defined);

const sendMessage = (name: string, route: string): Operation => ({
  name,
  params: (world) =>
    fc
      .record({
        message: message(world),
        configuration: optional(
          fc
            .record({
              returnImmediately: optional(fc.boolean()),
              historyLength: optional(fc.oneof(fc.nat(5), fc.constant('2'))),
              acceptedOutputModes: optional(fc.constant(['text/plain'])),
              taskPushNotificationConfig: optional(pushConfig),
            })
            .map(defined)
        ),
        metadata: optional(fc.dictionary(someText, fc.jsonValue({ maxDepth: 1 }))),
      })
      .map(defined),
  typed: [
    { path: 'message', kind: 'object' },
    { path: 'message.messageId', kind: 'string' },
    { path: 'message.contextId', kind: 'string' },
    { path: 'message.taskId', kind: 'string' },
    { path: 'message.role', kind: 'role' },
    { path: 'message.parts', kind: 'parts' },
    { path: 'message.parts[0]', kind: 'object' },
    { path: 'message.parts[0].text', kind: 'string' },
    { path: 'message.parts[0].mediaType', kind: 'string' },
    { path: 'message.metadata', kind: 'struct' },
    { path: 'message.extensions', kind: 'strings' },
    { path: 'message.referenceTaskIds', kind: 'strings' },
    { path: 'configuration', kind: 'object' },
    { path: 'configuration.historyLength', kind: 'int' },
    { path: 'configuration.returnImmediately', kind: 'bool' },
    { path: 'configuration.acceptedOutputModes', kind: 'strings' },
    { path: 'configuration.taskPushNotificationConfig', kind: 'object' },
    { path: 'configuration.taskPushNotificationConfig.url', kind: 'string' },
    { path: 'metadata', kind: 'struct' },
    { path: 'tenant', kind: 'string' },
  ],
  rest: { method: 'POST', path: () => route, pathFields: [], carries: 'body' },
});

const taskOp = (
  name: string,
  extra: Record<string, fc.Arbitrary<unknown>>,
  typed: readonly TypedField[],
  rest: Omit<RestShape, 'pathFields' | 'path'> & { suffix: string; ends?: boolean }
): Operation => ({
  name,
  params: (world) =>
    fc
      .record({
        id: taskIdIn(world, rest.ends === true ? world.cancelable : world.openTasks),
        ...Object.fromEntries(Object.entries(extra).map(([key, value]) => [key, optional(value)])),
      })
      .map(defined),
  typed: [{ path: 'id', kind: 'string' }, { path: 'tenant', kind: 'string' }, ...typed],
  rest: {
    method: rest.method,
    carries: rest.carries,
    pathFields: ['id'],
    path: (params) => `/tasks/${segment(params.id)}${rest.suffix}`,
  },
});

const configRef = (world: FuzzWorld) =>
  fc.record({
    taskId: taskIdIn(world),
    id: fc.oneof(fc.constant(world.configId), fc.constantFrom('hook-1', 'missing', 'bad id!')),
  });

const configPath = (params: Record<string, unknown>) =>
  `/tasks/${segment(params.taskId)}/pushNotificationConfigs/${segment(params.id)}`;

export const OPERATIONS: readonly Operation[] = [
  sendMessage('SendMessage', '/message:send'),
  sendMessage('SendStreamingMessage', '/message:stream'),
  taskOp(
    'GetTask',
    { historyLength: fc.oneof(fc.nat(5), fc.constant('3')) },
    [{ path: 'historyLength', kind: 'int' }],
    { method: 'GET', carries: 'query', suffix: '' }
  ),
  taskOp(
    'CancelTask',
    { metadata: fc.constant({ reason: 'fuzz' }) },
    [{ path: 'metadata', kind: 'struct' }],
    { method: 'POST', carries: 'body', suffix: ':cancel', ends: true }
  ),
  taskOp('SubscribeToTask', {}, [], { method: 'POST', carries: 'body', suffix: ':subscribe' }),
  {
    name: 'ListTasks',
    params: (world) =>
      fc
        .record({
          contextId: optional(fc.constantFrom(world.contextId, 'ctx-none')),
          status: optional(fc.constantFrom('TASK_STATE_SUBMITTED', 'TASK_STATE_CANCELED', 2)),
          pageSize: optional(fc.integer({ min: 1, max: 100 })),
          pageToken: optional(fc.constantFrom('', 'eyJ0IjpudWxsLCJpIjoieCJ9', 'garbage')),
          historyLength: optional(fc.nat(3)),
          statusTimestampAfter: optional(fc.constantFrom('2020-01-01T00:00:00Z')),
          includeArtifacts: optional(fc.boolean()),
        })
        .map(defined),
    typed: [
      { path: 'contextId', kind: 'string' },
      { path: 'status', kind: 'status' },
      { path: 'pageSize', kind: 'int' },
      { path: 'pageToken', kind: 'string' },
      { path: 'historyLength', kind: 'int' },
      { path: 'statusTimestampAfter', kind: 'timestamp' },
      { path: 'includeArtifacts', kind: 'bool' },
      { path: 'tenant', kind: 'string' },
    ],
    rest: { method: 'GET', path: () => '/tasks', pathFields: [], carries: 'query' },
  },
  {
    name: 'CreateTaskPushNotificationConfig',
    params: (world) =>
      fc.tuple(taskIdIn(world), pushConfig).map(([taskId, config]) => ({ taskId, ...config })),
    typed: [
      { path: 'taskId', kind: 'string' },
      { path: 'url', kind: 'string' },
      { path: 'id', kind: 'string' },
      { path: 'token', kind: 'string' },
      { path: 'authentication', kind: 'object' },
      { path: 'authentication.scheme', kind: 'string' },
      { path: 'authentication.credentials', kind: 'string' },
    ],
    rest: {
      method: 'POST',
      path: (params) => `/tasks/${segment(params.taskId)}/pushNotificationConfigs`,
      pathFields: ['taskId'],
      carries: 'body',
    },
  },
  {
    name: 'GetTaskPushNotificationConfig',
    params: configRef,
    typed: [
      { path: 'taskId', kind: 'string' },
      { path: 'id', kind: 'string' },
    ],
    rest: { method: 'GET', path: configPath, pathFields: ['taskId', 'id'], carries: 'query' },
  },
  {
    name: 'DeleteTaskPushNotificationConfig',
    params: configRef,
    typed: [
      { path: 'taskId', kind: 'string' },
      { path: 'id', kind: 'string' },
    ],
    rest: { method: 'DELETE', path: configPath, pathFields: ['taskId', 'id'], carries: 'query' },
  },
  {
    name: 'ListTaskPushNotificationConfigs',
    params: (world) =>
      fc
        .record({
          taskId: taskIdIn(world),
          pageSize: optional(fc.nat(3)),
          pageToken: optional(fc.constantFrom('aG9vay0x', 'garbage!', '')),
        })
        .map(defined),
    typed: [
      { path: 'taskId', kind: 'string' },
      { path: 'pageSize', kind: 'int' },
      { path: 'pageToken', kind: 'string' },
    ],
    rest: {
      method: 'GET',
      path: (params) => `/tasks/${segment(params.taskId)}/pushNotificationConfigs`,
      pathFields: ['taskId'],
      carries: 'query',
    },
  },
  {
    name: 'GetExtendedAgentCard',
    params: () => fc.constant({}),
    typed: [{ path: 'tenant', kind: 'string' }],
    rest: { method: 'GET', path: () => '/extendedAgentCard', pathFields: [], carries: 'query' },
  },
];
