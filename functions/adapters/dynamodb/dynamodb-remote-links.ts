import { type DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { ConcurrencyConflictError } from '../../core/errors.js';
import type { RemoteLinks } from '../../core/ports/remote-links.js';
import type { RemoteLink } from '../../core/remote/remote-link.js';
import type { DynamoDbTableOptions } from './dynamodb-task-store.js';
import {
  decodeRemoteLink,
  encodeRemoteLink,
  isStorableTaskId,
  key,
  remoteLinkSk,
} from './item-codec.js';
import { ATTR, KEY_PREFIX, PARTITION_KEY, SORT_KEY, taskPk } from './table.js';
import { getItem, ITEM_ABSENT, isConditionFailed, queryAll, VERSION_MATCHES } from './table-io.js';

/**
 * The links of children on remote agents on the single table (table.ts): one item per child in
 * its parent's partition, `sk = REMOTE#<linkId>`, put once and then updated conditioned on its
 * version, so two followers (a push and a poll) never undo each other's news.
 */
export class DynamoDbRemoteLinks implements RemoteLinks {
  readonly #client: DynamoDBClient;
  readonly #table: string;

  constructor(options: DynamoDbTableOptions) {
    this.#client = options.client;
    this.#table = options.tableName;
  }

  async create(link: RemoteLink): Promise<RemoteLink> {
    try {
      await this.#client.send(
        new PutItemCommand({
          TableName: this.#table,
          Item: encodeRemoteLink(link),
          ConditionExpression: ITEM_ABSENT,
          ExpressionAttributeNames: { '#pk': PARTITION_KEY },
        })
      );
      return structuredClone(link);
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
      const existing = await this.get(link.parentId, link.linkId);
      if (existing === undefined) throw error;
      return existing;
    }
  }

  async update(next: RemoteLink): Promise<RemoteLink> {
    try {
      await this.#client.send(
        new PutItemCommand({
          TableName: this.#table,
          Item: encodeRemoteLink(next),
          ConditionExpression: VERSION_MATCHES,
          ExpressionAttributeNames: { '#version': ATTR.version },
          ExpressionAttributeValues: { ':expectedVersion': { N: String(next.version - 1) } },
        })
      );
      return structuredClone(next);
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
      throw new ConcurrencyConflictError(
        `remote link ${next.linkId} of ${next.parentId} changed since it was read`
      );
    }
  }

  async get(parentId: string, linkId: string): Promise<RemoteLink | undefined> {
    if (!isStorableTaskId(parentId)) return undefined;
    const item = await getItem(this.#client, this.#table, key(parentId, remoteLinkSk(linkId)));
    return item === undefined ? undefined : decodeRemoteLink(item, parentId);
  }

  async list(parentId: string): Promise<RemoteLink[]> {
    if (!isStorableTaskId(parentId)) return [];
    const items = await queryAll(this.#client, {
      TableName: this.#table,
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
      ExpressionAttributeValues: {
        ':pk': { S: taskPk(parentId) },
        ':prefix': { S: KEY_PREFIX.remoteLink },
      },
      ConsistentRead: true,
    });
    return items.map((item) => decodeRemoteLink(item, parentId));
  }
}
