import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ATTR, KEY_PREFIX } from '../dynamodb/table.js';
import { wholePayloads } from '../dynamodb/table-io.js';
import { queryTaskItems } from './partition-query.js';

/**
 * Every record of a task (the put-once values: model responses, tool invocations, compactions,
 * intake's audit rows), by key, in one paged Query of the task's partition. The port reads them
 * one key at a time; an auditor needs all of them, including the refusals nobody else names.
 */
export class DynamoDbTaskRecords {
  readonly #client: DynamoDBClient;
  readonly #tableName: string;

  constructor(options: { client: DynamoDBClient; tableName: string }) {
    this.#client = options.client;
    this.#tableName = options.tableName;
  }

  async all(taskId: string): Promise<Map<string, unknown>> {
    const records = new Map<string, unknown>();
    const items = await queryTaskItems(this.#client, this.#tableName, taskId, KEY_PREFIX.once);
    // A record too large for one item is stored in pieces: read whole.
    for (const item of await wholePayloads(this.#client, this.#tableName, items)) {
      const key = item[ATTR.key]?.S;
      const data = item[ATTR.data]?.S;
      if (key !== undefined && data !== undefined) records.set(key, JSON.parse(data));
    }
    return records;
  }
}
