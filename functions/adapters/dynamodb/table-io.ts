/**
 * Reads and condition clauses shared by the DynamoDB adapters: the condition expressions (each
 * clause named, with why), error classification, paginated and batched reads.
 */
import {
  BatchGetItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
} from '@aws-sdk/client-dynamodb';
import { type Item, joinData, partKeys } from './item-codec.js';
import { PARTITION_KEY, SORT_KEY, taskPk } from './table.js';

// ---------------------------------------------------------------------------------------------
// Condition clauses. Call sites bind `#pk`, `#version`, `#seq` and the `:` values.

/** create: the task id must be new; a second create of the same id must not overwrite it. */
export const RECORD_ABSENT = 'attribute_not_exists(#pk)';
/** update: optimistic concurrency, the stored version is still the one the caller read. */
export const VERSION_MATCHES = '#version = :expectedVersion';
/** history entries, once values, inbox/event items and markers: put-if-absent, first wins. */
export const ITEM_ABSENT = 'attribute_not_exists(#pk)';
/** a commit that only adds to a task (a message to a running task): the task is still open. */
export const TASK_OPEN =
  'attribute_exists(#pk) AND NOT (#state IN (:completed, :failed, :canceled, :rejected))';
/** ... and no execution is parked on it, so the park sees what the commit adds. */
export const NOT_PARKED = '#parked = :false';
/**
 * park: nothing was enqueued since the turn read the record's inbox count (`#inboxCount`,
 * `:inboxCount`). A record stored by an earlier build has no count until its first enqueue adds
 * one: it reads as 0.
 */
export const inboxCountMatches = (count: number): string =>
  count === 0
    ? '(attribute_not_exists(#inboxCount) OR #inboxCount = :inboxCount)'
    : '#inboxCount = :inboxCount';

// ---------------------------------------------------------------------------------------------
// Errors

const nameOf = (error: unknown): string | undefined =>
  error instanceof Error ? error.name : undefined;

export const isConditionFailed = (error: unknown): boolean =>
  nameOf(error) === 'ConditionalCheckFailedException';

/** The cancellation reason codes of a cancelled transaction; `undefined` for other errors. */
export const cancellationCodes = (error: unknown): (string | undefined)[] | undefined => {
  if (nameOf(error) !== 'TransactionCanceledException') return undefined;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return (reasons ?? []).map((reason) => reason.Code);
};

/**
 * The first item of a refused write as it was stored, when its condition failed and the write
 * asked for it (`ReturnValuesOnConditionCheckFailure: ALL_OLD`): a plain write's, or a
 * transaction's first action's.
 */
export const refusedFirstItem = (error: unknown): Item | undefined => {
  if (nameOf(error) === 'ConditionalCheckFailedException') {
    return (error as { Item?: Item }).Item;
  }
  const reasons = (error as { CancellationReasons?: { Code?: string; Item?: Item }[] })
    .CancellationReasons;
  const first = nameOf(error) === 'TransactionCanceledException' ? reasons?.[0] : undefined;
  return first?.Code === 'ConditionalCheckFailed' ? first.Item : undefined;
};

/**
 * Whether a write was refused only because another transaction held one of its items at the
 * time: no condition of it was found false, so the same write may be sent again as it is.
 */
export const isContendedOnly = (error: unknown): boolean => {
  if (nameOf(error) === 'TransactionConflictException') return true;
  const codes = cancellationCodes(error);
  if (!codes?.includes('TransactionConflict')) return false;
  return codes.every(
    (code) => code === undefined || code === 'None' || code === 'TransactionConflict'
  );
};

// ---------------------------------------------------------------------------------------------
// Reads

/** A consistent Query of one key range of a task's partition (ascending unless told). */
export const taskRangeQuery = (
  tableName: string,
  taskId: string,
  from: string,
  to: string,
  ascending = true
): QueryCommandInput => ({
  TableName: tableName,
  KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
  ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
  ExpressionAttributeValues: {
    ':pk': { S: taskPk(taskId) },
    ':from': { S: from },
    ':to': { S: to },
  },
  ConsistentRead: true,
  ...(ascending ? {} : { ScanIndexForward: false }),
});

