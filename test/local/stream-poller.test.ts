import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { CHILD_CHANGE_FILTER } from '../../cdk/constructs/stream-consumer.js';
import { createLogger } from '../../functions/adapters/system/logger.js';
import type { FilterPattern } from '../../functions/local/event-filter.js';
import {
  type EventSourceSettings,
  isAfter,
  type StreamMapping,
} from '../../functions/local/stream-mapping.js';
import { StreamPoller } from '../../functions/local/stream-poller.js';

const STREAM_ARN = 'arn:aws:dynamodb:ddblocal:000000000000:table/t/stream/2024-01-01T00:00:00.000';

/** A change of a child's task record (it has a parent), which the stack's filter passes. */
const childChange = (seq: number): StreamRecord => ({
  eventID: `e-${seq}`,
  eventName: 'MODIFY',
  eventVersion: '1.1',
  eventSource: 'aws:dynamodb',
  awsRegion: 'ddblocal',
  dynamodb: {
    ApproximateCreationDateTime: new Date(1_700_000_000_000 + seq * 1000),
    Keys: { pk: { S: `TASK#child-${seq}` }, sk: { S: 'TASK' } },
    NewImage: {
      pk: { S: `TASK#child-${seq}` },
      sk: { S: 'TASK' },
      parent_id: { S: 'parent-1' },
    },
    SequenceNumber: String(seq),
    StreamViewType: 'NEW_AND_OLD_IMAGES',
  },
});

/** A transcript write: not a task record, the filter drops it. */
const historyWrite = (seq: number): StreamRecord => ({
  eventID: `e-${seq}`,
  eventName: 'INSERT',
  dynamodb: {
    Keys: { pk: { S: 'TASK#child-1' }, sk: { S: `HIST#${seq}` } },
    NewImage: { pk: { S: 'TASK#child-1' }, sk: { S: `HIST#${seq}` } },
    SequenceNumber: String(seq),
  },
});

/** DynamoDB Local's stream API, one shard, whose pages the test feeds. */
class FakeStreams {
  readonly iteratorTypes: string[] = [];
  /** The sequence numbers iterators were asked for after. */
  readonly startedAfter: string[] = [];
  /** GetRecords calls answered so far. */
  reads = 0;
  readonly #pages: StreamRecord[][] = [];
  #next = 0;

  push(...records: StreamRecord[]) {
    this.#pages.push(records);
  }

