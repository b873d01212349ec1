import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable } from '../../functions/adapters/dynamodb/create-table.js';
import { DynamoDbStreamLeases } from '../../functions/adapters/streams/dynamodb-stream-leases.js';
import {
  type DynamoDbLocal,
  localDynamoDbClientConfig,
  startDynamoDbLocal,
} from '../../functions/local/dynamodb-local.js';

let local: DynamoDbLocal;
let client: DynamoDBClient;
let tableName: string;

beforeAll(async () => {
  local = await startDynamoDbLocal();
  client = new DynamoDBClient(localDynamoDbClientConfig(local.endpoint));
  tableName = `leases-${randomUUID()}`;
  await createTable(client, tableName);
}, 120_000);

afterAll(async () => {
  client?.destroy();
  await local?.stop();
});

describe('stream leases on DynamoDB Local', () => {
  it('grants exactly the limit when many streams open at once', async () => {
    const leases = new DynamoDbStreamLeases({ client, tableName, ttlMs: 60_000 });
    const granted = await Promise.all(
      Array.from({ length: 10 }, (_, i) => leases.acquire('alice', `lease-${i}`, 3))
    );
    expect(granted.filter(Boolean)).toHaveLength(3);
    // Another caller has slots of their own.
    expect(await leases.acquire('bob', 'lease-b', 3)).toBe(true);
  });

  it('gives a slot back on release, idempotently', async () => {
    const leases = new DynamoDbStreamLeases({ client, tableName, ttlMs: 60_000 });
    expect(await leases.acquire('carol', 'one', 1)).toBe(true);
    expect(await leases.acquire('carol', 'two', 1)).toBe(false);
    await leases.release('carol', 'one');
    await leases.release('carol', 'one');
    expect(await leases.acquire('carol', 'two', 1)).toBe(true);
  });

  it('loses no release to a race: many streams closing at once all give their slots back', async () => {
    const leases = new DynamoDbStreamLeases({ client, tableName, ttlMs: 60_000 });
    const ids = Array.from({ length: 20 }, (_, i) => `lease-${i}`);
    expect(await Promise.all(ids.map((id) => leases.acquire('erin', id, 20)))).toEqual(
      ids.map(() => true)
    );
    await Promise.all(ids.map((id) => leases.release('erin', id)));
    expect(await Promise.all(ids.map((id) => leases.acquire('erin', `${id}-again`, 20)))).toEqual(
      ids.map(() => true)
    );
  });

  it('does not count a lease past its expiry (a stream whose instance died)', async () => {
    let now = 1_000_000;
    const leases = new DynamoDbStreamLeases({ client, tableName, ttlMs: 900_000, now: () => now });
    expect(await leases.acquire('dave', 'lost', 1)).toBe(true);
    expect(await leases.acquire('dave', 'next', 1)).toBe(false);
    now += 900_001;
    expect(await leases.acquire('dave', 'next', 1)).toBe(true);
  });
});
