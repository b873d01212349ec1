import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import * as z from 'zod';
import type { Logger } from '../core/ports/logger.js';
import { type FilterPattern, passesFilters } from './event-filter.js';
import { Wakeup } from './wakeup.js';

/** The event source mapping's settings, as the stack declares them. */
export interface EventSourceSettings {
  batchSize: number;
  maximumRetryAttempts: number;
  bisectBatchOnFunctionError: boolean;
  filters: FilterPattern[];
}

export interface StreamMappingOptions {
  settings: EventSourceSettings;
  handler: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | undefined>;
  /**
   * Where the mapping keeps how far it has handled each shard, so a restart (even after a crash)
   * goes on after the last record it handled, as an event source mapping does: no change is
   * lost, and one may be delivered again. Omitted: a start reads from the newest record.
   */
  positionFile?: string;
}

const PositionsSchema = z.record(z.string(), z.string());

/** How often, at most, a mapping that keeps receiving records writes its positions down. */
export const POSITION_WRITE_INTERVAL_MS = 250;

/** A page of one shard's records, as read. */
interface Page {
  shardId: string;
  records: DynamoDBRecord[];
}

/**
 * Whether stream sequence number `a` comes after `b`: both are decimal numbers, too long for a
 * double, compared by length once leading zeros are gone.
 */
export const isAfter = (a: string, b: string): boolean => {
  const left = a.replace(/^0+/, '');
  const right = b.replace(/^0+/, '');
  return left.length === right.length ? left > right : left.length > right.length;
};

/**
 * One event source mapping on the shared stream reader (stream-poller.ts): it takes the pages
 * the reader hands it and, per shard, in order, invokes its function with batches of
 * `batchSize` filtered records; a thrown error bisects the batch (if enabled) and retries up to
 * `maximumRetryAttempts`; a partial batch failure retries from the failed record. A record that
 * exhausts its retries goes to the on-failure destination (here: an error log line and the
 * `failed` list), and the shard moves on, so a poisoned record never blocks it. Its pages wait in
 * a queue of its own: a slow function holds up its own mapping, never another.
 */
export class StreamMapping {
  readonly failed: DynamoDBRecord[] = [];
  readonly #options: StreamMappingOptions;
  readonly #logger: Logger;
  readonly #pages: Page[] = [];
  /** Records waiting in `#pages`. */
  #waiting = 0;
  #stopped = false;
  #loop: Promise<void> | undefined;
  /** Ends the wait for a page when one is offered, or the mapping stops. */
  readonly #pageOffered = new Wakeup();
  /** The sequence number of the last record handled, per shard. */
  #positions: Record<string, string> | undefined;
  /** When the positions were last written, and whether they have moved since. */
  #savedAt = 0;
  #unsaved = false;

  /** Told each time a page has been handled (the reader may be waiting for room). */
  readonly #onHandled: () => void;

  constructor(options: StreamMappingOptions, logger: Logger, onHandled: () => void = () => {}) {
    this.#options = options;
    this.#logger = logger;
    this.#onHandled = onHandled;
    this.#positions = this.#readPositions();
  }

  /** Where the mapping last stopped handling a shard; undefined: it kept no position there. */
  positionOf(shardId: string): string | undefined {
    return this.#positions?.[shardId];
  }

  /** Whether the mapping kept positions at all (a first start has none). */
  get keepsPositions(): boolean {
    return this.#positions !== undefined;
  }

  /** Records handed over and not yet handled. */
  get waiting(): number {
    return this.#waiting;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /**
   * A page the reader read: queued for the function, less the records this mapping handled
   * before (the reader starts from the earliest position any mapping kept).
   */
  offer(shardId: string, records: readonly DynamoDBRecord[]): void {
    if (this.#stopped) return;
    const after = this.positionOf(shardId);
    const fresh =
      after === undefined
        ? [...records]
        : records.filter((record) => isAfter(record.dynamodb?.SequenceNumber ?? '', after));
    if (fresh.length === 0) return;
    this.#pages.push({ shardId, records: fresh });
    this.#waiting += fresh.length;
    this.#pageOffered.wake();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#pageOffered.wake();
    await this.#loop;
    this.#writePositions();
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      const page = this.#pages.shift();
      if (page === undefined) {
        // Caught up: what was handled is written down before the mapping waits.
        this.#writePositions();
        await this.#pageOffered.wait();
        continue;
      }
      await this.#deliver(
        page.records.filter((record) => passesFilters(record, this.#options.settings.filters))
      );
      this.#waiting -= page.records.length;
      const last = page.records.at(-1)?.dynamodb?.SequenceNumber;
      if (last !== undefined && !this.#stopped) this.#savePosition(page.shardId, last);
      this.#onHandled();
    }
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
   * POSITION_WRITE_INTERVAL_MS while records keep coming (and whenever the mapping catches up
   * or stops): a busy stack writes its positions a few times a second, not once a page, and a
   * crash delivers again at most what was handled in that interval, as a mapping may.
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
      this.#logger.warn('stream batch failed', {
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
      this.#logger.error('stream records sent to the on-failure destination', {
        sequenceNumbers: remaining.map((record) => record.dynamodb?.SequenceNumber),
      });
      return;
    }
    await this.#invoke(remaining, attempt + 1);
  }
}
