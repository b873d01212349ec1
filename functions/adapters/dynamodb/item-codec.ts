/**
 * Items of the task table (see table.ts) to and from domain values. Payloads are stored as JSON
 * strings, not DynamoDB maps: a string keeps the JSON exactly (maps drop `undefined`, refuse
 * empty sets and cap numbers at 38 digits) and costs the same bytes. Everything read back is
 * untrusted: it is validated with the core's zod schemas and a bad item is an
 * `InvalidTaskRecordError`.
 */
import { createHash } from 'node:crypto';
import {
  Message,
  Task,
  TaskArtifactUpdateEvent,
  TaskStatusUpdateEvent,
  taskStateToJSON,
} from '@a2a-js/sdk';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { TASK_METADATA_KEY } from '../../core/a2a/identifiers.js';
import { intakeAuditKey, messageIdOfIntakeKey } from '../../core/audit/intake-key.js';
import { InvalidTaskRecordError } from '../../core/errors.js';
import { type HistoryEntry, HistoryEntrySchema } from '../../core/loop/history.schema.js';
import { type InboxItem, InboxItemSchema } from '../../core/loop/inbox.schema.js';
import { LoopStateSchema } from '../../core/loop/loop-state.schema.js';
import { pendingStartOf } from '../../core/loop/pending-start.js';
import type { LoggedEvent, TaskEvent } from '../../core/ports/event-log.js';
import { type PushConfig, PushConfigSchema } from '../../core/ports/push-config-store.js';
import type { AuditRecord, BudgetAmounts, TaskRecord } from '../../core/ports/task-store.js';
import { type RemoteLink, RemoteLinkSchema } from '../../core/remote/remote-link.js';
import { readExtension, subStateOf, withForksListed } from '../../core/task/a2a-task.js';
import {
  BUDGET_LIMITS,
  type BudgetLimit,
  TASK_STATE_NAMES,
  type TaskExtension,
} from '../../core/task/extension.schema.js';
import { utf8Bytes } from '../../core/utf8-bytes.js';
import type { Item, ItemImage } from './item-shape.js';
import { loopFromStored, storedLoopJson } from './loop-codec.js';
import { packedText, unpackedText } from './packed-text.js';
import {
  ATTR,
  availableAttribute,
  ITEM_TYPE,
  KEY_PREFIX,
  MAX_SEQ,
  PARTITION_KEY,
  PENDING_START_KEY,
  padSeq,
  SORT_KEY,
  SORT_KEY_VALUE,
  taskPk,
} from './table.js';
import {
  type PartRevisions,
  type PartValues,
  partsApartAttributes,
  partsApartOf,
  withoutParts,
  withParts,
} from './task-parts.js';

export type { Item, ItemImage };

// ---------------------------------------------------------------------------------------------
// Keys

/** DynamoDB's limits: 2048 bytes for a partition key, 1024 for a sort key. */
const MAX_PARTITION_KEY_BYTES = 2048;
const MAX_KEY_PART_BYTES = 512;
const HASHED_PREFIX = '~sha256:';

/**
 * A caller-supplied string (message id, once key, participant id, context id) as a key part:
 * itself when short, else its SHA-256. Strings that start with the hash prefix are hashed too,
 * so the mapping stays one-to-one.
 */
export const keyPart = (value: string): string =>
  utf8Bytes(value) <= MAX_KEY_PART_BYTES && !value.startsWith(HASHED_PREFIX)
    ? value
    : `${HASHED_PREFIX}${createHash('sha256').update(value, 'utf8').digest('hex')}`;

/** Whether a task id fits a partition key (a longer one can name no stored task). */
export const isStorableTaskId = (taskId: string): boolean =>
  utf8Bytes(taskPk(taskId)) <= MAX_PARTITION_KEY_BYTES;

export const key = (taskId: string, sk: string): Item => ({
  [PARTITION_KEY]: { S: taskPk(taskId) },
  [SORT_KEY]: { S: sk },
});

export const taskKey = (taskId: string) => key(taskId, SORT_KEY_VALUE.task);
export const participantSk = (participantId: string) =>
  `${KEY_PREFIX.participant}${keyPart(participantId)}`;
