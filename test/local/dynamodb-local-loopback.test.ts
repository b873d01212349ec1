/**
 * DynamoDB Local as `npm start` runs it (functions/local/dynamodb-local.ts): on 127.0.0.1 only,
 * answering only to its own Host, at the secret path of its endpoint. Anyone on the network, a
 * DNS-rebinding page, or another user of this machine without the secret reads and writes
 * nothing.
 */
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DynamoDBClient,
  ListTablesCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DynamoDbLocal,
  localDynamoDbClientConfig,
  startDynamoDbLocal,
} from '../../functions/local/dynamodb-local.js';
import { rawRequest } from './raw-http.js';

/** Whether a TCP connection to address:port is accepted (within 2 s). */
const accepts = (address: string, port: number): Promise<boolean> =>
  new Promise((done) => {
    const socket = connect({ host: address, port, timeout: 2_000 });
    const end = (accepted: boolean) => {
      socket.destroy();
      done(accepted);
    };
    socket.once('connect', () => end(true));
    socket.once('error', () => end(false));
    socket.once('timeout', () => end(false));
  });

/** This machine's IPv4 addresses other than loopback. */
const nonLoopbackIpv4 = (): string[] =>
  Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => entry.family === 'IPv4' && !entry.internal)
    .map((entry) => entry.address);

/** A request to DynamoDB Local with the Host and path the test says. */
const call = (
  local: DynamoDbLocal,
  path: string,
  target: string,
  body: unknown,
  host = `127.0.0.1:${local.port}`
) =>
  rawRequest(local.port, {
    path,
    method: 'POST',
    headers: {
      Host: host,
      'Content-Type': 'application/x-amz-json-1.0',
      'X-Amz-Target': `DynamoDB_20120810.${target}`,
      // DynamoDB Local wants a signature's shape, never checks it.
      Authorization:
        'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
    },
    body: JSON.stringify(body),
  });

const TABLE = {
  TableName: 'intruder',
  KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
  AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
  BillingMode: 'PAY_PER_REQUEST',
} satisfies CreateTableCommandInput;

describe('DynamoDB Local under npm start', () => {
  let local: DynamoDbLocal;
  let client: DynamoDBClient;

  beforeAll(async () => {
    local = await startDynamoDbLocal();
    client = new DynamoDBClient(localDynamoDbClientConfig(local.endpoint));
  });
  afterAll(async () => {
    client?.destroy();
    await local?.stop();
  });

  const tables = async () => (await client.send(new ListTablesCommand({}))).TableNames;

  it('listens on 127.0.0.1 only: not reachable on any other address of this machine', async (context) => {
    const addresses = nonLoopbackIpv4();
    if (addresses.length === 0) {
      context.skip('this machine has no IPv4 address but loopback to try');
      return;
    }
    expect(await accepts('127.0.0.1', local.port)).toBe(true);
    for (const address of addresses) {
      expect(await accepts(address, local.port), `${address}:${local.port}`).toBe(false);
    }
  });

  it('answers its endpoint, whose path is a secret of this run', async () => {
    const endpoint = new URL(local.endpoint);
    expect(endpoint.hostname).toBe('127.0.0.1');
    expect(endpoint.pathname).toMatch(/^\/[A-Za-z0-9_-]{32}$/);
    expect(await tables()).toEqual([]);
  });

  it('refuses a request without the secret (403), and does nothing', async () => {
    for (const path of ['/', '/guess', `${new URL(local.endpoint).pathname}x`]) {
      const refused = await call(local, path, 'CreateTable', TABLE);
      expect(refused.status, path).toBe(403);
      expect(JSON.parse(refused.body)).toMatchObject({
        __type: 'com.amazonaws.dynamodb.v20120810#AccessDeniedException',
      });
    }
    expect(await tables()).toEqual([]);
  });

  it('refuses a foreign Host (421) even with the secret, and does nothing', async () => {
    const secretPath = new URL(local.endpoint).pathname;
    for (const host of [`evil.example:${local.port}`, `127.0.0.1:${local.port + 1}`, '127.0.0.1']) {
      const refused = await call(local, secretPath, 'CreateTable', TABLE, host);
      expect(refused.status, host).toBe(421);
    }
    expect(await tables()).toEqual([]);
    // The same request with its own Host is served: the refusals above were for the Host alone.
    const served = await call(local, secretPath, 'CreateTable', TABLE);
    expect(served.status).toBe(200);
    expect(await tables()).toEqual(['intruder']);
    await expect(client.send(new CreateTableCommand(TABLE))).rejects.toThrow(/exist/i);
  });
});
