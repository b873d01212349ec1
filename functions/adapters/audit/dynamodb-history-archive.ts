import { gunzipSync, gzipSync } from 'node:zlib';
import { type AttributeValue, type DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { ArchivedHistory, ExecutionHistoryArchive } from '../../core/audit/archive.js';
import type { HistoryEventLike } from '../../core/audit/execution-history.js';
import { ATTR, PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE, taskPk } from '../dynamodb/table.js';
import { queryTaskItems } from './partition-query.js';

/**
 * Archived histories live in the task's own partition of the table (so "everything about a task"
 * stays one key, encrypted with the table):
 *
 * | item                 | sk                                  |
 * | -------------------- | ----------------------------------- |
 * | one chunk of events  | `ARCHIVE#<generation>#<chunk>`      |
 * | the manifest         | `ARCHIVE#<generation>#MANIFEST`     |
 *
 * Chunks are gzipped JSON (a 25,000-event history is many MB; an item holds 400 KB); the manifest
 * is written last, so a copy without one is incomplete and is not read.
 */
const PREFIX = 'ARCHIVE#';
const MANIFEST = 'MANIFEST';
const ITEM_TYPE = 'history_archive';
const EVENTS_PER_CHUNK = 1000;
/** Well under DynamoDB's 400 KB item limit, with room for the keys and attributes. */
const MAX_CHUNK_BYTES = 300 * 1024;

const generationSk = (generation: number) => `${PREFIX}${String(generation).padStart(6, '0')}#`;

const jsonEvent = (event: HistoryEventLike) => ({
  ...event,
  timestamp:
    event.timestamp instanceof Date
      ? event.timestamp.toISOString()
      : typeof event.timestamp === 'number'
        ? new Date(event.timestamp * 1000).toISOString()
        : event.timestamp,
});

/** Gzipped chunks of at most MAX_CHUNK_BYTES, splitting a group of events until it fits. */
const chunksOf = (events: readonly HistoryEventLike[]): Buffer[] => {
  const pack = (group: readonly HistoryEventLike[]): Buffer[] => {
    const zipped = gzipSync(JSON.stringify(group.map(jsonEvent)));
    if (zipped.length <= MAX_CHUNK_BYTES || group.length === 1) return [zipped];
    const half = Math.ceil(group.length / 2);
    return [...pack(group.slice(0, half)), ...pack(group.slice(half))];
  };
  const chunks: Buffer[] = [];
  for (let start = 0; start < events.length; start += EVENTS_PER_CHUNK) {
    chunks.push(...pack(events.slice(start, start + EVENTS_PER_CHUNK)));
  }
  return chunks;
};

export class DynamoDbHistoryArchive implements ExecutionHistoryArchive {
  readonly #client: DynamoDBClient;
  readonly #tableName: string;
  readonly #retentionDays: number;

  /** `retentionDays` 0 keeps copies as long as the table keeps the task (no expiry). */
  constructor(options: { client: DynamoDBClient; tableName: string; retentionDays?: number }) {
    this.#client = options.client;
    this.#tableName = options.tableName;
    this.#retentionDays = options.retentionDays ?? 0;
  }

  async write(taskId: string, generation: number, history: ArchivedHistory): Promise<void> {
    const expiry: Record<string, AttributeValue> =
      this.#retentionDays > 0
        ? {
            [TTL_ATTRIBUTE]: {
              N: String(
                Math.floor(Date.parse(history.closedAt) / 1000) + this.#retentionDays * 86_400
              ),
            },
          }
        : {};
    const base = (sk: string): Record<string, AttributeValue> => ({
      [PARTITION_KEY]: { S: taskPk(taskId) },
      [SORT_KEY]: { S: sk },
      [ATTR.type]: { S: ITEM_TYPE },
      [ATTR.taskId]: { S: taskId },
      ...expiry,
    });
    const chunks = chunksOf(history.events);
    for (const [index, chunk] of chunks.entries()) {
      await this.#client.send(
        new PutItemCommand({
          TableName: this.#tableName,
          Item: {
            ...base(`${generationSk(generation)}${String(index).padStart(5, '0')}`),
            [ATTR.data]: { B: chunk },
          },
        })
      );
    }
    await this.#client.send(
      new PutItemCommand({
        TableName: this.#tableName,
        Item: {
          ...base(`${generationSk(generation)}${MANIFEST}`),
          [ATTR.data]: {
            S: JSON.stringify({
              execution_arn: history.executionArn,
              status: history.status,
              closed_at: history.closedAt,
              chunks: chunks.length,
              events: history.events.length,
            }),
          },
        },
      })
    );
  }

  async read(taskId: string, generation: number): Promise<ArchivedHistory | undefined> {
    const items = await queryTaskItems(
      this.#client,
      this.#tableName,
      taskId,
      generationSk(generation)
    );
    const manifestText = items.find((item) => item[SORT_KEY]?.S?.endsWith(MANIFEST))?.[ATTR.data]
      ?.S;
    if (manifestText === undefined) return undefined;
    const manifest = JSON.parse(manifestText) as {
      execution_arn: string;
      status: string;
      closed_at: string;
      chunks: number;
      events: number;
    };
    const chunks = items.filter((item) => item[ATTR.data]?.B !== undefined);
    if (chunks.length !== manifest.chunks) return undefined;
    const events = chunks.flatMap(
      (item) =>
        JSON.parse(
          gunzipSync(item[ATTR.data]?.B as Uint8Array).toString('utf8')
        ) as HistoryEventLike[]
    );
    return {
      executionArn: manifest.execution_arn,
      status: manifest.status,
      closedAt: manifest.closed_at,
      events,
    };
  }
}
