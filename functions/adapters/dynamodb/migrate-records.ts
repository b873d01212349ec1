import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ConcurrencyConflictError, InvalidTaskRecordError } from '../../core/errors.js';
import { DynamoDbTaskStore } from './dynamodb-task-store.js';
import { type Item, readString, taskIdOfKey } from './item-codec.js';
import { ATTR, SORT_KEY, SORT_KEY_VALUE } from './table.js';
import { scanAll } from './table-io.js';
import { withoutParts } from './task-parts.js';

export interface MigrationReport {
  /** Task records an earlier build stored whole, with a plan or rows to move. */
  found: number;
  /** Those whose plan and rows this run moved into items of their own. */
  moved: number;
}

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

/**
 * Moves the plan and the rows of every task record an earlier build stored whole into items of
 * their own, as the record's next write would (idempotent: a second run finds nothing). Each is a
 * commit of the record as read, conditioned on its version: a record a turn changed meanwhile is
 * left for that turn's write, which moves its parts too. `npm start` runs it on its data directory
 * before serving; in the cloud, records move at their next write.
 */
export const migrateTaskRecords = async (
  client: DynamoDBClient,
  tableName: string
): Promise<MigrationReport> => {
  const store = new DynamoDbTaskStore({ client, tableName });
  const items = await scanAll(client, {
    TableName: tableName,
    FilterExpression: '#sk = :sk AND attribute_not_exists(#apart)',
    ExpressionAttributeNames: { '#sk': SORT_KEY, '#apart': ATTR.partsApart },
    ExpressionAttributeValues: { ':sk': { S: SORT_KEY_VALUE.task } },
    ConsistentRead: true,
  });
  const whole = items.filter(holdsParts);
  let moved = 0;
  for (const item of whole) {
    try {
      // A record written since the scan keeps its parts apart already.
      const record = await store.get(taskIdOfKey(item));
      if (record === undefined || record.partsApart !== undefined) continue;
      await store.commit({ kind: 'update', base: record, record });
      moved++;
    } catch (error) {
      // Changed meanwhile (its writer moves its parts), or unreadable (its readers refuse it).
      if (error instanceof ConcurrencyConflictError || error instanceof InvalidTaskRecordError)
        continue;
      throw error;
    }
  }
  return { found: whole.length, moved };
};