export const historySk = (seq: number) => `${KEY_PREFIX.history}${padSeq(seq)}`;
export const inboxSk = (seq: number) => `${KEY_PREFIX.inbox}${padSeq(seq)}`;
export const inboxIdSk = (itemId: string) => `${KEY_PREFIX.inboxId}${keyPart(itemId)}`;
export const onceSk = (onceKey: string) => `${KEY_PREFIX.once}${keyPart(onceKey)}`;
export const eventSk = (seq: number) => `${KEY_PREFIX.event}${padSeq(seq)}`;
export const pushConfigSk = (configId: string) => `${KEY_PREFIX.pushConfig}${keyPart(configId)}`;
export const remoteLinkSk = (linkId: string) => `${KEY_PREFIX.remoteLink}${linkId}`;

/**
 * The first seq strictly after `afterSeq`, or `undefined` when no seq can follow it. Mirrors
 * `seq > afterSeq` for any number (negative, fractional, NaN, Infinity).
 */
export const firstSeqAfter = (afterSeq: number): number | undefined => {
  if (Number.isNaN(afterSeq)) return undefined;
  const first = Math.max(1, Math.floor(afterSeq) + 1);
  return first > MAX_SEQ ? undefined : first;
};

// ---------------------------------------------------------------------------------------------
// Reading attributes

export const invalid = (what: string, cause?: unknown): InvalidTaskRecordError =>
  new InvalidTaskRecordError(`stored ${what} is invalid`, cause === undefined ? {} : { cause });

export const readString = (image: ItemImage, name: string, what: string): string => {
  const value = image[name]?.S;
  if (typeof value !== 'string') throw invalid(`${what} (attribute ${name} is not a string)`);
  return value;
};

export const readInt = (image: ItemImage, name: string, what: string, min: number): number => {
  const raw = image[name]?.N;
  const value = raw === undefined ? Number.NaN : Number(raw);
  if (!Number.isSafeInteger(value) || value < min) {
    throw invalid(`${what} (attribute ${name} is not an integer >= ${min})`);
  }
  return value;
};

export const readJson = (image: ItemImage, name: string, what: string): unknown => {
  const text = readString(image, name, what);
  try {
    return JSON.parse(unpackedText(text));
  } catch (error) {
    throw invalid(`${what} (attribute ${name} is not JSON)`, error);
  }
};

export const parseWith = <T>(schema: z.ZodType<T>, value: unknown, what: string): T => {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalid(`${what}: ${z.prettifyError(parsed.error)}`, parsed.error);
  return parsed.data;
};

/** The JSON text of a value; `undefined`, functions and symbols have none. */
export const toJsonText = (value: unknown): string => {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError('the value is not JSON-serialisable');
  return text;
};

/** A value about to be written must read back: refuse it now rather than poison the store. */
export const refuseInvalid = <T>(schema: z.ZodType<T>, value: unknown, what: string): T => {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new InvalidTaskRecordError(
      `refusing to store an invalid ${what}: ${z.prettifyError(parsed.error)}`,
      { cause: parsed.error }
    );
  }
  return parsed.data;
};

const nullable = (value: string | undefined): AttributeValue =>
  value === undefined ? { NULL: true } : { S: value };

// ---------------------------------------------------------------------------------------------
// A2A payloads: stored in their ProtoJSON form (state names, base64 bytes), read back through the
// SDK's own `fromJSON` after a structural check.

/** The A2A state names a stored task may carry (the wire names plus the proto default). */
const STORED_STATE_NAMES = ['TASK_STATE_UNSPECIFIED', ...TASK_STATE_NAMES] as const;

