import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import * as z from 'zod';
import type { Logger } from '../core/ports/logger.js';
import { type FilterPattern, passesFilters } from './event-filter.js';

/** The event source mapping's settings, as the stack declares them. */
export interface EventSourceSettings {
  batchSize: number;
  maximumRetryAttempts: number;
  bisectBatchOnFunctionError: boolean;
  filters: FilterPattern[];
}

export interface StreamPollerOptions {
  dynamodb: DynamoDBClient;
  streams: DynamoDBStreamsClient;
  tableName: string;
  settings: EventSourceSettings;
  handler: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | undefined>;
  logger: Logger;
  /**
   * How long a caught-up poller waits before it reads again unless woken (`wake()`) sooner: the
   * stack wakes it after each write of its own, so this is the fallback for writes it is not told
   * of (another client of the table).
   */
  pollIntervalMs?: number;
  /**
   * Where the poller keeps how far it has read each shard, so a restart (even after a crash)
   * goes on after the last record it handled, as an event source mapping does: no change is
   * lost, and one may be delivered again. Omitted: a start reads from the newest record.
   */
  positionFile?: string;
}

const PositionsSchema = z.record(z.string(), z.string());

/** The most records one read of a shard asks for (GetRecords' own limit). */
const PAGE_LIMIT = 1000;

/** How often, at most, a poller that keeps receiving records writes its positions down. */
export const POSITION_WRITE_INTERVAL_MS = 250;

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
 * Plays the Lambda event source mapping on DynamoDB Local's stream: per shard, in order, batches
 * of `batchSize` filtered records; a thrown error bisects the batch (if enabled) and retries up
 * to `maximumRetryAttempts`; a partial batch failure retries from the failed record. A record
 * that exhausts its retries goes to the on-failure destination (here: an error log line and the
 * `failed` list), and the shard moves on, so a poisoned record never blocks it.
 */
export class StreamPoller {
  readonly failed: DynamoDBRecord[] = [];
  readonly #options: StreamPollerOptions;
  #stopped = false;
  #loop: Promise<void> | undefined;
  readonly #iterators = new Map<string, string | undefined>();
  /** The sequence number of the last record handled, per shard. */
  #positions: Record<string, string> | undefined;
  /** When the positions were last written, and whether they have moved since. */
  #savedAt = 0;
  #unsaved = false;
  /** Told of a write since the last read began: the next wait is skipped. */
  #woken = false;
  /** Ends the current wait early. */
  #endWait: (() => void) | undefined;

  constructor(options: StreamPollerOptions) {
    this.#options = options;
  }

