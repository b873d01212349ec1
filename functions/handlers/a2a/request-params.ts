import {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import * as z from 'zod';
import { parseUtcTimestamp } from '../../core/a2a/timestamp.js';
import { A2aError, type FieldViolation } from '../../service/a2a-errors.js';

/**
 * The A2A 1.0 request messages (a2a.proto, `lf.a2a.v1`) as zod schemas over the raw JSON, checked
 * before anything converts them. The SDK's generated `fromJSON` never refuses: it coerces (a
 * `messageId` of `{}` becomes "[object Object]", `parts: "abc"` becomes `[]`) and fills defaults
 * for what is missing, so a malformed request would reach the service as a plausible one.
 *
 * ProtoJSON, as a parser must read it: a field by its lowerCamelCase or its proto name, `null` as
 * the field's default, integers as numbers or decimal strings, enums by name or number. Fields the
 * proto marks REQUIRED must be present, and required arrays non-empty; unrecognized fields are
 * ignored, for forward compatibility (§5.7).
 */

const toCamel = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** A ProtoJSON message with these fields (lowerCamelCase names). */
const proto = <Shape extends z.ZodRawShape>(shape: Shape) =>
  z.preprocess((value, context) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const named: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      const name = Object.hasOwn(shape, key) ? key : toCamel(key);
      const known = Object.hasOwn(shape, name);
      if (known && Object.hasOwn(named, name)) {
        context.addIssue({ code: 'custom', message: 'is given twice', path: [name] });
      }
      if (field === null) continue;
      named[known ? name : key] = field;
    }
    return named;
  }, z.object(shape));

const int32 = (min = -(2 ** 31)) =>
  z.preprocess(
    (value) => (typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value),
    z
      .int({ error: 'must be an integer' })
      .min(min, { error: `must be at least ${min}` })
      .max(2 ** 31 - 1, { error: 'is too large' })
  );

const nonNegative = int32(0);
const text = z.string({ error: 'must be a string' });
/**
 * The longest id a client may give (a message, task, context or push-config id), in characters.
 * Ids are keys of what is stored and travel in every event: a UUID, a ULID or a composite id fits
 * many times over, a payload does not.
 */
export const MAX_ID_LENGTH = 256;
const tooLong = { error: `is longer than ${MAX_ID_LENGTH} characters` };
const someId = text.max(MAX_ID_LENGTH, tooLong);
const id = someId.min(1, { error: 'is required' });
const strings = z.array(text, { error: 'must be an array of strings' });
const bool = z.boolean({ error: 'must be true or false' });
/** google.protobuf.Struct: a JSON object. */
const struct = z.record(z.string(), z.unknown(), { error: 'must be a JSON object' });
/** `bytes` in ProtoJSON: standard or URL-safe base64, padded or not. */
const base64 = text.regex(/^[A-Za-z0-9+/_-]*={0,2}$/, { error: 'must be base64' });
/** google.protobuf.Timestamp: an ISO 8601 date-time in UTC (A2A §5.6.1). */
const timestamp = text.refine((value) => parseUtcTimestamp(value) !== undefined, {
  error: 'must be an ISO 8601 date-time in UTC such as 2026-03-07T12:00:00Z',
});

const CONTENT = ['text', 'raw', 'url', 'data'] as const;

const PartSchema = proto({
  text: text.optional(),
  raw: base64.optional(),
  url: text.min(1, { error: 'must not be empty' }).optional(),
  data: z.unknown().optional(),
  metadata: struct.optional(),
  filename: text.optional(),
  mediaType: text.optional(),
}).superRefine((part, context) => {
  const present = CONTENT.filter((name) => part[name] !== undefined);
  if (present.length !== 1) {
    context.addIssue({
      code: 'custom',
      message:
        present.length === 0
          ? 'a part holds one of text, raw, url or data (none given)'
          : `a part holds one of text, raw, url or data, not ${present.join(' and ')}`,
    });
  }
});

/**
 * A client's message (§4.1.4): ROLE_USER (by name or number). ROLE_AGENT is what the agent says;
 * a client sending it would put words in the agent's mouth.
 */
const ROLE = z.union([z.literal('ROLE_USER'), z.literal(1)], {
  error: 'must be ROLE_USER: a client sends its own messages (ROLE_AGENT is the agent)',
});

/**
 * The most parts a message may hold. The agent reads text parts and one envelope
 * (message-content.ts): a hundred is more than any client splits a message into, and a bound
 * keeps a 1 MiB body from becoming a hundred thousand transcript fragments.
 */
export const MAX_MESSAGE_PARTS = 100;

const MessageSchema = proto({
  messageId: id,
  contextId: someId.optional(),
  taskId: someId.optional(),
  role: ROLE,
  parts: z
    .array(PartSchema, { error: 'must be an array of parts' })
    .min(1, { error: 'must hold at least one part' })
    .max(MAX_MESSAGE_PARTS, { error: `must hold at most ${MAX_MESSAGE_PARTS} parts` }),
  metadata: struct.optional(),
  extensions: strings.optional(),
  referenceTaskIds: z.array(someId, { error: 'must be an array of strings' }).optional(),
});