const StoredTaskJsonSchema = z.looseObject({
  id: z.string().min(1),
  contextId: z.string().optional(),
  status: z.looseObject({ state: z.enum(STORED_STATE_NAMES).optional() }).optional(),
  artifacts: z.array(z.looseObject({})).optional(),
  history: z.array(z.looseObject({})).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

const JsonObjectSchema = z.looseObject({});

export const taskToJson = (task: Task): unknown => JSON.parse(JSON.stringify(Task.toJSON(task)));

const fromJsonChecked = <T>(decode: (json: unknown) => T, json: unknown, what: string): T => {
  try {
    return decode(json);
  } catch (error) {
    throw invalid(what, error);
  }
};

export const taskFromJson = (json: unknown, what = 'task'): Task =>
  fromJsonChecked(Task.fromJSON, parseWith(StoredTaskJsonSchema, json, what), what);

/** The A2A state name of a task (`TASK_STATE_UNSPECIFIED` without a status). */
export const stateNameOf = (task: Task): string => taskStateToJSON(task.status?.state ?? 0);

/**
 * The participant ids of a task, from its extension (deduplicated, in order). A task without a
 * valid extension has none: it is listed by no participant.
 */
export const participantIdsOf = (task: Task): string[] => {
  const extension = validExtensionOf(task);
  if (extension === undefined) return [];
  return [...new Set(extension.participants.map((participant) => participant.id))];
};

/** The first parent task on this harness (`agent: null`): the one the stream Lambda notifies. */
export const parentIdOf = (task: Task): string | undefined =>
  validExtensionOf(task)?.parent_tasks.find((parent) => parent.agent === null)?.task_id;

/**
 * The parts a task keeps apart as the core reads them (its reading of the extension: the values
 * a decision that left them alone passes on as they are), or as they are stored when the task has
 * no valid extension.
 */
export const heldPartsOf = (task: Task): PartValues => {
  const extension = validExtensionOf(task);
  const metadata =
    extension === undefined ? task.metadata : { ...task.metadata, [TASK_METADATA_KEY]: extension };
  return withoutParts({ metadata }).parts;
};

/**
 * A task's extension, or undefined when it has none that is valid. The core's reading, which
 * parses each stored extension once: a commit asks for it several times, and a large task's
 * extension (its sub-task rows) takes milliseconds to parse.
 */
const validExtensionOf = (task: Task): TaskExtension | undefined => {
  try {
    return readExtension(task);
  } catch (error) {
    if (error instanceof InvalidTaskRecordError) return undefined;
    throw error;
  }
};

// ---------------------------------------------------------------------------------------------
// Task records

export interface TaskRecordAttributes {
  /** Attributes to SET on the record item. */
  set: Item;
  /** Attributes to REMOVE from the record item (absent index keys). */
  remove: string[];
  participantIds: string[];
  /** The extension's parts kept apart, each in an item of its own (task-parts.ts). */
  parts: PartValues;
}

/** The record's attributes, the version aside (create and update write the same ones). */
export const taskRecordAttributes = (record: Pick<TaskRecord, 'task' | 'loop' | 'eventSeq'>) => {
  const task = record.task;
  // The parts that grow with the task are kept in items of their own (task-parts.ts), as the task
  // holds them: only the rest is serialised here, and a part only when it is written.
  const { taskJson: kept, parts } = withoutParts({ metadata: task.metadata });
  const taskJson = refuseInvalid(
    StoredTaskJsonSchema,
    taskToJson({ ...task, metadata: kept.metadata as Task['metadata'] }),
    'task'
  );
  const loop = refuseInvalid(LoopStateSchema, record.loop, 'loop state');
  const participantIds = participantIdsOf(task);
  const set: Item = {
    [ATTR.type]: { S: ITEM_TYPE.task },
    [ATTR.taskId]: { S: task.id },
    [ATTR.task]: { S: packedText(toJsonText(taskJson)) },
    [ATTR.loop]: { S: packedText(toJsonText(storedLoopJson({ ...loop, parkToken: null }))) },
    [ATTR.parkToken]: nullable(loop.parkToken ?? undefined),
    [ATTR.state]: { S: stateNameOf(task) },
    [ATTR.subState]: nullable(subStateOf(task)),
    [ATTR.parentId]: nullable(parentIdOf(task)),
    [ATTR.contextId]: { S: task.contextId },
    [ATTR.participants]: { S: toJsonText(participantIds) },
    [ATTR.eventSeq]: { N: String(record.eventSeq) },
    [ATTR.parked]: { BOOL: loop.parkToken !== null },
  };
  const remove: string[] = [];
  // An index key may not be an empty string: a task without a context is not in `by_context`.
  if (task.contextId === '') {
    remove.push(ATTR.ctxPk, ATTR.ctxSk);
  } else {
    set[ATTR.ctxPk] = { S: keyPart(task.contextId) };
    set[ATTR.ctxSk] = { S: task.id };
  }
  // In `by_pending_start` only while an open task's generation waits for its execution.
  const pendingSince = pendingStartOf({ task, loop });
  if (pendingSince === undefined) {
    remove.push(ATTR.startPk, ATTR.startSk);
  } else {
    set[ATTR.startPk] = { S: PENDING_START_KEY };
    set[ATTR.startSk] = { S: pendingSince };
  }
  return { set, remove, participantIds, parts } satisfies TaskRecordAttributes;
};

/**
 * The record's attributes with the parts it keeps apart named, and their revisions: what an update
 * sets, and removes when it keeps none apart any more.
 */
export const withPartsApart = (
  attributes: TaskRecordAttributes,
  apart: PartRevisions
): TaskRecordAttributes => {
  const named = partsApartAttributes(apart);
  return Object.keys(named).length === 0
    ? { ...attributes, remove: [...attributes.remove, ATTR.partsApart, ATTR.partRevisions] }
    : { ...attributes, set: { ...attributes.set, ...named } };
};

/** The whole record item, for a create: every part it keeps apart is of its first version. */
export const encodeTaskRecord = (
  record: Pick<TaskRecord, 'task' | 'loop' | 'eventSeq'> & { inboxCount?: number },
  version: number
) => {
  const attributes = taskRecordAttributes(record);
  const apart = Object.fromEntries(
    Object.keys(attributes.parts).map((part) => [part, version])
  ) as PartRevisions;
  const item: Item = {
    ...taskKey(record.task.id),
    ...attributes.set,
    ...partsApartAttributes(apart),
    [ATTR.inboxCount]: { N: String(record.inboxCount ?? 0) },
    [ATTR.version]: { N: String(version) },
  };
  return { item, participantIds: attributes.participantIds, parts: attributes.parts, apart };
};

export const decodeVersion = (image: ItemImage): number =>
  readInt(image, ATTR.version, 'task version', 1);

/**
 * Membership changes one record write may carry: a transaction holds at most 100 actions, one
 * of them the record itself.
 */
export const MAX_TRANSACTION_PARTICIPANTS = 99;

/** The stored participant ids of a record item (for diffing membership on update). */
export const decodeParticipantIds = (image: ItemImage): string[] =>
  parseWith(
    z.array(z.string()),
    readJson(image, ATTR.participants, 'task participants'),
    'task participants'
  );

/**
 * A record item (also a stream image) back to a `TaskRecord`, with the parts kept apart that were
 * read with it (a stream image has none: its extension lacks the plan and the rows). `taskId`,
 * when given, must be the id the item was read under.
 */
export const decodeTaskRecord = (
  image: ItemImage,
  taskId?: string,
  parts: PartValues = {}
): TaskRecord => {
  const task = withForksListed(
    taskFromJson(withParts(readJson(image, ATTR.task, 'task'), parts), 'task'),
    forksOf(image)
  );
  const apart = partsApartOf(image);
  if (taskId !== undefined && task.id !== taskId) {
    throw invalid(`task (id ${JSON.stringify(task.id)} stored under ${JSON.stringify(taskId)})`);
  }
  const loop = parseWith(
    LoopStateSchema,
    loopFromStored(readJson(image, ATTR.loop, 'loop state')),
    'loop state'
  );
  return {
    task,
    // A record stored before the token had its own attribute keeps it in the loop state.
    loop:
      image[ATTR.parkToken] === undefined ? loop : { ...loop, parkToken: decodeParkToken(image) },
    version: decodeVersion(image),
    eventSeq: decodeEventSeq(image),
    // A record stored by an earlier build has no count until its first enqueue adds one.
    inboxCount:
      image[ATTR.inboxCount] === undefined
        ? 0
        : readInt(image, ATTR.inboxCount, 'task inbox count', 0),
    ...(hasPushIds(image) ? { pushConfigured: true } : {}),
    ...budgetAvailableOf(image),
    ...(Object.keys(apart).length === 0 ? {} : { partsApart: apart }),
    ...(image[ATTR.logEventsFrom] === undefined ? {} : { logFrom: logOriginOf(image) }),
    ...(image[ATTR.inboxHeld] === undefined ? {} : { inboxHeld: decodeHeldInbox(image) }),
    ...inboxOnRecord(image),
  };
};

/**
 * The inbox a record item says it has whole (`TaskRecord.inbox`): the items it holds, when it
 * began counting its items apart at its creation and counts none now. An earlier build's record
 * may have items it never counted: its inbox is read.
 */
export const inboxOnRecord = (image: ItemImage): { inbox?: InboxItem[] } =>
  image[ATTR.inboxCounted]?.BOOL === true && Number(image[ATTR.inboxApart]?.N ?? '0') === 0
    ? { inbox: decodeHeldInbox(image) }
    : {};

/** The inbox items a record item holds itself (held-inbox.ts; none for one that holds none). */
export const decodeHeldInbox = (image: ItemImage): InboxItem[] =>
  image[ATTR.inboxHeld] === undefined
    ? []
    : parseWith(
        z.array(InboxItemSchema),
        readJson(image, ATTR.inboxHeld, 'held inbox'),
        'held inbox'
      );

/** The record attributes that name where its log begins. */
export const logOriginAttributes = (origin: NonNullable<TaskRecord['logFrom']>): Item => ({
  [ATTR.logEventsFrom]: { N: String(origin.eventSeq) },
  [ATTR.logHistoryFrom]: { N: String(origin.historySeq) },
});

/**
 * Where a record's log begins (`TaskRecord.logFrom`: what an earlier build's own items hold), or
 * `undefined` when the record names none.
 */
export const logOriginOf = (image: ItemImage): TaskRecord['logFrom'] =>
  image[ATTR.logEventsFrom] === undefined
    ? undefined
    : {
        eventSeq: readInt(image, ATTR.logEventsFrom, 'task log origin', 0),
        historySeq: readInt(image, ATTR.logHistoryFrom, 'task log origin', 0),
      };

/** The ids of a record item's forks (`ATTR.forks`, kept beside the record). */
const forksOf = (image: ItemImage): string[] =>
  (image[ATTR.forks]?.L ?? []).map((entry) => {
    if (entry.S === undefined) throw invalid('task forks (not a list of strings)');
    return entry.S;
  });

/** The budget account on a record item: an attribute per limit the task's budget has. */
const budgetAvailableOf = (image: ItemImage): { budgetAvailable?: BudgetAmounts } => {
  const amounts: BudgetAmounts = {};
  for (const limit of BUDGET_LIMITS) {
    const raw = image[availableAttribute(limit)]?.N;
    if (raw === undefined) continue;
    const value = Number(raw);
    if (!Number.isFinite(value)) throw invalid(`budget account (${limit} is not a number)`);
    amounts[limit] = value;
  }
  return Object.keys(amounts).length === 0 ? {} : { budgetAvailable: amounts };
};

/** A budget account's amounts as record attributes (a created task's opening balance). */
export const budgetAttributes = (amounts: BudgetAmounts): Item => {
  const entries = Object.entries(amounts);
  if (entries.length === 0) return {};
  return {
    [ATTR.budgetAccount]: { BOOL: true },
    ...Object.fromEntries(
      entries.map(([limit, amount]) => [
        availableAttribute(limit as BudgetLimit),
        { N: String(amount) },
      ])
    ),
  };
};

const decodeParkToken = (image: ItemImage): string | null => {
  const value = image[ATTR.parkToken];
  if (value?.NULL === true) return null;
  return readString(image, ATTR.parkToken, 'park token');
};

/** Whether a record item names a push config (DynamoDB drops a string set's last element). */
const hasPushIds = (image: ItemImage): boolean => (image[ATTR.pushIds]?.SS?.length ?? 0) > 0;

/** The newest event's seq the record names (0 for a record written before it had one). */
export const decodeEventSeq = (image: ItemImage): number =>
  image[ATTR.eventSeq] === undefined ? 0 : readInt(image, ATTR.eventSeq, 'task event seq', 0);

export const membershipItem = (taskId: string, participantId: string): Item => ({
  ...key(taskId, participantSk(participantId)),
  [ATTR.type]: { S: ITEM_TYPE.participant },
  [ATTR.taskId]: { S: taskId },
  [ATTR.participantId]: { S: participantId },
  [ATTR.partPk]: { S: keyPart(participantId) },
  [ATTR.partSk]: { S: taskId },
});

/** The task id an index entry (or record key) points at: `pk` without its prefix. */
export const taskIdOfKey = (image: ItemImage): string => {
  const pk = readString(image, PARTITION_KEY, 'index entry');
  if (!pk.startsWith(KEY_PREFIX.task)) throw invalid(`index entry (pk ${JSON.stringify(pk)})`);
  return pk.slice(KEY_PREFIX.task.length);
};

// ---------------------------------------------------------------------------------------------
// History and inbox

const sequenced = (taskId: string, sk: string, type: string, seq: number, data: unknown): Item => ({
  ...key(taskId, sk),
  [ATTR.type]: { S: type },
  [ATTR.seq]: { N: String(seq) },
  [ATTR.data]: { S: toJsonText(data) },
});

/** The seq a sequenced item claims in its key, its `seq` attribute and its payload must agree. */
const checkSeq = (image: ItemImage, prefix: string, payloadSeq: number, what: string) => {
  const seq = readInt(image, ATTR.seq, what, 1);
  const sk = readString(image, SORT_KEY, what);
  if (sk !== `${prefix}${padSeq(seq)}` || payloadSeq !== seq) {
    throw invalid(`${what} (seq ${payloadSeq} stored at ${sk})`);
  }
};

export const encodeHistoryEntry = (taskId: string, entry: HistoryEntry): Item => {
  const valid = refuseInvalid(HistoryEntrySchema, entry, 'history entry');
  return sequenced(taskId, historySk(valid.seq), ITEM_TYPE.history, valid.seq, valid);
};

export const decodeHistoryEntry = (image: ItemImage): HistoryEntry => {
  const entry = parseWith(
    HistoryEntrySchema,
    readJson(image, ATTR.data, 'history entry'),
    'history entry'
  );
  checkSeq(image, KEY_PREFIX.history, entry.seq, 'history entry');
  return entry;
};

export const encodeInboxItem = (taskId: string, item: InboxItem): Item => {
  const valid = refuseInvalid(InboxItemSchema, item, 'inbox item');
  return sequenced(taskId, inboxSk(valid.seq), ITEM_TYPE.inbox, valid.seq, valid);
};

export const decodeInboxItem = (image: ItemImage): InboxItem => {
  const item = parseWith(InboxItemSchema, readJson(image, ATTR.data, 'inbox item'), 'inbox item');
  checkSeq(image, KEY_PREFIX.inbox, item.seq, 'inbox item');
  return item;
};

// ---------------------------------------------------------------------------------------------
// Markers (dedup) and counters

/** A dedup marker: the original key and the seq of the first item written under it. */
export const markerItem = (
  taskId: string,
  sk: string,
  type: string,
  markerKey: string,
  seq: number
) => ({
  ...key(taskId, sk),
  [ATTR.type]: { S: type },
  [ATTR.key]: { S: markerKey },
  [ATTR.seq]: { N: String(seq) },
});

/**
 * A commit's audit records apart: intake's rows of the messages it marks as taken in (`ids`), by
 * message id, kept on their markers; and the rest.
 */
export const intakeRowsApart = (
  audit: readonly AuditRecord[],
  ids: readonly string[]
): { rows: Map<string, unknown>; audit: AuditRecord[] } => {
  const marked = new Set(ids);
  const rows = new Map<string, unknown>();
  const rest = audit.filter((record) => {
    const messageId = messageIdOfIntakeKey(record.key);
    if (messageId === undefined || !marked.has(messageId)) return true;
    rows.set(messageId, record.value);
    return false;
  });
  return { rows, audit: rest };
};

/** A marker carrying intake's row of its message (none: as it is). */
export const withIntakeRow = (marker: Item, row: unknown): Item =>
  row === undefined ? marker : { ...marker, [ATTR.data]: { S: toJsonText(row) } };

/** A marker's intake row, as an audit record (`undefined`: it carries none). */
export const decodeIntakeRow = (image: ItemImage): AuditRecord | undefined =>
  image[ATTR.data] === undefined
    ? undefined
    : {
        key: intakeAuditKey(readString(image, ATTR.key, 'inbox marker')),
        value: readJson(image, ATTR.data, 'inbox marker'),
      };

/** A marker's seq: where its item was enqueued, or 0 for an id only seen. */
export const decodeMarkerSeq = (image: ItemImage, what: string): number =>
  readInt(image, ATTR.seq, what, 0);

/** A task's inbox counter as a new task's first commit writes it: `seq`, its last seq taken. */
export const inboxCounterItem = (taskId: string, seq: number): Item => ({
  ...key(taskId, SORT_KEY_VALUE.inboxCounter),
  [ATTR.type]: { S: ITEM_TYPE.inboxCounter },
  [ATTR.seq]: { N: String(seq) },
});

/** A counter's last seq (0 when the counter item does not exist yet). */
export const decodeCounter = (image: ItemImage | undefined, what: string): number =>
  image === undefined ? 0 : readInt(image, ATTR.seq, what, 0);

// ---------------------------------------------------------------------------------------------
// Once values

export const encodeOnce = (taskId: string, onceKey: string, value: unknown): Item => ({
  ...key(taskId, onceSk(onceKey)),
  [ATTR.type]: { S: ITEM_TYPE.once },
  [ATTR.key]: { S: onceKey },
  [ATTR.data]: { S: toJsonText(value) },
});

/** A once value. Its type is the caller's: only its JSON form (and its key) can be checked. */
export const decodeOnce = (image: ItemImage, onceKey: string): unknown => {
  if (readString(image, ATTR.key, 'once value') !== onceKey) {
    throw invalid(`once value (stored under another key than ${JSON.stringify(onceKey)})`);
  }
  return readJson(image, ATTR.data, 'once value');
};

// ---------------------------------------------------------------------------------------------
// Events

export const StoredEventSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('task'), task: StoredTaskJsonSchema }),
  z.strictObject({ kind: z.literal('status_update'), statusUpdate: JsonObjectSchema }),
  z.strictObject({ kind: z.literal('artifact_update'), artifactUpdate: JsonObjectSchema }),
  z.strictObject({ kind: z.literal('message'), message: JsonObjectSchema }),
]);

