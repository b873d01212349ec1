import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import type { Logger } from '../core/ports/logger.js';
import { isAfter, StreamMapping, type StreamMappingOptions } from './stream-mapping.js';
import { Wakeup } from './wakeup.js';

export interface StreamPollerOptions {
  dynamodb: DynamoDBClient;
  streams: DynamoDBStreamsClient;
  tableName: string;
  /** The event source mappings on the table's stream: each gets every record read. */
  mappings: readonly StreamMappingOptions[];
  logger: Logger;
  /**
   * How long a caught-up poller waits before it reads again unless woken (`wake()`) sooner: the
   * stack wakes it after each write of its own, so this is the fallback for writes it is not told
   * of (another client of the table).
   */
  pollIntervalMs?: number;
  /** The most records a mapping may have waiting before the stream is read further (MAX_WAITING_RECORDS). */
  maxWaitingRecords?: number;
}

/** The most records one read of a shard asks for (GetRecords' own limit). */
const PAGE_LIMIT = 1000;

/**
 * The most records a mapping may have waiting: past it the stream is not read further until the
 * mapping's function catches up (a dead webhook's retries), so memory stays bounded.
 */
export const MAX_WAITING_RECORDS = 10_000;

const toLambdaRecord = (record: StreamRecord, streamArn: string): DynamoDBRecord =>
  ({
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion,
    eventSource: 'aws:dynamodb',
    awsRegion: record.awsRegion,
    eventSourceARN: streamArn,
    dynamodb: {
      ...record.dynamodb,
      ApproximateCreationDateTime: record.dynamodb?.ApproximateCreationDateTime
        ? record.dynamodb.ApproximateCreationDateTime.getTime() / 1000
        : undefined,
    },
  }) as DynamoDBRecord;

/**
 * Plays Lambda's reading of DynamoDB Local's stream for every event source mapping on it: one
 * reader of the shards, whose pages each mapping (stream-mapping.ts) takes in its own queue and
 * hands its function in its own time. Each mapping in the cloud reads the stream on its own; one
 * read for all of them here gets every mapping the same records, in the same order, for half the
 * reads of two.
 */
export class StreamPoller {
  readonly mappings: readonly StreamMapping[];
  readonly #options: StreamPollerOptions;
  #stopped = false;
  #loop: Promise<void> | undefined;
  readonly #iterators = new Map<string, string | undefined>();
  /** Told of a write since the last read began: the next wait is skipped. */
  #woken = false;
  readonly #wakeup = new Wakeup();
  /** Waiting for a mapping to make room, not for a write. */
  #held = false;

  constructor(options: StreamPollerOptions) {
    this.#options = options;
    this.mappings = options.mappings.map(
      (mapping) =>
        new StreamMapping(mapping, options.logger, () => {
          if (this.#held) this.#wakeup.wake();
        })
    );
  }

  async start(): Promise<void> {
    const table = await this.#options.dynamodb.send(
      new DescribeTableCommand({ TableName: this.#options.tableName })
    );
    const streamArn = table.Table?.LatestStreamArn;
    if (streamArn === undefined) throw new Error(`table ${this.#options.tableName} has no stream`);
    await this.#refreshShards(streamArn);
    for (const mapping of this.mappings) mapping.start();
    this.#loop = this.#run(streamArn);
  }

  /**
   * A write to the table has completed: read the stream now rather than at the end of the wait,
   * so a change reaches its handler at once while an idle poller reads seldom.
   */
  wake(): void {
    this.#woken = true;
    this.#wakeup.wake();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wakeup.wake();
    await this.#loop;
    await Promise.all(this.mappings.map((mapping) => mapping.stop()));
  }

  /**
   * Where a shard is read from: after the earliest record a mapping handled last (each mapping
   * skips what it handled before); a shard some mapping has no position on (one that appeared
   * since, or after start-up) whole; with no positions kept at all, from now on.
   */
  #startOf(shardId: string) {
    const positions = this.mappings.map((mapping) => mapping.positionOf(shardId));
    const earliest = positions.reduce<string | undefined>(
      (first, position) =>
        position === undefined || (first !== undefined && !isAfter(first, position))
          ? first
          : position,
      undefined
    );
    if (earliest !== undefined && positions.every((position) => position !== undefined)) {
      return { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: earliest } as const;
    }
    const fresh = this.#loop === undefined && this.mappings.every((m) => !m.keepsPositions);
    return { ShardIteratorType: fresh ? ('LATEST' as const) : ('TRIM_HORIZON' as const) };
  }

  async #refreshShards(streamArn: string): Promise<void> {
    const stream = await this.#options.streams.send(
      new DescribeStreamCommand({ StreamArn: streamArn })
    );
    for (const shard of stream.StreamDescription?.Shards ?? []) {
      if (shard.ShardId === undefined || this.#iterators.has(shard.ShardId)) continue;
      const iterator = await this.#options.streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shard.ShardId,
          ...this.#startOf(shard.ShardId),
        })
      );
      this.#iterators.set(shard.ShardId, iterator.ShardIterator);
    }
  }

  async #run(streamArn: string): Promise<void> {
    const interval = this.#options.pollIntervalMs ?? 50;
    const maxWaiting = this.#options.maxWaitingRecords ?? MAX_WAITING_RECORDS;
    let sinceRefresh = 0;
    while (!this.#stopped) {
      if (this.mappings.some((mapping) => mapping.waiting >= maxWaiting)) {
        // A mapping far behind: the stream waits for it to handle a page (it keeps its records
        // meanwhile).
        this.#held = true;
        await this.#wakeup.wait(interval);
        this.#held = false;
        continue;
      }
      this.#woken = false;
      /** A page came back full: more may be waiting behind it. */
      let more = false;
      for (const [shardId, iterator] of this.#iterators) {
        if (iterator === undefined) continue;
        try {
          const page = await this.#options.streams.send(
            new GetRecordsCommand({ ShardIterator: iterator, Limit: PAGE_LIMIT })
          );
          this.#iterators.set(shardId, page.NextShardIterator);
          const records = (page.Records ?? []).map((record) => toLambdaRecord(record, streamArn));
          if (records.length >= PAGE_LIMIT) more = true;
          if (records.length > 0 && !this.#stopped) {
            for (const mapping of this.mappings) mapping.offer(shardId, records);
          }
        } catch (error) {
          this.#options.logger.error('stream poll failed', {
            shardId,
            errorMessage: (error as Error).message,
          });
        }
      }
      if (++sinceRefresh >= 100) {
        sinceRefresh = 0;
        await this.#refreshShards(streamArn).catch(() => undefined);
      }
      // A short page is the shard read to its end as of that read: the poller waits, unless a
      // write was answered since the read began (its record may be behind the page's last).
      if (!more && !this.#woken && !this.#stopped) await this.#wakeup.wait(interval);
    }
  }
}