const AuthenticationSchema = proto({
  scheme: text.min(1, { error: 'is required' }),
  credentials: text.optional(),
});

const pushConfigShape = {
  tenant: text.optional(),
  id: someId.optional(),
  taskId: someId.optional(),
  url: text.min(1, { error: 'is required' }),
  token: text.optional(),
  authentication: AuthenticationSchema.optional(),
};
const PushConfigSchema = proto(pushConfigShape);

const SendMessageSchema = proto({
  tenant: text.optional(),
  message: MessageSchema,
  configuration: proto({
    acceptedOutputModes: strings.optional(),
    taskPushNotificationConfig: PushConfigSchema.optional(),
    historyLength: nonNegative.optional(),
    returnImmediately: bool.optional(),
  }).optional(),
  metadata: struct.optional(),
});

const TASK_STATES = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;

/**
 * A ListTasks status filter, by name or number. Unspecified is no filter, and so is
 * "UNRECOGNIZED": what the SDK's `taskStateToJSON` writes for a filter its caller left unset.
 */
const StatusFilter = z.preprocess((value) => {
  if (value === 'UNRECOGNIZED' || value === 'TASK_STATE_UNSPECIFIED' || value === 0) {
    return undefined;
  }
  // A number past the last state names none: it is refused, not read as "no filter".
  if (typeof value === 'number' && Number.isInteger(value)) return TASK_STATES[value - 1] ?? value;
  return value;
}, z.enum(TASK_STATES, { error: `must be a task state (${TASK_STATES.join(', ')})` }).optional());

const ListTasksSchema = proto({
  tenant: text.optional(),
  contextId: text.optional(),
  status: StatusFilter,
  pageSize: int32().optional(),
  pageToken: text.optional(),
  historyLength: nonNegative.optional(),
  statusTimestampAfter: timestamp.optional(),
  includeArtifacts: bool.optional(),
});

const taskIdShape = { tenant: text.optional(), id };
const GetTaskSchema = proto({ ...taskIdShape, historyLength: nonNegative.optional() });
const CancelTaskSchema = proto({ ...taskIdShape, metadata: struct.optional() });
const SubscribeSchema = proto(taskIdShape);
const PushConfigRefSchema = proto({ tenant: text.optional(), taskId: id, id });
const ListPushConfigsSchema = proto({
  tenant: text.optional(),
  taskId: id,
  pageSize: nonNegative.optional(),
  pageToken: text.optional(),
});
const TenantOnlySchema = proto({ tenant: text.optional() });

const pathOf = (path: readonly PropertyKey[]): string =>
  path.reduce<string>(
    (joined, key) =>
      typeof key === 'number'
        ? `${joined}[${key}]`
        : joined === ''
          ? String(key)
          : `${joined}.${String(key)}`,
    ''
  );

/** Every problem of a failed parse, each with the field it is about (`message.parts[0]`). */
const violationsOf = (error: z.ZodError, root: string): FieldViolation[] =>
  error.issues.flatMap((issue) => {
    const at = pathOf(issue.path);
    return [{ field: at === '' ? root : at, description: issue.message }];
  });

/**
 * The raw JSON parsed against the schema, then converted by the SDK's `fromJSON`; anything
 * refused is InvalidParams naming each field (`root` names the whole, when it is the problem:
 * `params` on JSON-RPC, `body` or `query` on HTTP+JSON).
 */
const parseWith =
  <T>(schema: z.ZodType, fns: { fromJSON(value: unknown): T }) =>
  (raw: unknown, root = 'params'): T => {
    const parsed = schema.safeParse(raw);
    if (!parsed.success) throw invalidParams(violationsOf(parsed.error, root));
    return fns.fromJSON(parsed.data);
  };

export const invalidParams = (violations: FieldViolation[]): A2aError =>
  new A2aError(
    'InvalidParams',
    `invalid params: ${violations.map((v) => `${v.field} ${v.description}`).join('; ')}`,
    { violations }
  );

const identity = { fromJSON: (value: unknown) => value as Record<string, never> };

/** The request messages of the A2A operations, each from its raw ProtoJSON. */
export const REQUESTS = {
  sendMessage: parseWith(SendMessageSchema, SendMessageRequest),
  getTask: parseWith(GetTaskSchema, GetTaskRequest),
  listTasks: parseWith(ListTasksSchema, ListTasksRequest),
  cancelTask: parseWith(CancelTaskSchema, CancelTaskRequest),
  subscribe: parseWith(SubscribeSchema, SubscribeToTaskRequest),
  createPushConfig: parseWith(
    proto({ ...pushConfigShape, taskId: id }),
    TaskPushNotificationConfig
  ),
  /** The HTTP+JSON body of a create: the task is the path's, so the body need not name it. */
  pushConfigBody: parseWith(PushConfigSchema, TaskPushNotificationConfig),
  getPushConfig: parseWith(PushConfigRefSchema, GetTaskPushNotificationConfigRequest),
  deletePushConfig: parseWith(PushConfigRefSchema, DeleteTaskPushNotificationConfigRequest),
  listPushConfigs: parseWith(ListPushConfigsSchema, ListTaskPushNotificationConfigsRequest),
  getExtendedCard: parseWith(TenantOnlySchema, identity),
} as const;
