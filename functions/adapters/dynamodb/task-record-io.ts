import type { DynamoDBClient, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import type { TaskRecord } from '../../core/ports/task-store.js';
import {
  decodeTaskRecord,
  heldPartsOf,
  type Item,
  isStorableTaskId,
  splitData,
  taskIdOfKey,
  taskKey,
} from './item-codec.js';
import {
  ATTR,
  PARTITION_KEY,
  SORT_KEY,
  SORT_KEY_VALUE,
  TASK_PARTS,
  TASK_PARTS_END,
  type TaskPart,
  taskPartSk,
  taskPk,
} from './table.js';
import { batchGetAll, getItem, queryAll, wholePayloads } from './table-io.js';
import type { TaskPartCache } from './task-part-cache.js';
import {
  decodeTaskPart,
  encodeTaskPart,
  type PartRevisions,
  type PartValues,
  partChanges,
  partItemRevision,
  partOfItem,
  partsApartOf,
} from './task-parts.js';

const isRecordItem = (item: Item) => item[SORT_KEY]?.S === SORT_KEY_VALUE.task;

/**
 * Part items (their pieces joined) by name; those of the revision the record names are held in
 * `cache` for the next read.
 */
const partValuesOf = (
  taskId: string,
  apart: PartRevisions,
  items: readonly Item[],
  cache: TaskPartCache | undefined
): PartValues => {
  const values: PartValues = {};
  for (const item of items) {
    const [part, value] = decodeTaskPart(item);
    values[part] = value;
    const revision = partItemRevision(item);
    if (revision === apart[part]) {
      cache?.put(taskId, part, revision, value, item[ATTR.data]?.S?.length ?? 0);
    }
  }
  return values;
};

/** The parts a record keeps apart that `cache` holds of the revisions it names, and those it lacks. */
const heldAndMissing = (
  taskId: string,
  apart: PartRevisions,
  cache: TaskPartCache | undefined
): { held: PartValues; missing: TaskPart[] } => {
  const held: PartValues = {};
  const missing: TaskPart[] = [];
  for (const part of TASK_PARTS) {
    const revision = apart[part];
    if (revision === undefined) continue;
    const value = cache?.get(taskId, part, revision);
    if (value === undefined) missing.push(part);
    else held[part] = value;
  }
  return { held, missing };
};

const partKey = (taskId: string, part: TaskPart): Item => ({
  [PARTITION_KEY]: { S: taskPk(taskId) },
  [SORT_KEY]: { S: taskPartSk(part) },
});

/**
 * A task's record with the parts it keeps apart. With a cache: the record item alone, and of its
 * parts only those the cache does not hold of the revisions it names (a part found of another
 * revision, written between the two reads, makes it read as below). Without: one consistent Query
 * of its key range (`TASK`..`TASK#~`), the pieces of a large part read after. Undefined for an
 * unknown task.
 */
export const readTaskRecord = async (
  client: DynamoDBClient,
  tableName: string,
  taskId: string,
  cache?: TaskPartCache
): Promise<TaskRecord | undefined> => {
  if (!isStorableTaskId(taskId)) return undefined;
  if (cache !== undefined) {
    const record = await getItem(client, tableName, taskKey(taskId));
    if (record === undefined) return undefined;
    const apart = partsApartOf(record);
    const { held, missing } = heldAndMissing(taskId, apart, cache);
    if (missing.length === 0) return decodeTaskRecord(record, taskId, held);
    const items = await wholePayloads(
      client,
      tableName,
      await batchGetAll(
        client,
        tableName,
        missing.map((part) => partKey(taskId, part))
      )
    );
    const current =
      items.length === missing.length &&
      items.every((item) => {
        const part = partOfItem(item);
        return part !== undefined && partItemRevision(item) === apart[part];
      });
    if (current) {
      return decodeTaskRecord(record, taskId, {
        ...held,
        ...partValuesOf(taskId, apart, items, cache),
      });
    }
  }
  const items = await queryAll(client, {
    TableName: tableName,
    KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
    ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
    ExpressionAttributeValues: {
      ':pk': { S: taskPk(taskId) },
      ':from': { S: SORT_KEY_VALUE.task },
      ':to': { S: TASK_PARTS_END },
    },
    ConsistentRead: true,
  });
  const record = items.find(isRecordItem);
  if (record === undefined) return undefined;
  const parts = await wholePayloads(
    client,
    tableName,
    items.filter((item) => item !== record)
  );
  return decodeTaskRecord(record, taskId, partValuesOf(taskId, partsApartOf(record), parts, cache));
};

/**
 * A record item as a store was told it (a refused write's old image), decoded when `cache` holds
 * every part it keeps apart at the revision it names; undefined otherwise (read the task then).
 */
export const recordOfHeldParts = (
  item: Item,
  taskId: string,
  cache: TaskPartCache | undefined
): TaskRecord | undefined => {
  const { held, missing } = heldAndMissing(taskId, partsApartOf(item), cache);
  return missing.length === 0 ? decodeTaskRecord(item, taskId, held) : undefined;
};

/**
 * Record items read by key (a list's), each with the parts it keeps apart: those `cache` holds of
 * the revisions named, and one batch read of the rest, in the order of `items`.
 */
export const withPartsRead = async (
  client: DynamoDBClient,
  tableName: string,
  items: readonly Item[],
  cache?: TaskPartCache
): Promise<TaskRecord[]> => {
  const found = items.map((item) => {
    const taskId = taskIdOfKey(item);
    const apart = partsApartOf(item);
    return { item, taskId, apart, ...heldAndMissing(taskId, apart, cache) };
  });
  const keys = found.flatMap(({ taskId, missing }) => missing.map((part) => partKey(taskId, part)));
  const parts = keys.length === 0 ? [] : await batchGetAll(client, tableName, keys);
  const whole = await wholePayloads(client, tableName, parts);
  const byTask = new Map<string, Item[]>();
  for (const part of whole) {
    const taskId = taskIdOfKey(part);
    byTask.set(taskId, [...(byTask.get(taskId) ?? []), part]);
  }
  return found.map(({ item, taskId, apart, held }) =>
    decodeTaskRecord(item, taskId, {
      ...held,
      ...partValuesOf(taskId, apart, byTask.get(taskId) ?? [], cache),
    })
  );
};

/** The items of one part as stored (its head and the pieces of a large one). */
const partItems = (taskId: string, part: TaskPart, json: string, revision: number): Item[] =>
  splitData(encodeTaskPart(taskId, part, json, revision));

/** A part a write puts: its name, the revision it writes and its JSON text. */
export interface PartWritten {
  part: TaskPart;
  revision: number;
  json: string;
}

/**
 * After a write has committed, the parts it put are held as the store would read them back (their
 * JSON parsed again: a value as the decision held it may differ from its JSON, by an undefined
 * field), so the next read by this process reads the record alone.
 */
export const holdWritten = (
  cache: TaskPartCache | undefined,
  taskId: string,
  written: readonly PartWritten[]
): void => {
  for (const { part, revision, json } of written) {
    cache?.put(taskId, part, revision, JSON.parse(json), json.length);
  }
};

const keyOf = (item: Item): Item => ({
  [PARTITION_KEY]: item[PARTITION_KEY] as Item[string],
  [SORT_KEY]: item[SORT_KEY] as Item[string],
});

/**
 * What a record write of `version` writes of the parts kept apart, in its transaction, and the
 * parts the record keeps apart after it with their revisions: a part put (of this version) when
 * it changed from `base` (or `base` does not keep it apart yet: a new task, or an earlier build's
 * record, whose next write moves its parts out; or names no revision for it), a part that now
 * holds nothing deleted, and the pieces a part no longer needs deleted. A turn that changes
 * neither the plan nor the rows writes none of them.
 */
export const partWrites = (
  tableName: string,
  taskId: string,
  base: TaskRecord | undefined,
  parts: PartValues,
  version: number
): { writes: TransactWriteItem[]; apart: PartRevisions; written: PartWritten[] } => {
  const before = (base?.partsApart ?? {}) as PartRevisions;
  // The base's parts as the decision read them, to tell which parts it changed.
  const held = base === undefined ? {} : heldPartsOf(base.task);
  // Each value is serialised once, whether to write it or to count its pieces.
  const texts = new Map<unknown, string>();
  const jsonOf = (value: unknown): string => {
    const known = texts.get(value);
    if (known !== undefined) return known;
    const text = JSON.stringify(value);
    texts.set(value, text);
    return text;
  };
  const { put, remove } = partChanges({ parts: held, apart: before }, parts);
  const stale = (part: TaskPart, kept: readonly Item[]) => {
    if (before[part] === undefined) return [];
    const keep = new Set(kept.map((item) => item[SORT_KEY]?.S));
    return partItems(taskId, part, jsonOf(held[part]), 0).filter(
      (item) => !keep.has(item[SORT_KEY]?.S)
    );
  };
  const writes: TransactWriteItem[] = [];
  const apart: PartRevisions = {};
  for (const part of TASK_PARTS) {
    if (parts[part] === undefined) continue;
    apart[part] = put.includes(part) ? version : (before[part] as number);
  }
  const written: PartWritten[] = [];
  for (const part of put) {
    const json = jsonOf(parts[part]);
    written.push({ part, revision: version, json });
    const items = partItems(taskId, part, json, version);
    writes.push(...items.map((item) => ({ Put: { TableName: tableName, Item: item } })));
    writes.push(
      ...stale(part, items).map((item) => ({ Delete: { TableName: tableName, Key: keyOf(item) } }))
    );
  }
  for (const part of remove) {
    writes.push(
      ...stale(part, []).map((item) => ({ Delete: { TableName: tableName, Key: keyOf(item) } }))
    );
  }
  return { writes, apart, written };
};
