import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { EventLog, LoggedEvent } from '../../core/ports/event-log.js';
import type { DynamoDbTableOptions } from './dynamodb-task-store.js';
import { decodeEventSeq, isStorableTaskId, logOriginOf, taskKey } from './item-codec.js';
import { LogOrigins, readLoggedEvents } from './log-reads.js';
import { ATTR } from './table.js';

/**
 * The per-task event log on the single table: the events of the task store's log items (and of an
 * earlier build's `EVT#<seq>` items), written by its commits together with the change they
 * report; the record's `evt_seq` names the newest.
 */
export class DynamoDbEventLog implements EventLog {
  readonly #options: DynamoDbTableOptions;
  readonly #origins = new LogOrigins();

  constructor(options: DynamoDbTableOptions) {
    this.#options = options;
  }

  async read(taskId: string, afterSeq = 0, limit?: number): Promise<LoggedEvent[]> {
    if (!isStorableTaskId(taskId)) return [];
    const { client, tableName } = this.#options;
    const origin = await this.#origins.of(client, tableName, taskId);
    return readLoggedEvents(client, tableName, taskId, { afterSeq, limit, origin });
  }

  async lastSeq(taskId: string): Promise<number> {
    if (!isStorableTaskId(taskId)) return 0;
    const { Item: item } = await this.#options.client.send(
      new GetItemCommand({
        TableName: this.#options.tableName,
        Key: taskKey(taskId),
        ConsistentRead: true,
        ProjectionExpression: '#seq, #evt0, #hseq0',
        ExpressionAttributeNames: {
          '#seq': ATTR.eventSeq,
          '#evt0': ATTR.logEventsFrom,
          '#hseq0': ATTR.logHistoryFrom,
        },
      })
    );
    if (item === undefined) return 0;
    // A reader asks where the log ends before it reads it: the origin comes with the answer.
    this.#origins.note(taskId, logOriginOf(item));
    return decodeEventSeq(item);
  }
}