/** A consistent Query of the items of a task's partition whose sort key starts with `prefix`. */
export const taskPrefixQuery = (
  tableName: string,
  taskId: string,
  prefix: string
): QueryCommandInput => ({
  TableName: tableName,
  KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
  ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
  ExpressionAttributeValues: { ':pk': { S: taskPk(taskId) }, ':prefix': { S: prefix } },
  ConsistentRead: true,
});

/** Every item of a Query, all pages; or the first `maxItems` (the Query has no filter). */
export const queryAll = async (
  client: DynamoDBClient,
  input: QueryCommandInput,
  maxItems?: number
) => {
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const remaining = maxItems === undefined ? undefined : maxItems - items.length;
    const page = await client.send(
      new QueryCommand({
        ...input,
        ExclusiveStartKey: startKey,
        ...(remaining === undefined ? {} : { Limit: remaining }),
      })
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey && (maxItems === undefined || items.length < maxItems));
  return items;
};

/**
 * A Query's pages, one at a time, for a reader that stops when it has what it needs: `pageSize`
 * items a page, doubling up to `maxPageSize`.
 */
export async function* queryPages(
  client: DynamoDBClient,
  input: QueryCommandInput,
  pageSize: number,
  maxPageSize = 100
): AsyncGenerator<Item[]> {
  let startKey: Item | undefined;
  let limit = pageSize;
  do {
    const page = await client.send(
      new QueryCommand({ ...input, ExclusiveStartKey: startKey, Limit: limit })
    );
    yield page.Items ?? [];
    startKey = page.LastEvaluatedKey;
    limit = Math.min(maxPageSize, limit * 2);
  } while (startKey);
}

/** Every item a Scan returns, all pages. */
export const scanAll = async (client: DynamoDBClient, input: ScanCommandInput) => {
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const page = await client.send(new ScanCommand({ ...input, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
};

const BATCH_GET_LIMIT = 100;

/** Strongly consistent BatchGetItem of any number of keys (chunks, unprocessed keys retried). */
export const batchGetAll = async (
  client: DynamoDBClient,
  tableName: string,
  keys: Item[],
  /** Only these attributes of each item (the keys are always read). */
  projection?: readonly string[]
) => {
  const items: Item[] = [];
  const names = projection === undefined ? [] : [PARTITION_KEY, SORT_KEY, ...projection];
  const projected =
    projection === undefined
      ? {}
      : {
          ProjectionExpression: names.map((_, index) => `#p${index}`).join(', '),
          ExpressionAttributeNames: Object.fromEntries(
            names.map((name, index) => [`#p${index}`, name])
          ),
        };
  for (let start = 0; start < keys.length; start += BATCH_GET_LIMIT) {
    let pending: Item[] = keys.slice(start, start + BATCH_GET_LIMIT);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await backoff(attempt);
      const result = await client.send(
        new BatchGetItemCommand({
          RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true, ...projected } },
        })
      );
      items.push(...(result.Responses?.[tableName] ?? []));
      pending = result.UnprocessedKeys?.[tableName]?.Keys ?? [];
    }
  }
  return items;
};

export const getItem = async (client: DynamoDBClient, tableName: string, itemKey: Item) =>
  (
    await client.send(
      new GetItemCommand({ TableName: tableName, Key: itemKey, ConsistentRead: true })
    )
  ).Item;

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
/** Jittered exponential backoff: ~10, 20, 40 ... ms, capped at 200 ms. */
const backoff = (attempt: number) =>
  sleep(Math.random() * Math.min(200, 10 * 2 ** Math.min(attempt, 5)));

/** Items with their payloads whole: the pieces of a large one read and put back in place. */
export const wholePayloads = async (
  client: DynamoDBClient,
  tableName: string,
  items: Item[]
): Promise<Item[]> => {
  const keys = items.flatMap(partKeys);
  if (keys.length === 0) return items;
  const pieces = new Map(
    (await batchGetAll(client, tableName, keys)).map((piece) => [piece[SORT_KEY]?.S, piece])
  );
  return items.map((item) =>
    joinData(
      item,
      partKeys(item).flatMap((pieceKey) => {
        const piece = pieces.get(pieceKey[SORT_KEY]?.S);
        return piece === undefined ? [] : [piece];
      })
    )
  );
};