  async send(command: unknown): Promise<unknown> {
    if (command instanceof DescribeStreamCommand) {
      return { StreamDescription: { StreamArn: STREAM_ARN, Shards: [{ ShardId: 'shard-1' }] } };
    }
    if (command instanceof GetShardIteratorCommand) {
      this.iteratorTypes.push(command.input.ShardIteratorType ?? '');
      if (command.input.SequenceNumber !== undefined) {
        this.startedAfter.push(command.input.SequenceNumber);
      }
      return { ShardIterator: 'iterator-0' };
    }
    if (command instanceof GetRecordsCommand) {
      this.reads += 1;
      return { Records: this.#pages.shift() ?? [], NextShardIterator: `iterator-${++this.#next}` };
    }
    throw new Error(`unexpected command ${(command as object).constructor.name}`);
  }
}

const fakeDynamoDb = {
  send: async (command: unknown) => {
    if (!(command instanceof DescribeTableCommand)) throw new Error('unexpected command');
    return { Table: { TableName: command.input.TableName, LatestStreamArn: STREAM_ARN } };
  },
} as unknown as DynamoDBClient;

const settings = (overrides: Partial<EventSourceSettings> = {}): EventSourceSettings => ({
  batchSize: 10,
  maximumRetryAttempts: 2,
  bisectBatchOnFunctionError: true,
  filters: [JSON.parse(CHILD_CHANGE_FILTER.pattern) as FilterPattern],
  ...overrides,
});

const pollers: StreamPoller[] = [];
afterEach(async () => {
  await Promise.all(pollers.splice(0).map((poller) => poller.stop()));
});

/**
 * A poller over the fake stream; `respond` plays the stream Lambda. Every invocation's sequence
 * numbers are recorded, with whether it succeeded.
 */
const startPoller = async (
  respond: (
    seqs: string[]
  ) => DynamoDBBatchResponse | undefined | Promise<DynamoDBBatchResponse | undefined>,
  overrides: Partial<EventSourceSettings> = {},
  positionFile?: string,
  pollIntervalMs = 5
) => {
  const streams = new FakeStreams();
  const invocations: Array<{ seqs: string[]; ok: boolean }> = [];
  const events: DynamoDBStreamEvent[] = [];
  const lines: string[] = [];
  const poller = new StreamPoller({
    dynamodb: fakeDynamoDb,
    streams: streams as unknown as DynamoDBStreamsClient,
    tableName: 't',
    mappings: [
      {
        settings: settings(overrides),
        handler: async (event) => {
          events.push(event);
          const seqs = event.Records.map((record) => record.dynamodb?.SequenceNumber ?? '?');
          try {
            const response = await respond(seqs);
            invocations.push({ seqs, ok: true });
            return response;
          } catch (error) {
            invocations.push({ seqs, ok: false });
            throw error;
          }
        },
        ...(positionFile === undefined ? {} : { positionFile }),
      },
    ],
    logger: createLogger({ level: 'debug', write: (line) => lines.push(line) }),
    pollIntervalMs,
  });
  pollers.push(poller);
  await poller.start();
  const mapping = poller.mappings[0] as StreamMapping;
  return { poller, mapping, streams, invocations, events, lines };
};

const until = async (condition: () => boolean, timeoutMs = 5_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

const delivered = (invocations: Array<{ seqs: string[]; ok: boolean }>) =>
  invocations.filter((invocation) => invocation.ok).flatMap((invocation) => invocation.seqs);

describe('the local stream poller (the event source mapping)', () => {
  it('reads the shards from LATEST and hands the handler only the filtered records, in order, in batches of batchSize', async () => {
    const { streams, invocations, events } = await startPoller(() => undefined, { batchSize: 2 });
    expect(streams.iteratorTypes).toEqual(['LATEST']);

    streams.push(childChange(1), historyWrite(2), childChange(3), childChange(4), childChange(5));
    await until(() => delivered(invocations).length === 4);

    expect(invocations).toEqual([
      { seqs: ['1', '3'], ok: true },
      { seqs: ['4', '5'], ok: true },
    ]);
    const first = events[0]!.Records[0]!;
    expect(first).toMatchObject({
      eventSource: 'aws:dynamodb',
      eventSourceARN: STREAM_ARN,
      eventName: 'MODIFY',
      dynamodb: { ApproximateCreationDateTime: 1_700_000_001, SequenceNumber: '1' },
    });
  });

  it('retries a partial batch failure from the failed record on, and never re-sends the records before it', async () => {
    let failOnce = true;
    const { streams, invocations } = await startPoller((seqs) => {
      if (failOnce && seqs.includes('2')) {
        failOnce = false;
        return { batchItemFailures: [{ itemIdentifier: '2' }] };
      }
      return { batchItemFailures: [] };
    });

    streams.push(childChange(1), childChange(2), childChange(3));
    await until(() => invocations.length === 2);

    expect(invocations.map((invocation) => invocation.seqs)).toEqual([
      ['1', '2', '3'],
      ['2', '3'],
    ]);
  });

  it('bisects a batch whose invocation throws, sends a record that keeps failing to the on-failure destination, and moves on', async () => {
    const { mapping, streams, invocations, lines } = await startPoller((seqs) => {
      if (seqs.includes('2')) throw new Error('poisoned');
      return undefined;
    });

    streams.push(childChange(1), childChange(2), childChange(3), childChange(4));
    await until(() => mapping.failed.length > 0 && delivered(invocations).includes('4'));
    streams.push(childChange(5));
    await until(() => delivered(invocations).includes('5'));

    expect(mapping.failed.map((record) => record.dynamodb?.SequenceNumber)).toEqual(['2']);
    expect(delivered(invocations).sort()).toEqual(['1', '3', '4', '5']);
    expect(lines.some((line) => JSON.parse(line).message.includes('on-failure destination'))).toBe(
      true
    );
  });

  it('retries a throwing batch whole when bisecting is off, then gives the whole batch up', async () => {
    const { mapping, streams, invocations } = await startPoller(
      (seqs) => {
        if (seqs.includes('2')) throw new Error('poisoned');
        return undefined;
      },
      { bisectBatchOnFunctionError: false, maximumRetryAttempts: 1 }
    );

    streams.push(childChange(1), childChange(2));
    await until(() => mapping.failed.length === 2);

    expect(invocations).toEqual([
      { seqs: ['1', '2'], ok: false },
      { seqs: ['1', '2'], ok: false },
    ]);
  });

  it('writes down how far it handled a shard once caught up, and a poller started on that goes on after it', async () => {
    const positionFile = join(mkdtempSync(join(tmpdir(), 'poller-')), 'positions.json');
    const { poller, streams, invocations } = await startPoller(() => undefined, {}, positionFile);
    // No positions yet: the shard is read from now on.
    expect(streams.iteratorTypes).toEqual(['LATEST']);
    for (let seq = 1; seq <= 20; seq++) streams.push(childChange(seq));
    await until(() => delivered(invocations).length === 20);
    await until(
      () => existsSync(positionFile) && readFileSync(positionFile, 'utf8').includes('"20"')
    );
    expect(JSON.parse(readFileSync(positionFile, 'utf8'))).toEqual({ 'shard-1': '20' });
    await poller.stop();

    const next = await startPoller(() => undefined, {}, positionFile);
    expect(next.streams.iteratorTypes).toEqual(['AFTER_SEQUENCE_NUMBER']);
  });

  it('waits out its interval once caught up unless woken, and reads at once when woken; a short page is caught up, a full one is not; stop() ends the wait', async () => {
    const { poller, streams, invocations } = await startPoller(
      () => undefined,
      {},
      undefined,
      60_000
    );
    await until(() => streams.reads === 1);
    streams.push(childChange(1));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(streams.reads).toBe(1);
    expect(invocations).toEqual([]);

    poller.wake();
    await until(() => delivered(invocations).length === 1);
    expect(delivered(invocations)).toEqual(['1']);
    // A page short of the limit read the shard to its end: no empty read follows it.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(streams.reads).toBe(2);

    // A full page may have more behind it: the next is read at once, then the poller waits.
    streams.push(...Array.from({ length: 1000 }, (_, index) => childChange(index + 2)));
    streams.push(childChange(1002));
    poller.wake();
    await until(() => delivered(invocations).length === 1002);
    expect(streams.reads).toBe(4);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(streams.reads).toBe(4);
    // Stopping does not wait the minute out.
    await poller.stop();
  });

  it('stops polling on stop()', async () => {
    const { poller, streams, invocations } = await startPoller(() => undefined);
    await poller.stop();
    streams.push(childChange(1));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(invocations).toEqual([]);
  });

  it('makes no more attempts at a failing batch once stopped, so stopping waits only for the invocation in flight', async () => {
    const { poller, mapping, streams, invocations } = await startPoller(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('the webhook is down');
      },
      { bisectBatchOnFunctionError: false, maximumRetryAttempts: 100 }
    );
    streams.push(childChange(1));
    await until(() => invocations.length >= 1);

    await poller.stop();
    const attempts = invocations.length;
    await new Promise((resolve) => setTimeout(resolve, 60));

    expect(invocations.length).toBe(attempts);
    expect(attempts).toBeLessThan(5);
    expect(mapping.failed).toEqual([]);
  });
});

/** A promise the test settles when it chooses. */
const held = () => {
  let release = () => {};
  const promise = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { promise, release };
};

/**
 * Two mappings on one reader, which reads when woken (its poll is a minute): the first takes
 * child changes only and its handler waits for `slowFirst`, the second takes every record; each
 * starts from its own kept position on the shard (`positions`), if any.
 */
const twoMappings = async (
  options: {
    slowFirst?: Promise<void>;
    positions?: [string | undefined, string | undefined];
    maxWaitingRecords?: number;
  } = {}
) => {
  const streams = new FakeStreams();
  const dir = mkdtempSync(join(tmpdir(), 'poller-'));
  const seen: [string[], string[]] = [[], []];
  const files = [0, 1].map((index) => {
    const file = join(dir, `positions-${index}.json`);
    const position = options.positions?.[index];
    if (position !== undefined) writeFileSync(file, JSON.stringify({ 'shard-1': position }));
    return file;
  });
  const poller = new StreamPoller({
    dynamodb: fakeDynamoDb,
    streams: streams as unknown as DynamoDBStreamsClient,
    tableName: 't',
    mappings: [0, 1].map((index) => ({
      // The first mapping takes child changes only, the second every record.
      settings: settings(index === 0 ? {} : { filters: [] }),
      handler: async (event: DynamoDBStreamEvent) => {
        if (index === 0) await options.slowFirst;
        seen[index as 0 | 1].push(
          ...event.Records.map((record) => record.dynamodb?.SequenceNumber ?? '?')
        );
        return undefined;
      },
      positionFile: files[index] as string,
    })),
    logger: createLogger({ level: 'error', write: () => undefined }),
    pollIntervalMs: 60_000,
    ...(options.maxWaitingRecords === undefined
      ? {}
      : { maxWaitingRecords: options.maxWaitingRecords }),
  });
  pollers.push(poller);
  await poller.start();
  return { poller, streams, seen };
};

describe('one reader for every mapping on the stream', () => {
  it('reads each page once and hands it to every mapping, each through its own filter', async () => {
    const { poller, streams, seen } = await twoMappings();
    await until(() => streams.reads === 1);
    streams.push(childChange(1), historyWrite(2), childChange(3));
    poller.wake();
    await until(() => seen[1].length === 3 && seen[0].length === 2);
    expect(seen).toEqual([
      ['1', '3'],
      ['1', '2', '3'],
    ]);
    // One read of the page served both.
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(streams.reads).toBe(2);
  });

  it('keeps a slow mapping’s records waiting for it while the other gets each record at once', async () => {
    const { promise: slowFirst, release } = held();
    const { poller, streams, seen } = await twoMappings({ slowFirst });
    streams.push(childChange(1));
    poller.wake();
    await until(() => seen[1].length === 1);
    streams.push(childChange(2));
    poller.wake();
    await until(() => seen[1].length === 2);
    expect(seen[0]).toEqual([]);
    release();
    await until(() => seen[0].length === 2);
    expect(seen[0]).toEqual(['1', '2']);
  });

  it('starts after the earliest position a mapping kept, and each mapping skips what it handled', async () => {
    const { poller, streams, seen } = await twoMappings({ positions: ['3', '1'] });
    expect(streams.iteratorTypes).toEqual(['AFTER_SEQUENCE_NUMBER']);
    expect(streams.startedAfter).toEqual(['1']);
    // What the shard holds after 1: 2 and 3 (handled by the first mapping already), then 4.
    streams.push(childChange(2), childChange(3), childChange(4));
    poller.wake();
    await until(() => seen[1].length === 3 && seen[0].length === 1);
    expect(seen).toEqual([['4'], ['2', '3', '4']]);
  });

  it('reads a shard a mapping has no position on whole', async () => {
    const { streams } = await twoMappings({ positions: ['3', undefined] });
    expect(streams.iteratorTypes).toEqual(['TRIM_HORIZON']);
  });

  it('stops reading while a mapping has its most records waiting, and reads on once it catches up', async () => {
    const { promise: slowFirst, release } = held();
    const { poller, streams, seen } = await twoMappings({ slowFirst, maxWaitingRecords: 2 });
    await until(() => streams.reads === 1);
    streams.push(childChange(1), childChange(2));
    streams.push(childChange(3));
    poller.wake();
    await until(() => seen[1].length === 2);
    poller.wake();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The first mapping holds two records: the next page stays unread, woken or not.
    expect(seen[1]).toEqual(['1', '2']);
    expect(streams.reads).toBe(2);
    release();
    await until(() => seen[1].length === 3 && seen[0].length === 3);
    expect(seen).toEqual([
      ['1', '2', '3'],
      ['1', '2', '3'],
    ]);
  });

  it('compares sequence numbers as the long decimals they are', () => {
    expect(isAfter('10', '9')).toBe(true);
    expect(isAfter('000000000000000000010', '9')).toBe(true);
    expect(isAfter('9', '10')).toBe(false);
    expect(isAfter('123456789012345678901234', '123456789012345678901233')).toBe(true);
    expect(isAfter('5', '5')).toBe(false);
  });
});
