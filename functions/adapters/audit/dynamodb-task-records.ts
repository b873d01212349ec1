import { type AttributeValue, type DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { ATTR, KEY_PREFIX, PARTITION_KEY, SORT_KEY, taskPk } from '../dynamodb/table.js';

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
    let startKey: Record<string, AttributeValue> | undefined;
    do {
      const page = await this.#client.send(
        new QueryCommand({
          TableName: this.#tableName,
          KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
          ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
          ExpressionAttributeValues: {
            ':pk': { S: taskPk(taskId) },
            ':prefix': { S: KEY_PREFIX.once },
          },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        })
      );
      for (const item of page.Items ?? []) {
        const key = item[ATTR.key]?.S;
        const data = item[ATTR.data]?.S;
        if (key !== undefined && data !== undefined) records.set(key, JSON.parse(data));
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return records;
  }
}
