import type { DynamoDBClient, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import type { TaskRecord } from '../../core/ports/task-store.js';
import {
  decodeTaskRecord,
  heldPartsOf,
  type Item,
  isStorableTaskId,
  splitData,
  taskIdOfKey,
} from './item-codec.js';
import {
  PARTITION_KEY,
  SORT_KEY,
  SORT_KEY_VALUE,
  TASK_PARTS_END,
  type TaskPart,
  taskPartSk,
  taskPk,
} from './table.js';
import { batchGetAll, queryAll, wholePayloads } from './table-io.js';
import {
  decodeTaskPart,
  encodeTaskPart,
  type PartValues,
  partChanges,
  partsApartOf,
} from './task-parts.js';

const isRecordItem = (item: Item) => item[SORT_KEY]?.S === SORT_KEY_VALUE.task;

/** Part items (their pieces joined) by name. */
const partValuesOf = (items: readonly Item[]): PartValues =>
  Object.fromEntries(items.map((item) => decodeTaskPart(item)));

/**
 * A task's record with the parts it keeps apart: one consistent Query of its key range
 * (`TASK`..`TASK#~`), the pieces of a large part read after. Undefined for an unknown task.
 */
export const readTaskRecord = async (
  client: DynamoDBClient,
  tableName: string,
  taskId: string
): Promise<TaskRecord | undefined> => {
  if (!isStorableTaskId(taskId)) return undefined;
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
  return decodeTaskRecord(record, taskId, partValuesOf(parts));
};

/**
 * Record items read by key (a list's), each with the parts it keeps apart: one batch read of the
 * parts of the records that keep any, in the order of `items`.
 */
export const withPartsRead = async (
  client: DynamoDBClient,
  tableName: string,
  items: readonly Item[]
): Promise<TaskRecord[]> => {
  const keys = items.flatMap((item) =>
    partsApartOf(item).map((part) => ({
      [PARTITION_KEY]: item[PARTITION_KEY] as Item[string],
      [SORT_KEY]: { S: taskPartSk(part) },
    }))
  );
  const parts = keys.length === 0 ? [] : await batchGetAll(client, tableName, keys);
  const whole = await wholePayloads(client, tableName, parts);
  const byTask = new Map<string, Item[]>();
  for (const part of whole) {
    const taskId = taskIdOfKey(part);
    byTask.set(taskId, [...(byTask.get(taskId) ?? []), part]);
  }
  return items.map((item) => {
    const taskId = taskIdOfKey(item);
    return decodeTaskRecord(item, taskId, partValuesOf(byTask.get(taskId) ?? []));
  });
};

/** The items of one part as stored (its head and the pieces of a large one). */
const partItems = (taskId: string, part: TaskPart, value: unknown): Item[] =>
  splitData(encodeTaskPart(taskId, part, value));

const keyOf = (item: Item): Item => ({
  [PARTITION_KEY]: item[PARTITION_KEY] as Item[string],
  [SORT_KEY]: item[SORT_KEY] as Item[string],
});

/**
 * What a record write writes of the parts kept apart, in its transaction: a part put when it
 * changed from `base` (or `base` does not keep it apart yet: a new task, or an earlier build's
 * record, whose next write moves its parts out), a part that now holds nothing deleted, and the
 * pieces a part no longer needs deleted. A turn that changes neither the plan nor the rows writes
 * none of them.
 */
export const partWrites = (
  tableName: string,
  taskId: string,
  base: TaskRecord | undefined,
  parts: PartValues
): TransactWriteItem[] => {
  const apart = (base?.partsApart ?? []) as TaskPart[];
  // The base's parts as the decision read them: a part it passed on untouched is the same value,
  // and is not serialised to be compared.
  const before = base === undefined ? {} : heldPartsOf(base.task);
  const { put, remove } = partChanges({ parts: before, apart }, parts);
  const stale = (part: TaskPart, kept: readonly Item[]) => {
    if (!apart.includes(part)) return [];
    const keep = new Set(kept.map((item) => item[SORT_KEY]?.S));
    return partItems(taskId, part, before[part]).filter((item) => !keep.has(item[SORT_KEY]?.S));
  };
  const writes: TransactWriteItem[] = [];
  for (const part of put) {
    const items = partItems(taskId, part, parts[part]);
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
  return writes;
};
