import { DeleteItemCommand, type DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { PushConfig, PushConfigStore } from '../../core/ports/push-config-store.js';
import type { DynamoDbTableOptions } from './dynamodb-task-store.js';
import {
  decodePushConfig,
  encodePushConfig,
  isStorableTaskId,
  key,
  pushConfigSk,
} from './item-codec.js';
import { KEY_PREFIX, PARTITION_KEY, SORT_KEY, taskPk } from './table.js';
import { getItem, queryAll } from './table-io.js';

/**
 * Push-notification configs on the single table (table.ts): one item per config in the task's
 * partition, `sk = PUSH#<configId>`. A put replaces, a delete of nothing succeeds: neither races
 * anything that needs a condition, so both are plain writes.
 */
export class DynamoDbPushConfigStore implements PushConfigStore {
  readonly #client: DynamoDBClient;
  readonly #table: string;

  constructor(options: DynamoDbTableOptions) {
    this.#client = options.client;
    this.#table = options.tableName;
  }

  async put(config: PushConfig): Promise<PushConfig> {
    const item = encodePushConfig(config);
    await this.#client.send(new PutItemCommand({ TableName: this.#table, Item: item }));
    return decodePushConfig(item, config.taskId);
  }

  async get(taskId: string, configId: string): Promise<PushConfig | undefined> {
    if (!isStorableTaskId(taskId)) return undefined;
    const item = await getItem(this.#client, this.#table, key(taskId, pushConfigSk(configId)));
    return item === undefined ? undefined : decodePushConfig(item, taskId);
  }

  async list(taskId: string): Promise<PushConfig[]> {
    if (!isStorableTaskId(taskId)) return [];
    const items = await queryAll(this.#client, {
      TableName: this.#table,
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
      ExpressionAttributeValues: {
        ':pk': { S: taskPk(taskId) },
        ':prefix': { S: KEY_PREFIX.pushConfig },
      },
      ConsistentRead: true,
    });
    // Sort keys order hashed (long) ids apart from the rest: order by the id itself.
    return items
      .map((item) => decodePushConfig(item, taskId))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async delete(taskId: string, configId: string): Promise<void> {
    if (!isStorableTaskId(taskId)) return;
    await this.#client.send(
      new DeleteItemCommand({ TableName: this.#table, Key: key(taskId, pushConfigSk(configId)) })
    );
  }
}
