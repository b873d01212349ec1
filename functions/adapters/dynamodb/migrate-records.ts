import {
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import { ConcurrencyConflictError, InvalidTaskRecordError } from '../../core/errors.js';
import { DynamoDbTaskStore } from './dynamodb-task-store.js';
import { type Item, readString, taskIdOfKey } from './item-codec.js';
import { ATTR, PARTITION_KEY, SORT_KEY, SORT_KEY_VALUE } from './table.js';
import { withoutParts } from './task-parts.js';

export interface MigrationReport {
  /**
   * Task records an earlier build stored: whole, with a plan or rows to move, or without naming
   * where their log begins (their events and transcript in items of each kind).
   */
  found: number;
  /** Those this run wrote as this build writes them. */
  moved: number;
}

/** What one run of a resumable migration did, and whether the table's scan is at its end. */
export interface MigrationSlice extends MigrationReport {
  done: boolean;
  /** When the run's first call began (ISO 8601): how long its deployment has waited. */
  startedAt: string;
}

/**
 * The item that holds a run's place in the scan, in a partition of its own (no task's key starts
 * so): `pk = MIGRATION`, `sk = <migration>#<run>`. A run is one deployment's migration; a second
 * deployment scans again under its own run id.
 */
const MIGRATION_PK = 'MIGRATION';
const MIGRATION = 'task-record-parts';
const runKey = (run: string): Item => ({
  [PARTITION_KEY]: { S: MIGRATION_PK },
  [SORT_KEY]: { S: `${MIGRATION}#${run}` },
});

/**
 * Whether a record item, read raw, holds a plan or rows in its own JSON; an unreadable one is
 * left to its readers to refuse.
 */
const holdsParts = (item: Item): boolean => {
  try {
    const json: unknown = JSON.parse(readString(item, ATTR.task, 'task'));
    return (
      typeof json === 'object' &&
      json !== null &&
      Object.keys(withoutParts(json as Record<string, unknown>).parts).length > 0
    );
  } catch {
    return false;
  }
};

/** Whether a record item, read raw, is one an earlier build stored (see `MigrationReport`). */
const storedEarlier = (item: Item): boolean =>
  holdsParts(item) || item[ATTR.logEventsFrom] === undefined;

/**
 * Writes one record as this build does, as its next write would: a commit of the record as read,
 * conditioned on its version, which moves its plan and rows into items of their own and names
 * where its log begins. A record written since the scan (its writer did the same), changed
 * meanwhile, or unreadable (its readers refuse it) is left as it is.
 */
const writeAsThisBuild = async (store: DynamoDbTaskStore, item: Item): Promise<boolean> => {
  try {
    const record = await store.get(taskIdOfKey(item));
    if (record === undefined) return false;
    if (record.partsApart !== undefined && record.logFrom !== undefined) return false;
    await store.commit({ kind: 'update', base: record, record });
    return true;
  } catch (error) {
    if (error instanceof ConcurrencyConflictError || error instanceof InvalidTaskRecordError) {
      return false;
    }
    throw error;
  }
};

/**
 * The scan of task records an earlier build stored (no `parts_apart`, or no `log_evt0`), one page
 * at a time.
 */
const earlierRecordsScan = (tableName: string, startKey: Item | undefined, pageSize?: number) =>
  new ScanCommand({
    ...(pageSize === undefined ? {} : { Limit: pageSize }),
    TableName: tableName,
    FilterExpression: '#sk = :sk AND (attribute_not_exists(#apart) OR attribute_not_exists(#evt0))',
    ExpressionAttributeNames: {
      '#sk': SORT_KEY,
      '#apart': ATTR.partsApart,
      '#evt0': ATTR.logEventsFrom,
    },
    ExpressionAttributeValues: { ':sk': { S: SORT_KEY_VALUE.task } },
    ConsistentRead: true,
    ExclusiveStartKey: startKey,
  });

/**
 * Scans on from `startKey` a page at a time, writing each record of a page an earlier build
 * stored as this build does, while there is more and `goOn()` (asked after each page, once
 * `afterPage` has kept the counts so far and the next page's key). The counts add to `report`.
 */
const migratePages = async (
  client: DynamoDBClient,
  tableName: string,
  from: { startKey: Item | undefined; report: MigrationReport },
  options: {
    goOn: () => boolean;
    pageSize?: number | undefined;
    afterPage?: (report: MigrationReport, next: Item | undefined) => Promise<unknown>;
  }
): Promise<{ report: MigrationReport; next: Item | undefined }> => {
  const store = new DynamoDbTaskStore({ client, tableName });
  const report = { ...from.report };
  let next = from.startKey;
  do {
    const page = await client.send(earlierRecordsScan(tableName, next, options.pageSize));
    const earlier = (page.Items ?? []).filter(storedEarlier);
    report.found += earlier.length;
    for (const item of earlier) if (await writeAsThisBuild(store, item)) report.moved++;
    next = page.LastEvaluatedKey;
    await options.afterPage?.(report, next);
  } while (next !== undefined && options.goOn());
  return { report, next };
};

/**
 * Writes every task record an earlier build stored as this build does (its plan and rows in
 * items of their own, where its log begins named), as the record's next write would (idempotent:
 * a second run finds nothing). A record a turn changed meanwhile is left for that turn's write,
 * which does the same. `npm start` runs it on its data directory before serving.
 */
export const migrateTaskRecords = async (
  client: DynamoDBClient,
  tableName: string
): Promise<MigrationReport> =>
  (
    await migratePages(
      client,
      tableName,
      { startKey: undefined, report: { found: 0, moved: 0 } },
      { goOn: () => true }
    )
  ).report;

/**
 * The same migration, resumable: a deployment's run (`run`, the same for every call of one
 * deployment) scans from where its last call stopped, a page at a time while `hasTime()`, and
 * keeps its place and its counts in the table after every page. A call after the end finds the
 * run done and scans nothing. The cloud's deployment calls it until it is done (cdk/constructs/
 * record-migration.ts), each call within one Lambda invocation's time.
 */
export const migrateTaskRecordsResumably = async (
  client: DynamoDBClient,
  tableName: string,
  run: string,
  hasTime: () => boolean,
  /** Items a page evaluates (tests take small pages); DynamoDB's 1 MB page when unset. */
  pageSize?: number,
  now: () => Date = () => new Date()
): Promise<MigrationSlice> => {
  const stored = (
    await client.send(
      new GetItemCommand({ TableName: tableName, Key: runKey(run), ConsistentRead: true })
    )
  ).Item;
  const soFar = { found: Number(stored?.found?.N ?? 0), moved: Number(stored?.moved?.N ?? 0) };
  const startedAt = stored?.started_at?.S ?? now().toISOString();
  if (stored?.done?.BOOL === true) return { ...soFar, done: true, startedAt };
  const { report, next } = await migratePages(
    client,
    tableName,
    {
      startKey: stored?.cursor?.S === undefined ? undefined : (JSON.parse(stored.cursor.S) as Item),
      report: soFar,
    },
    {
      goOn: hasTime,
      pageSize,
      afterPage: (counts, after) =>
        client.send(
          new PutItemCommand({
            TableName: tableName,
            Item: {
              ...runKey(run),
              found: { N: String(counts.found) },
              moved: { N: String(counts.moved) },
              done: { BOOL: after === undefined },
              started_at: { S: startedAt },
              ...(after === undefined ? {} : { cursor: { S: JSON.stringify(after) } }),
            },
          })
        ),
    }
  );
  return { ...report, done: next === undefined, startedAt };
};