/** An event in its stored form: the payload in ProtoJSON. */
export const eventToJson = (event: TaskEvent): unknown => {
  const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
  switch (event.kind) {
    case 'task':
      return { kind: event.kind, task: json(Task.toJSON(event.task)) };
    case 'status_update':
      return {
        kind: event.kind,
        statusUpdate: json(TaskStatusUpdateEvent.toJSON(event.statusUpdate)),
      };
    case 'artifact_update':
      return {
        kind: event.kind,
        artifactUpdate: json(TaskArtifactUpdateEvent.toJSON(event.artifactUpdate)),
      };
    case 'message':
      return { kind: event.kind, message: json(Message.toJSON(event.message)) };
  }
};

export const eventFromJson = (json: unknown): TaskEvent => {
  const stored = parseWith(StoredEventSchema, json, 'event');
  switch (stored.kind) {
    case 'task':
      return { kind: 'task', task: fromJsonChecked(Task.fromJSON, stored.task, 'event') };
    case 'status_update':
      return {
        kind: 'status_update',
        statusUpdate: fromJsonChecked(TaskStatusUpdateEvent.fromJSON, stored.statusUpdate, 'event'),
      };
    case 'artifact_update':
      return {
        kind: 'artifact_update',
        artifactUpdate: fromJsonChecked(
          TaskArtifactUpdateEvent.fromJSON,
          stored.artifactUpdate,
          'event'
        ),
      };
    case 'message':
      return {
        kind: 'message',
        message: fromJsonChecked(Message.fromJSON, stored.message, 'event'),
      };
  }
};

