import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { readAuditRecords } from '../dynamodb/log-reads.js';

/**
 * Every record of a task (the put-once values: model responses, tool invocations, compactions,
 * intake's audit rows), by key: its commits' log items and the items of records written on their
 * own. The port reads them one key at a time; an auditor needs all of them, including the
 * refusals nobody else names.
 */
export class DynamoDbTaskRecords {
  readonly #client: DynamoDBClient;
  readonly #tableName: string;

  constructor(options: { client: DynamoDBClient; tableName: string }) {
    this.#client = options.client;
    this.#tableName = options.tableName;
  }

  all(taskId: string): Promise<Map<string, unknown>> {
    return readAuditRecords(this.#client, this.#tableName, taskId);
  }
}
