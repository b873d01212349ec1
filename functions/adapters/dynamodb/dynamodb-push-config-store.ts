import {
  DeleteItemCommand,
  type DynamoDBClient,
  PutItemCommand,
  type TransactWriteItem,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import type { PushConfig, PushConfigStore } from '../../core/ports/push-config-store.js';
import type { DynamoDbTableOptions } from './dynamodb-task-store.js';
import {
  decodePushConfig,
  encodePushConfig,
  isStorableTaskId,
  key,
  pushConfigSk,
  taskKey,
} from './item-codec.js';
import { ATTR, KEY_PREFIX, PARTITION_KEY, SORT_KEY, taskPk } from './table.js';
import { cancellationCodes, getItem, queryAll } from './table-io.js';

/**
 * Push-notification configs on the single table (table.ts): one item per config in the task's
 * partition, `sk = PUSH#<configId>`. A put replaces, a delete of nothing succeeds. With the
 * config, its id joins (or leaves) the task record's `push_ids`, in one transaction: the task
 * store marks the events committed while that set exists, and the push function's stream filter
 * passes only those, so a task without a config costs delivery nothing. A config of a task the
 * table does not hold (none the service writes) is stored alone.
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
    await this.#withRecordMark(
      { Put: { TableName: this.#table, Item: item } },
      config.taskId,
      'ADD',
      config.id
    );
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
    await this.#withRecordMark(
      { Delete: { TableName: this.#table, Key: key(taskId, pushConfigSk(configId)) } },
      taskId,
      'DELETE',
      configId
    );
  }

  /** `write`, and the config's id added to or taken from the task record's set, at once. */
  async #withRecordMark(
    write: TransactWriteItem,
    taskId: string,
    action: 'ADD' | 'DELETE',
    configId: string
  ): Promise<void> {
    const mark: TransactWriteItem = {
      Update: {
        TableName: this.#table,
        Key: taskKey(taskId),
        UpdateExpression: `${action} #pushIds :id`,
        ConditionExpression: 'attribute_exists(#pk)',
        ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#pushIds': ATTR.pushIds },
        ExpressionAttributeValues: { ':id': { SS: [configId] } },
      },
    };
    try {
      await this.#client.send(new TransactWriteItemsCommand({ TransactItems: [write, mark] }));
    } catch (error) {
      const codes = cancellationCodes(error);
      if (codes?.[1] !== 'ConditionalCheckFailed' || codes[0] === 'ConditionalCheckFailed') {
        throw error;
      }
      // No such task: the config alone (there are no events to mark).
      if (write.Put !== undefined) await this.#client.send(new PutItemCommand(write.Put));
      if (write.Delete !== undefined) await this.#client.send(new DeleteItemCommand(write.Delete));
    }
  }
}