/**
 * An event of a task's log; `push` marks it for the push function (the task has a push config),
 * whose stream filter passes nothing else.
 */
export const encodeEvent = (
  taskId: string,
  seq: number,
  event: TaskEvent,
  options: { push?: boolean; historySeq?: number } = {}
): Item => {
  const item: Item = {
    ...sequenced(
      taskId,
      eventSk(seq),
      ITEM_TYPE.event,
      seq,
      refuseInvalid(StoredEventSchema, eventToJson(event), 'event')
    ),
    ...(options.historySeq === undefined
      ? {}
      : { [ATTR.historySeq]: { N: String(options.historySeq) } }),
  };
  return options.push === true ? { ...item, [ATTR.push]: { BOOL: true } } : item;
};

export const decodeEvent = (image: ItemImage): LoggedEvent => {
  const seq = readInt(image, ATTR.seq, 'event', 1);
  checkSeq(image, KEY_PREFIX.event, seq, 'event');
  const event = eventFromJson(readJson(image, ATTR.data, 'event'));
  // An event logged before the mark was kept has none.
  if (image[ATTR.historySeq] === undefined) return { seq, event };
  return { seq, event, historySeq: readInt(image, ATTR.historySeq, 'event history seq', 0) };
};

// ---------------------------------------------------------------------------------------------
// Push-notification configs