  async start(): Promise<void> {
    const table = await this.#options.dynamodb.send(
      new DescribeTableCommand({ TableName: this.#options.tableName })
    );
    const streamArn = table.Table?.LatestStreamArn;
    if (streamArn === undefined) throw new Error(`table ${this.#options.tableName} has no stream`);
    this.#positions = this.#readPositions();
    await this.#refreshShards(streamArn);
    this.#loop = this.#run(streamArn);
  }

  /**
   * A write to the table has completed: read the stream now rather than at the end of the wait,
   * so a change reaches its handler at once while an idle poller reads seldom.
   */
  wake(): void {
    this.#woken = true;
    this.#endWait?.();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#endWait?.();
    await this.#loop;
    this.#writePositions();
  }

  async #refreshShards(streamArn: string): Promise<void> {
    const stream = await this.#options.streams.send(
      new DescribeStreamCommand({ StreamArn: streamArn })
    );
    for (const shard of stream.StreamDescription?.Shards ?? []) {
      if (shard.ShardId === undefined || this.#iterators.has(shard.ShardId)) continue;
      const after = this.#positions?.[shard.ShardId];
      // Where a shard is read from: after the last record handled; a shard that appeared since
      // (or after start-up) whole; without positions, from now on.
      const from =
        after !== undefined
          ? ({ ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after } as const)
          : {
              ShardIteratorType:
                this.#loop === undefined && this.#positions === undefined
                  ? ('LATEST' as const)
                  : ('TRIM_HORIZON' as const),
            };
      const iterator = await this.#options.streams.send(
        new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ...from })
      );
      this.#iterators.set(shard.ShardId, iterator.ShardIterator);
    }
  }

  async #run(streamArn: string): Promise<void> {
    const interval = this.#options.pollIntervalMs ?? 50;
    let sinceRefresh = 0;
    while (!this.#stopped) {
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
          await this.#deliver(
            records.filter((record) => passesFilters(record, this.#options.settings.filters))
          );
          const last = records.at(-1)?.dynamodb?.SequenceNumber;
          if (last !== undefined && !this.#stopped) this.#savePosition(shardId, last);
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
      if (!more && !this.#woken && !this.#stopped) {
        // Caught up: what was handled is written down before the poller waits.
        this.#writePositions();
        await this.#wait(interval);
      }
    }
  }

  #wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.#endWait?.(), ms);
      this.#endWait = () => {
        clearTimeout(timer);
        this.#endWait = undefined;
        resolve();
      };
    });
  }

  #readPositions(): Record<string, string> | undefined {
    const path = this.#options.positionFile;
    if (path === undefined) return undefined;
    try {
      return PositionsSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new Error(`${path} is not a stream position file: ${(error as Error).message}`);
    }
  }

  /**
   * Notes how far a shard was handled, and writes it down at most every
   * POSITION_WRITE_INTERVAL_MS while records keep coming (and whenever the poller catches up or
   * stops): a busy stack writes its positions a few times a second, not once a page, and a crash
   * delivers again at most what was handled in that interval, as a mapping may.
   */
  #savePosition(shardId: string, sequenceNumber: string): void {
    if (this.#options.positionFile === undefined) return;
    this.#positions = { ...this.#positions, [shardId]: sequenceNumber };
    this.#unsaved = true;
    if (Date.now() - this.#savedAt >= POSITION_WRITE_INTERVAL_MS) this.#writePositions();
  }

  #writePositions(): void {
    const path = this.#options.positionFile;
    if (path === undefined || !this.#unsaved) return;
    const temporary = `${path}.tmp`;
    writeFileSync(temporary, JSON.stringify(this.#positions));
    renameSync(temporary, path);
    this.#unsaved = false;
    this.#savedAt = Date.now();
  }

  async #deliver(records: DynamoDBRecord[]): Promise<void> {
    const { batchSize } = this.#options.settings;
    for (let start = 0; start < records.length && !this.#stopped; start += batchSize) {
      await this.#invoke(records.slice(start, start + batchSize), 0);
    }
  }

  async #invoke(batch: DynamoDBRecord[], attempt: number): Promise<void> {
    if (batch.length === 0) return;
    const { maximumRetryAttempts, bisectBatchOnFunctionError } = this.#options.settings;
    let remaining = batch;
    try {
      const response = await this.#options.handler({ Records: batch });
      const failedId = response?.batchItemFailures[0]?.itemIdentifier;
      if (failedId === undefined) return;
      const index = batch.findIndex((record) => record.dynamodb?.SequenceNumber === failedId);
      remaining = index < 0 ? batch : batch.slice(index);
    } catch (error) {
      if (bisectBatchOnFunctionError && batch.length > 1) {
        const half = Math.ceil(batch.length / 2);
        await this.#invoke(batch.slice(0, half), attempt + 1);
        await this.#invoke(batch.slice(half), attempt + 1);
        return;
      }
      this.#options.logger.warn('stream batch failed', {
        attempt,
        errorMessage: (error as Error).message,
      });
    }
    // Stopping ends retries: a handler that keeps failing (a dead webhook) would otherwise hold
    // Ctrl-C for every attempt left. The records are not marked done; nothing is lost that a
    // Lambda shutdown would not lose too.
    if (this.#stopped) return;
    if (attempt >= maximumRetryAttempts) {
      this.failed.push(...remaining);
      this.#options.logger.error('stream records sent to the on-failure destination', {
        sequenceNumbers: remaining.map((record) => record.dynamodb?.SequenceNumber),
      });
      return;
    }
    await this.#invoke(remaining, attempt + 1);
  }
}
