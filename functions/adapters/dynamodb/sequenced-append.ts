/**
 * Conditional-write helpers shared by the DynamoDB task store and event log: the condition
 * expressions (each clause named, with why), error classification, paginated reads, and the
 * sequenced append behind `enqueue` and `EventLog.append`.
 */
import {
  BatchGetItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  type QueryCommandInput,
  type TransactWriteItem,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { ConcurrencyConflictError } from '../../core/errors.js';
import { decodeCounter, decodeMarkerSeq, type Item, key } from './item-codec.js';
import { ATTR, PARTITION_KEY } from './table.js';

// ---------------------------------------------------------------------------------------------
// Condition clauses. Call sites bind `#pk`, `#version`, `#seq` and the `:` values.

/** create: the task id must be new; a second create of the same id must not overwrite it. */
export const RECORD_ABSENT = 'attribute_not_exists(#pk)';
/** update: optimistic concurrency, the stored version is still the one the caller read. */
export const VERSION_MATCHES = '#version = :expectedVersion';
/** history entries, once values, inbox/event items and markers: put-if-absent, first wins. */
export const ITEM_ABSENT = 'attribute_not_exists(#pk)';
/** first append of a task: nobody created the counter since we read it as absent. */
export const COUNTER_ABSENT = 'attribute_not_exists(#seq)';
/** later appends: nobody took the next seq since we read the counter. */
export const COUNTER_UNCHANGED = '#seq = :expectedSeq';

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

const CONTENTION_CODES = new Set(['ConditionalCheckFailed', 'TransactionConflict']);

// ---------------------------------------------------------------------------------------------
// Reads

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

const BATCH_GET_LIMIT = 100;

/** Strongly consistent BatchGetItem of any number of keys (chunks, unprocessed keys retried). */
export const batchGetAll = async (client: DynamoDBClient, tableName: string, keys: Item[]) => {
  const items: Item[] = [];
  for (let start = 0; start < keys.length; start += BATCH_GET_LIMIT) {
    let pending: Item[] = keys.slice(start, start + BATCH_GET_LIMIT);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await backoff(attempt);
      const result = await client.send(
        new BatchGetItemCommand({
          RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true } },
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

// ---------------------------------------------------------------------------------------------
// Sequenced append

export interface SequencedAppend {
  client: DynamoDBClient;
  tableName: string;
  taskId: string;
  /** Sort key of the task's counter item for this sequence. */
  counterSk: string;
  /** The item to write at `seq`. */
  itemAt: (seq: number) => Item;
  /** Dedup marker: an append whose marker exists returns the marker's seq and writes nothing. */
  marker?: { sk: string; itemAt: (seq: number) => Item } | undefined;
}

const MAX_ATTEMPTS = 25;

/**
 * Appends one item at the next seq of a per-task sequence, deduplicated by an optional marker.
 *
 * The seq comes from a counter item, advanced with `ADD #seq :one`, but the ADD runs in ONE
 * transaction with the item's put and the marker's put, conditioned on the counter still holding
 * the value we read. Why not the simpler "ADD the counter, then put the marker, then the item":
 *
 * - Gaps and reordering. Readers keep a cursor (the loop's `inboxCursor`, an SSE subscriber's
 *   last event seq) and read `seq > cursor`. With separate writes, appender A could take seq 5,
 *   B seq 6, and B's item land first; a reader then moves its cursor to 6 and never sees 5. A
 *   crash between the ADD and the put leaves a hole forever. In one conditional transaction an
 *   item becomes visible together with the counter that names it, and seq N+1 can only be taken
 *   by someone who read the counter at N, that is after item N was committed: readers always see
 *   a gap-free prefix.
 * - Retries. With separate writes a crash after the marker but before the item leaves a marker
 *   whose item is missing, so the retry must detect that and re-write the item (else the message
 *   is silently lost, reported as a duplicate). Here the marker and the item commit or fail
 *   together, so a marker always has its item: a retry of a committed append finds the marker
 *   and returns its seq (`duplicate: true`); a retry of a failed one finds nothing and appends.
 *   (The SDK's own retries of the transaction reuse its idempotency token, so a lost response
 *   does not apply it twice.) So a duplicate whose item is missing cannot arise from a crash or
 *   a retry; it could only come from a deletion, and then re-writing the item would be wrong: it
 *   would re-deliver, behind every reader's cursor, something already consumed. Should items
 *   ever get a TTL, their markers must outlive them.
 *
 * Concurrent appenders race on the counter condition; the losers re-read and try the next seq
 * (jittered backoff). After MAX_ATTEMPTS the append fails with the retryable
 * `ConcurrencyConflictError`.
 */
export const appendSequenced = async (
  append: SequencedAppend
): Promise<{ seq: number; duplicate: boolean }> => {
  const { client, tableName, taskId, counterSk, marker } = append;
  const counterKey = key(taskId, counterSk);
  const markerKey = marker ? key(taskId, marker.sk) : undefined;

  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (attempt > 0) await backoff(attempt);
    const [markerItem, counterItem] = await Promise.all([
      markerKey ? getItem(client, tableName, markerKey) : undefined,
      getItem(client, tableName, counterKey),
    ]);
    if (markerItem) return { seq: decodeMarkerSeq(markerItem, 'dedup marker'), duplicate: true };
    const last = decodeCounter(counterItem, 'sequence counter');
    const seq = last + 1;

    const items: TransactWriteItem[] = [
      {
        Update: {
          TableName: tableName,
          Key: counterKey,
          UpdateExpression: 'ADD #seq :one',
          ConditionExpression: last === 0 ? COUNTER_ABSENT : COUNTER_UNCHANGED,
          ExpressionAttributeNames: { '#seq': ATTR.seq },
          ExpressionAttributeValues: {
            ':one': { N: '1' },
            ...(last === 0 ? {} : { ':expectedSeq': { N: String(last) } }),
          },
        },
      },
      {
        Put: {
          TableName: tableName,
          Item: append.itemAt(seq),
          ConditionExpression: ITEM_ABSENT,
          ExpressionAttributeNames: { '#pk': PARTITION_KEY },
        },
      },
    ];
    if (marker) {
      items.push({
        Put: {
          TableName: tableName,
          Item: marker.itemAt(seq),
          ConditionExpression: ITEM_ABSENT,
          ExpressionAttributeNames: { '#pk': PARTITION_KEY },
        },
      });
    }
    try {
      await client.send(new TransactWriteItemsCommand({ TransactItems: items }));
      return { seq, duplicate: false };
    } catch (error) {
      const codes = cancellationCodes(error);
      const contended =
        (codes?.some((code) => code !== undefined && CONTENTION_CODES.has(code)) ?? false) ||
        nameOf(error) === 'TransactionConflictException';
      if (!contended) throw error;
      // Someone else appended (or wrote our marker) first: re-read and go again.
    }
  }
  throw new ConcurrencyConflictError(
    `task ${taskId}: could not take the next seq of ${counterSk} after ${MAX_ATTEMPTS} attempts`
  );
};
