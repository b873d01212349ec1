import type { EventLog, LoggedEvent, TaskEvent } from '../../core/ports/event-log.js';
import type { DynamoDbTableOptions } from './dynamodb-task-store.js';
import {
  decodeCounter,
  decodeEvent,
  encodeEvent,
  eventKeySk,
  eventSk,
  firstSeqAfter,
  isStorableTaskId,
  key,
  markerItem,
} from './item-codec.js';
import { appendSequenced, getItem, queryAll } from './sequenced-append.js';
import { ITEM_TYPE, MAX_SEQ, PARTITION_KEY, SORT_KEY, SORT_KEY_VALUE, taskPk } from './table.js';

/**
 * The per-task event log on the single table: `EVT#<seq>` items after an `EVTSEQ` counter, keyed
 * appends deduplicated by an `EVTKEY#<key>` marker, all written in one conditional transaction
 * (see `appendSequenced` for why that keeps the log gap-free for readers tailing it).
 */
export class DynamoDbEventLog implements EventLog {
  readonly #options: DynamoDbTableOptions;

  constructor(options: DynamoDbTableOptions) {
    this.#options = options;
  }

  async append(taskId: string, event: TaskEvent, key?: string): Promise<number> {
    // Encode once up front: an event that would not read back is refused before any write.
    encodeEvent(taskId, 1, event);
    const markerSk = key === undefined ? undefined : eventKeySk(key);
    const { seq } = await appendSequenced({
      client: this.#options.client,
      tableName: this.#options.tableName,
      taskId,
      counterSk: SORT_KEY_VALUE.eventCounter,
      itemAt: (next) => encodeEvent(taskId, next, event),
      marker:
        key === undefined || markerSk === undefined
          ? undefined
          : {
              sk: markerSk,
              itemAt: (next) => markerItem(taskId, markerSk, ITEM_TYPE.eventKey, key, next),
            },
    });
    return seq;
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
    const { client, tableName } = this.#options;
    const counter = await getItem(client, tableName, key(taskId, SORT_KEY_VALUE.eventCounter));
    return decodeCounter(counter, 'event-log counter');
  }
}