export const encodePushConfig = (config: PushConfig): Item => {
  const valid = refuseInvalid(PushConfigSchema, config, 'push config');
  return {
    ...key(valid.taskId, pushConfigSk(valid.id)),
    [ATTR.type]: { S: ITEM_TYPE.pushConfig },
    [ATTR.taskId]: { S: valid.taskId },
    [ATTR.key]: { S: valid.id },
    [ATTR.data]: { S: toJsonText(valid) },
  };
};

/** A stored config is untrusted input: it must parse, and be the one its key names. */
export const decodePushConfig = (image: ItemImage, taskId: string): PushConfig => {
  const config = parseWith(
    PushConfigSchema,
    readJson(image, ATTR.data, 'push config'),
    'push config'
  );
  if (config.taskId !== taskId || image[ATTR.key]?.S !== config.id) {
    throw invalid('push config (not under its own key)');
  }
  return config;
};

// ---------------------------------------------------------------------------------------------
// Remote children's links

export const encodeRemoteLink = (link: RemoteLink): Item => {
  const valid = refuseInvalid(RemoteLinkSchema, link, 'remote link');
  return {
    ...key(valid.parentId, remoteLinkSk(valid.linkId)),
    [ATTR.type]: { S: ITEM_TYPE.remoteLink },
    [ATTR.taskId]: { S: valid.parentId },
    [ATTR.version]: { N: String(valid.version) },
    [ATTR.data]: { S: toJsonText(valid) },
  };
};

