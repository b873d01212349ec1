import { DeleteItemCommand, type DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { InvalidTaskRecordError } from '../../core/errors.js';
import {
  type PushConfig,
  PushConfigSchema,
  type PushConfigStore,
} from '../../core/ports/push-config-store.js';
import type { DynamoDbTableOptions } from './dynamodb-task-store.js';
import {
  type Item,
  type ItemImage,
  isStorableTaskId,
  key,
  keyPart,
  toJsonText,
} from './item-codec.js';
import { getItem, queryAll } from './sequenced-append.js';
import { ATTR, ITEM_TYPE, KEY_PREFIX, PARTITION_KEY, SORT_KEY, taskPk } from './table.js';

const pushConfigSk = (configId: string) => `${KEY_PREFIX.pushConfig}${keyPart(configId)}`;

const encode = (config: PushConfig): Item => ({
  ...key(config.taskId, pushConfigSk(config.id)),
  [ATTR.type]: { S: ITEM_TYPE.pushConfig },
  [ATTR.taskId]: { S: config.taskId },
  [ATTR.key]: { S: config.id },
  [ATTR.data]: { S: toJsonText(config) },
});

/** A stored config is untrusted input: it must parse, and be the one its key names. */
const decode = (image: ItemImage, taskId: string): PushConfig => {
  let json: unknown;
  try {
    json = JSON.parse(image[ATTR.data]?.S ?? '');
  } catch (error) {
    throw new InvalidTaskRecordError('stored push config is not JSON', { cause: error });
  }
  const parsed = PushConfigSchema.safeParse(json);
  if (!parsed.success) {
    throw new InvalidTaskRecordError(
      `stored push config is invalid: ${z.prettifyError(parsed.error)}`,
      { cause: parsed.error }
    );
  }
  if (parsed.data.taskId !== taskId || image[ATTR.key]?.S !== parsed.data.id) {
    throw new InvalidTaskRecordError('stored push config is not under its own key');
  }
  return parsed.data;
};

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
    const item = encode(PushConfigSchema.parse(config));
    await this.#client.send(new PutItemCommand({ TableName: this.#table, Item: item }));
    return decode(item, config.taskId);
  }

  async get(taskId: string, configId: string): Promise<PushConfig | undefined> {
    if (!isStorableTaskId(taskId)) return undefined;
    const item = await getItem(this.#client, this.#table, key(taskId, pushConfigSk(configId)));
    return item === undefined ? undefined : decode(item, taskId);
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
      .map((item) => decode(item, taskId))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async delete(taskId: string, configId: string): Promise<void> {
    if (!isStorableTaskId(taskId)) return;
    await this.#client.send(
      new DeleteItemCommand({ TableName: this.#table, Key: key(taskId, pushConfigSk(configId)) })
    );
  }
}
