import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { EventLog, LoggedEvent } from '../../core/ports/event-log.js';
import type { DynamoDbTableOptions } from './dynamodb-task-store.js';
import {
  decodeEvent,
  decodeEventSeq,
  eventSk,
  firstSeqAfter,
  isStorableTaskId,
  taskKey,
} from './item-codec.js';
import { ATTR, MAX_SEQ, PARTITION_KEY, SORT_KEY, taskPk } from './table.js';
import { queryAll } from './table-io.js';

/**
 * The per-task event log on the single table: `EVT#<seq>` items, written by the task store's
 * commits together with the change they report; the record's `evt_seq` names the newest.
 */
export class DynamoDbEventLog implements EventLog {
  readonly #options: DynamoDbTableOptions;

  constructor(options: DynamoDbTableOptions) {
    this.#options = options;
  }

  async read(taskId: string, afterSeq = 0, limit?: number): Promise<LoggedEvent[]> {
    const first = firstSeqAfter(afterSeq);
    if (first === undefined || !isStorableTaskId(taskId)) return [];
    const items = await queryAll(
      this.#options.client,
      {
        TableName: this.#options.tableName,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
        ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
        ExpressionAttributeValues: {
          ':pk': { S: taskPk(taskId) },
          ':from': { S: eventSk(first) },
          ':to': { S: eventSk(MAX_SEQ) },
        },
        ConsistentRead: true,
      },
      limit
    );
    return items.map(decodeEvent);
  }

  async lastSeq(taskId: string): Promise<number> {
    if (!isStorableTaskId(taskId)) return 0;
    const { Item: item } = await this.#options.client.send(
      new GetItemCommand({
        TableName: this.#options.tableName,
        Key: taskKey(taskId),
        ConsistentRead: true,
        ProjectionExpression: '#seq',
        ExpressionAttributeNames: { '#seq': ATTR.eventSeq },
      })
    );
    return item === undefined ? 0 : decodeEventSeq(item);
  }
}