/** A stored link is untrusted input: it must parse, and be the one its key names. */
export const decodeRemoteLink = (image: ItemImage, parentId: string): RemoteLink => {
  const link = parseWith(
    RemoteLinkSchema,
    readJson(image, ATTR.data, 'remote link'),
    'remote link'
  );
  if (link.parentId !== parentId || image[SORT_KEY]?.S !== remoteLinkSk(link.linkId)) {
    throw invalid('remote link (not under its own key)');
  }
  return link;
};

// ---------------------------------------------------------------------------------------------
// Large payloads

/**
 * The most UTF-16 code units of a payload one item holds: at most 3 UTF-8 bytes each (a
 * surrogate pair is 4 bytes for 2 units), so a part stays well under DynamoDB's 400 KB item
 * limit with its keys and attributes.
 */
export const PART_CHARACTERS = 100_000;

export const partSk = (sk: string, index: number) => `${KEY_PREFIX.part}${sk}#${index}`;

/** `text` cut into pieces of at most `size` code units, never inside a surrogate pair. */
const pieces = (text: string, size: number): string[] => {
  const out: string[] = [];
  for (let start = 0; start < text.length; ) {
    let end = Math.min(start + size, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    out.push(text.slice(start, end));
    start = end;
  }
  return out;
};

/**
 * An item whose payload (`data`) is too large for one item, as the items that store it: the item
 * itself with the first piece and the number of parts, then one part item per further piece
 * (`PIECE#<sk>#<n>`). An item that fits is returned alone, unchanged.
 */
export const splitData = (item: Item): Item[] => {
  const data = item[ATTR.data]?.S;
  if (data === undefined || data.length <= PART_CHARACTERS) return [item];
  const [first = '', ...rest] = pieces(data, PART_CHARACTERS);
  const pk = item[PARTITION_KEY] as AttributeValue;
  const sk = (item[SORT_KEY] as { S: string }).S;
  return [
    { ...item, [ATTR.data]: { S: first }, [ATTR.parts]: { N: String(rest.length) } },
    ...rest.map((piece, index) => ({
      [PARTITION_KEY]: pk,
      [SORT_KEY]: { S: partSk(sk, index + 1) },
      [ATTR.type]: { S: ITEM_TYPE.part },
      [ATTR.data]: { S: piece },
    })),
  ];
};

/** How many part items follow an item (0 for one that fits). */
export const partsOf = (image: ItemImage): number =>
  image[ATTR.parts] === undefined ? 0 : readInt(image, ATTR.parts, 'item parts', 0);

/** The keys of an item's parts, in order. */
export const partKeys = (image: ItemImage): Item[] => {
  const pk = image[PARTITION_KEY]?.S;
  const sk = image[SORT_KEY]?.S;
  if (pk === undefined || sk === undefined) throw invalid('item (no key)');
  return Array.from({ length: partsOf(image) }, (_, index) => ({
    [PARTITION_KEY]: { S: pk },
    [SORT_KEY]: { S: partSk(sk, index + 1) },
  }));
};

/** An item with its parts' pieces put back into its payload (`parts` in the order of `partKeys`). */
export const joinData = (item: Item, parts: readonly ItemImage[]): Item => {
  if (parts.length !== partsOf(item)) {
    throw invalid(`item ${item[SORT_KEY]?.S} (${parts.length} of ${partsOf(item)} parts found)`);
  }
  const data = [item, ...parts].map((part) => readString(part, ATTR.data, 'item part')).join('');
  const { [ATTR.parts]: _parts, ...whole } = item;
  return { ...whole, [ATTR.data]: { S: data } };
};
