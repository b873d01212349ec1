import {
  type DynamoDBClient,
  PutItemCommand,
  ScanCommand,
  type TransactWriteItem,
  TransactWriteItemsCommand,
  type Update,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { AlreadyExistsError, ConcurrencyConflictError } from '../../core/errors.js';
import type { HistoryEntry } from '../../core/loop/history.schema.js';
import type { InboxItem, InboxItemDraft } from '../../core/loop/inbox.schema.js';
import type { TaskQuery, TaskRecord, TaskStore } from '../../core/ports/task-store.js';
import {
  decodeHistoryEntry,
  decodeInboxItem,
  decodeOnce,
  decodeParticipantIds,
  decodeTaskRecord,
  decodeVersion,
  encodeHistoryEntry,
  encodeInboxItem,
  encodeOnce,
  encodeTaskRecord,
  firstSeqAfter,
  historySk,
  type Item,
  inboxIdSk,
  inboxSk,
  isStorableTaskId,
  key,
  keyPart,
  MAX_TRANSACTION_PARTICIPANTS,
  markerItem,
  membershipItem,
  onceSk,
  participantIdsOf,
  participantSk,
  type TaskRecordAttributes,
  taskIdOfKey,
  taskKey,
  taskRecordAttributes,
} from './item-codec.js';
import {
  appendSequenced,
  batchGetAll,
  cancellationCodes,
  getItem,
  ITEM_ABSENT,
  isConditionFailed,
  queryAll,
  RECORD_ABSENT,
  VERSION_MATCHES,
} from './sequenced-append.js';
import {
  ATTR,
  INDEX_BY_CONTEXT,
  INDEX_BY_PARTICIPANT,
  ITEM_TYPE,
  MAX_SEQ,
  PARTITION_KEY,
  SORT_KEY,
  SORT_KEY_VALUE,
  taskPk,
} from './table.js';

export interface DynamoDbTableOptions {
  client: DynamoDBClient;
  tableName: string;
}

/** History entries written in parallel per batch (each a conditional put). */
const HISTORY_WRITE_CONCURRENCY = 10;

/**
 * The task store on the single table (table.ts). Conditional writes only: create is
 * put-if-absent, update is version-checked, history/once are put-if-absent, the inbox is a
 * sequenced append deduplicated by item id (sequenced-append.ts).
 */
export class DynamoDbTaskStore implements TaskStore {
  readonly #client: DynamoDBClient;
  readonly #table: string;

  constructor(options: DynamoDbTableOptions) {
    this.#client = options.client;
    this.#table = options.tableName;
  }

  async create(record: TaskRecord): Promise<TaskRecord> {
    const taskId = record.task.id;
    const { item, participantIds } = encodeTaskRecord(record, 1);
    checkTransactionSize(taskId, participantIds.length);
    const put = {
      TableName: this.#table,
      Item: item,
      ConditionExpression: RECORD_ABSENT,
      ExpressionAttributeNames: { '#pk': PARTITION_KEY },
    };
    try {
      if (participantIds.length === 0) {
        await this.#client.send(new PutItemCommand(put));
      } else {
        // The record and its membership items commit together: a listed task always exists and
        // a created task is always listed.
        await this.#client.send(
          new TransactWriteItemsCommand({
            TransactItems: [
              { Put: put },
              ...participantIds.map((participantId) => ({
                Put: { TableName: this.#table, Item: membershipItem(taskId, participantId) },
              })),
            ],
          })
        );
      }
    } catch (error) {
      if (isConditionFailed(error) || cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') {
        throw new AlreadyExistsError(`task ${taskId} already exists`, { cause: error });
      }
      throw error;
    }
    return decodeTaskRecord(item, taskId);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    if (!isStorableTaskId(taskId)) return undefined;
    const item = await getItem(this.#client, this.#table, taskKey(taskId));
    return item === undefined ? undefined : decodeTaskRecord(item, taskId);
  }

  async update(record: TaskRecord): Promise<TaskRecord> {
    const taskId = record.task.id;
    const conflict = (cause?: unknown) =>
      new ConcurrencyConflictError(
        `task ${taskId}: stored version is not ${record.version}`,
        cause === undefined ? {} : { cause }
      );
    // The stored participants are needed to diff the membership items. Reading first also
    // refuses a stale version without a write; the conditional write below still decides.
    const current = isStorableTaskId(taskId)
      ? await getItem(this.#client, this.#table, taskKey(taskId))
      : undefined;
    if (current === undefined || decodeVersion(current) !== record.version) throw conflict();

    const attributes = taskRecordAttributes(record);
    const next = record.version + 1;
    const before = decodeParticipantIds(current);
    const after = attributes.participantIds;
    const added = after.filter((id) => !before.includes(id));
    const removed = before.filter((id) => !after.includes(id));
    checkTransactionSize(taskId, added.length + removed.length);
    const update = this.#recordUpdate(taskId, attributes, record.version, next);
    try {
      if (added.length === 0 && removed.length === 0) {
        await this.#client.send(new UpdateItemCommand(update));
      } else {
        const membership: TransactWriteItem[] = [
          ...added.map((participantId) => ({
            Put: { TableName: this.#table, Item: membershipItem(taskId, participantId) },
          })),
          ...removed.map((participantId) => ({
            Delete: { TableName: this.#table, Key: key(taskId, participantSk(participantId)) },
          })),
        ];
        await this.#client.send(
          new TransactWriteItemsCommand({ TransactItems: [{ Update: update }, ...membership] })
        );
      }
    } catch (error) {
      if (isConditionFailed(error) || cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') {
        throw conflict(error);
      }
      throw error;
    }
    return decodeTaskRecord(
      { ...taskKey(taskId), ...attributes.set, [ATTR.version]: { N: String(next) } },
      taskId
    );
  }

  async list(query: TaskQuery): Promise<TaskRecord[]> {
    const { contextId, participantId } = query;
    // No task is indexed under an empty id: an empty filter matches nothing (never "everything").
    if (contextId === '' || participantId === '') return [];

    let records: TaskRecord[];
    if (contextId !== undefined || participantId !== undefined) {
      // The index entries say which tasks; the records come from a consistent read, and are
      // checked against the filter again, so a lagging index never yields a stale or wrong task.
      const entries =
        contextId !== undefined
          ? await this.#queryIndex(INDEX_BY_CONTEXT, ATTR.ctxPk, keyPart(contextId))
          : await this.#queryIndex(INDEX_BY_PARTICIPANT, ATTR.partPk, keyPart(participantId!));
      const taskIds = [...new Set(entries.map(taskIdOfKey))];
      const items = await batchGetAll(this.#client, this.#table, taskIds.map(taskKey));
      records = items.map((item) => decodeTaskRecord(item, taskIdOfKey(item)));
    } else {
      records = (await this.#scanTaskRecords()).map((item) =>
        decodeTaskRecord(item, taskIdOfKey(item))
      );
    }
    return records
      .filter(
        (record) =>
          (contextId === undefined || record.task.contextId === contextId) &&
          (participantId === undefined || participantIdsOf(record.task).includes(participantId))
      )
      .sort(byTaskId);
  }

  async appendHistory(taskId: string, entries: readonly HistoryEntry[]): Promise<void> {
    // The first entry per seq in this call wins, as the first stored one wins across calls.
    const firstPerSeq = new Map<number, Item>();
    for (const entry of entries) {
      if (!firstPerSeq.has(entry.seq))
        firstPerSeq.set(entry.seq, encodeHistoryEntry(taskId, entry));
    }
    const items = [...firstPerSeq.values()];
    for (let start = 0; start < items.length; start += HISTORY_WRITE_CONCURRENCY) {
      await Promise.all(
        items.slice(start, start + HISTORY_WRITE_CONCURRENCY).map((item) => this.#putIfAbsent(item))
      );
    }
  }

  async readHistory(taskId: string, afterSeq = 0): Promise<HistoryEntry[]> {
    const items = await this.#querySequence(taskId, afterSeq, historySk);
    return items.map(decodeHistoryEntry);
  }

  async enqueue(
    taskId: string,
    item: InboxItemDraft
  ): Promise<{ seq: number; duplicate: boolean }> {
    const markerSk = inboxIdSk(item.id);
    return appendSequenced({
      client: this.#client,
      tableName: this.#table,
      taskId,
      counterSk: SORT_KEY_VALUE.inboxCounter,
      itemAt: (seq) => encodeInboxItem(taskId, { ...item, seq } as InboxItem),
      marker: {
        sk: markerSk,
        itemAt: (seq) => markerItem(taskId, markerSk, ITEM_TYPE.inboxId, item.id, seq),
      },
    });
  }

  async readInbox(taskId: string, afterSeq: number): Promise<InboxItem[]> {
    const items = await this.#querySequence(taskId, afterSeq, inboxSk);
    return items.map(decodeInboxItem);
  }

  async putOnce<T>(taskId: string, onceKey: string, value: T): Promise<T> {
    const item = encodeOnce(taskId, onceKey, value);
    try {
      await this.#client.send(
        new PutItemCommand({
          TableName: this.#table,
          Item: item,
          ConditionExpression: ITEM_ABSENT,
          ExpressionAttributeNames: { '#pk': PARTITION_KEY },
          // The loser gets the winner's item with the refusal: no second read.
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        })
      );
      return decodeOnce(item, onceKey) as T;
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
      const stored =
        (error as { Item?: Item }).Item ??
        (await getItem(this.#client, this.#table, key(taskId, onceSk(onceKey))));
      if (stored === undefined) throw error;
      return decodeOnce(stored, onceKey) as T;
    }
  }

  async getOnce<T>(taskId: string, onceKey: string): Promise<T | undefined> {
    if (!isStorableTaskId(taskId)) return undefined;
    const item = await getItem(this.#client, this.#table, key(taskId, onceSk(onceKey)));
    return item === undefined ? undefined : (decodeOnce(item, onceKey) as T);
  }

  /** The record's UpdateItem: SET every attribute, REMOVE absent index keys, version-checked. */
  #recordUpdate(taskId: string, attributes: TaskRecordAttributes, expected: number, next: number) {
    const names: Record<string, string> = { '#version': ATTR.version };
    const values: Item = {
      ':expectedVersion': { N: String(expected) },
      ':nextVersion': { N: String(next) },
    };
    const sets = ['#version = :nextVersion'];
    Object.entries(attributes.set).forEach(([name, value], index) => {
      names[`#s${index}`] = name;
      values[`:s${index}`] = value;
      sets.push(`#s${index} = :s${index}`);
    });
    const removes = attributes.remove.map((name, index) => {
      names[`#r${index}`] = name;
      return `#r${index}`;
    });
    return {
      TableName: this.#table,
      Key: taskKey(taskId),
      UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
      ConditionExpression: VERSION_MATCHES,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    } satisfies Update;
  }

  async #putIfAbsent(item: Item): Promise<void> {
    try {
      await this.#client.send(
        new PutItemCommand({
          TableName: this.#table,
          Item: item,
          ConditionExpression: ITEM_ABSENT,
          ExpressionAttributeNames: { '#pk': PARTITION_KEY },
        })
      );
    } catch (error) {
      // Already there: a retried append is a no-op.
      if (!isConditionFailed(error)) throw error;
    }
  }

  /** Items of one sequence (history, inbox) with `seq > afterSeq`, ascending. */
  async #querySequence(taskId: string, afterSeq: number, skAt: (seq: number) => string) {
    const first = firstSeqAfter(afterSeq);
    if (first === undefined || !isStorableTaskId(taskId)) return [];
    return queryAll(this.#client, {
      TableName: this.#table,
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
      ExpressionAttributeValues: {
        ':pk': { S: taskPk(taskId) },
        ':from': { S: skAt(first) },
        ':to': { S: skAt(MAX_SEQ) },
      },
      ConsistentRead: true,
    });
  }

  #queryIndex(indexName: string, partitionAttribute: string, value: string) {
    return queryAll(this.#client, {
      TableName: this.#table,
      IndexName: indexName,
      KeyConditionExpression: '#key = :value',
      ExpressionAttributeNames: { '#key': partitionAttribute },
      ExpressionAttributeValues: { ':value': { S: value } },
    });
  }

  /** All task records: a Scan, for an unfiltered `list` (admin and tests; clients always filter). */
  async #scanTaskRecords(): Promise<Item[]> {
    const items: Item[] = [];
    let startKey: Item | undefined;
    do {
      const page = await this.#client.send(
        new ScanCommand({
          TableName: this.#table,
          FilterExpression: '#sk = :sk',
          ExpressionAttributeNames: { '#sk': SORT_KEY },
          ExpressionAttributeValues: { ':sk': { S: SORT_KEY_VALUE.task } },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        })
      );
      items.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return items;
  }
}

const byTaskId = (a: TaskRecord, b: TaskRecord) =>
  a.task.id < b.task.id ? -1 : a.task.id > b.task.id ? 1 : 0;

/** A transaction holds at most 100 actions: the record plus its membership changes. */
const checkTransactionSize = (taskId: string, membershipChanges: number) => {
  if (membershipChanges > MAX_TRANSACTION_PARTICIPANTS) {
    throw new RangeError(
      `task ${taskId}: ${membershipChanges} participant changes in one write; at most ${MAX_TRANSACTION_PARTICIPANTS}`
    );
  }
};
