import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { ATTR, PARTITION_KEY, SORT_KEY } from '../dynamodb/table.js';
import { pauseAfterConflict } from '../system/conflict-pause.js';

/**
 * The streams one caller holds open, as leases on one item of the task table:
 * `pk = CALLER#<participantId>`, `sk = STREAMS`, `leases` = lease id → expiry (epoch ms),
 * `version` for optimistic concurrency, and `expires_at` for DynamoDB TTL once the last lease
 * has expired. Neither stream consumer's filter passes it (they want `TASK` and `EVT#` items).
 * A lease expires on its own, so a stream whose instance died never holds a slot for good.
 */
export const CALLER_KEY_PREFIX = 'CALLER#';
export const STREAMS_SORT_KEY = 'STREAMS';

export interface StreamLeases {
  /** Takes a lease if the caller holds fewer than `limit` live ones; false when it does not. */
  acquire(caller: string, leaseId: string, limit: number): Promise<boolean>;
  /** Gives a lease back (idempotent). */
  release(caller: string, leaseId: string): Promise<void>;
}

/**
 * How often a change is tried before it fails. Every stream of a caller changes the same item:
 * streams opening and closing at once (a chat that stops following a task as it sends) race, and
 * each loser reads again after a jittered pause. A release that failed would hold its slot until
 * the lease expires, so the bound is generous.
 */
const MAX_ATTEMPTS = 30;

export class DynamoDbStreamLeases implements StreamLeases {
  readonly #client: DynamoDBClient;
  readonly #tableName: string;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: {
    client: DynamoDBClient;
    tableName: string;
    /** How long a lease lives unless given back: longer than the longest stream. */
    ttlMs: number;
    now?: () => number;
  }) {
    this.#client = options.client;
    this.#tableName = options.tableName;
    this.#ttlMs = options.ttlMs;
    this.#now = options.now ?? Date.now;
  }

  acquire(caller: string, leaseId: string, limit: number): Promise<boolean> {
    return this.#change(caller, (live, now) => {
      if (live.size >= limit) return undefined;
      live.set(leaseId, now + this.#ttlMs);
      return live;
    });
  }

  async release(caller: string, leaseId: string): Promise<void> {
    await this.#change(caller, (live) => (live.delete(leaseId) ? live : undefined));
  }

  /** Read, drop expired leases, apply `change`, write if the item is still as read. */
  async #change(
    caller: string,
    change: (live: Map<string, number>, now: number) => Map<string, number> | undefined
  ): Promise<boolean> {
    const key = {
      [PARTITION_KEY]: { S: `${CALLER_KEY_PREFIX}${caller}` },
      [SORT_KEY]: { S: STREAMS_SORT_KEY },
    };
    for (let attempt = 1; ; attempt++) {
      const now = this.#now();
      const { Item } = await this.#client.send(
        new GetItemCommand({ TableName: this.#tableName, Key: key, ConsistentRead: true })
      );
      const version = Number(Item?.[ATTR.version]?.N ?? 0);
      const live = new Map(
        Object.entries(Item?.leases?.M ?? {})
          .map(([id, value]) => [id, Number(value.N ?? 0)] as const)
          .filter(([, expiry]) => expiry > now)
      );
      const next = change(live, now);
      if (next === undefined) return false;
      const latest = Math.max(now, ...next.values());
      try {
        await this.#client.send(
          new PutItemCommand({
            TableName: this.#tableName,
            Item: {
              ...key,
              leases: {
                M: Object.fromEntries([...next].map(([id, expiry]) => [id, { N: String(expiry) }])),
              },
              [ATTR.version]: { N: String(version + 1) },
              [ATTR.expiresAt]: { N: String(Math.ceil(latest / 1000) + 3600) },
            },
            // Written only over the version read (or where there was none): a concurrent change
            // makes this one read again.
            ConditionExpression: 'attribute_not_exists(#pk) OR #version = :version',
            ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#version': ATTR.version },
            ExpressionAttributeValues: { ':version': { N: String(version) } },
          })
        );
        return true;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException) || attempt >= MAX_ATTEMPTS) {
          throw error;
        }
        await pauseAfterConflict(attempt);
      }
    }
  }
}
