/**
 * Reading what a task's commits said: its events, its transcript and its audit records, from its
 * log items and, for the stretch an earlier build wrote, from that build's items (`EVT#`, `HIST#`,
 * `ONCE#`). A record names that stretch (`LogOrigin`); a record that names none was last written
 * by an earlier build, so both kinds are read.
 */
import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { HistoryEntry } from '../../core/loop/history.schema.js';
import type { LoggedEvent } from '../../core/ports/event-log.js';
import type { TaskRecord } from '../../core/ports/task-store.js';
import {
  decodeEvent,
  decodeHistoryEntry,
  decodeIntakeRow,
  eventSk,
  firstSeqAfter,
  historySk,
  isStorableTaskId,
  logOriginOf,
  readJson,
  readString,
  taskKey,
} from './item-codec.js';
import { decodeLogItem, LOG_SK_END, logItemHead, logSkFrom } from './log-item.js';
import { ATTR, KEY_PREFIX, MAX_SEQ } from './table.js';
import {
  queryAll,
  queryPages,
  taskPrefixQuery,
  taskRangeQuery,
  wholePayloads,
} from './table-io.js';

/** The last event seq and transcript seq an earlier build's items hold (0 and 0: none). */
export type LogOrigin = NonNullable<TaskRecord['logFrom']>;

/** How many tasks' origins one process keeps (an origin is a few bytes). */
const ORIGINS_KEPT = 100_000;

/**
 * The origins of the tasks a process has seen. An origin never changes once a record names it, so
 * what is kept stays true; a task whose record names none is asked about again next time.
 */
export class LogOrigins {
  readonly #known = new Map<string, LogOrigin>();

  note(taskId: string, origin: LogOrigin | undefined): void {
    if (origin === undefined || this.#known.has(taskId)) return;
    if (this.#known.size >= ORIGINS_KEPT) {
      const [oldest] = this.#known.keys();
      if (oldest !== undefined) this.#known.delete(oldest);
    }
    this.#known.set(taskId, origin);
  }

  /** The task's origin: as kept, or read from its record (`undefined`: it names none). */
  async of(client: DynamoDBClient, tableName: string, taskId: string) {
    const known = this.#known.get(taskId);
    if (known !== undefined) return known;
    const { Item: item } = await client.send(
      new GetItemCommand({
        TableName: tableName,
        Key: taskKey(taskId),
        ConsistentRead: true,
        ProjectionExpression: '#evt0, #hseq0',
        ExpressionAttributeNames: {
          '#evt0': ATTR.logEventsFrom,
          '#hseq0': ATTR.logHistoryFrom,
        },
      })
    );
    const origin = item === undefined ? undefined : logOriginOf(item);
    this.note(taskId, origin);
    return origin;
  }
}

/** Events with `seq > afterSeq`, ascending; with a `limit`, the first that many. */
export const readLoggedEvents = async (
  client: DynamoDBClient,
  tableName: string,
  taskId: string,
  options: { afterSeq: number; limit?: number | undefined; origin: LogOrigin | undefined }
): Promise<LoggedEvent[]> => {
  const { afterSeq, limit, origin } = options;
  const first = firstSeqAfter(afterSeq);
  if (first === undefined || !isStorableTaskId(taskId) || limit === 0) return [];
  const events: LoggedEvent[] = [];
  const earlierTo = origin?.eventSeq ?? MAX_SEQ;
  if (first <= earlierTo) {
    const query = taskRangeQuery(tableName, taskId, eventSk(first), eventSk(earlierTo));
    events.push(...(await queryAll(client, query, limit)).map(decodeEvent));
  }
  const full = () => limit !== undefined && events.length >= limit;
  if (full()) return events.slice(0, limit);
  const after = Math.max(afterSeq, origin?.eventSeq ?? 0, events.at(-1)?.seq ?? 0);
  const from = firstSeqAfter(after);
  if (from === undefined) return events;
  const query = taskRangeQuery(tableName, taskId, logSkFrom(from), LOG_SK_END);
  for await (const page of queryPages(client, query, limit ?? 25)) {
    // A commit that logged no event is passed over without reading its pieces.
    const logging = page.filter((item) => logItemHead(item).eventCount > 0);
    for (const item of await wholePayloads(client, tableName, logging)) {
      events.push(...decodeLogItem(item).events(after));
      if (full()) return events.slice(0, limit);
    }
  }
  return events;
};

/** Transcript entries with `afterSeq < seq <= throughSeq`, ascending. */
export const readLoggedHistory = async (
  client: DynamoDBClient,
  tableName: string,
  taskId: string,
  options: { afterSeq: number; throughSeq: number; origin: LogOrigin | undefined }
): Promise<HistoryEntry[]> => {
  const { afterSeq, origin } = options;
  const first = firstSeqAfter(afterSeq);
  const last = Math.min(MAX_SEQ, Math.floor(options.throughSeq));
  if (first === undefined || !(last >= first) || !isStorableTaskId(taskId)) return [];
  const earlier: HistoryEntry[] = [];
  const earlierTo = Math.min(last, origin?.historySeq ?? MAX_SEQ);
  if (first <= earlierTo) {
    const items = await queryAll(
      client,
      taskRangeQuery(tableName, taskId, historySk(first), historySk(earlierTo))
    );
    earlier.push(...(await wholePayloads(client, tableName, items)).map(decodeHistoryEntry));
  }
  if (origin !== undefined && last <= origin.historySeq) return earlier;
  const after = Math.max(afterSeq, origin?.historySeq ?? 0, earlier.at(-1)?.seq ?? 0);
  // Newest first, down to the first commit that left the transcript at or before `after`: a
  // warm reader asks for the last turn's entries, which the last few items hold.
  const logged: HistoryEntry[] = [];
  const query = taskRangeQuery(tableName, taskId, KEY_PREFIX.log, LOG_SK_END, false);
  for await (const page of queryPages(client, query, 4)) {
    const end = page.findIndex((item) => logItemHead(item).historyTop <= after);
    const newer = end === -1 ? page : page.slice(0, end);
    for (const item of await wholePayloads(client, tableName, newer)) {
      for (const entry of decodeLogItem(item).history()) {
        if (entry.seq > after && entry.seq <= last) logged.push(entry);
      }
    }
    if (end !== -1) break;
  }
  logged.sort((a, b) => a.seq - b.seq);
  return [...earlier, ...logged];
};

/**
 * Every audit record of a task, by key: the items of commits without a record write and of
 * earlier builds (`ONCE#`) first, then intake's rows on the markers of the messages it took in,
 * then the log items' in commit order, a later record with the same key replacing the earlier.
 */
export const readAuditRecords = async (
  client: DynamoDBClient,
  tableName: string,
  taskId: string
): Promise<Map<string, unknown>> => {
  const records = new Map<string, unknown>();
  if (!isStorableTaskId(taskId)) return records;
  const prefixed = async (prefix: string) =>
    wholePayloads(
      client,
      tableName,
      await queryAll(client, taskPrefixQuery(tableName, taskId, prefix))
    );
  for (const item of await prefixed(KEY_PREFIX.once)) {
    records.set(
      readString(item, ATTR.key, 'audit record'),
      readJson(item, ATTR.data, 'audit record')
    );
  }
  for (const item of await prefixed(KEY_PREFIX.inboxId)) {
    const row = decodeIntakeRow(item);
    if (row !== undefined) records.set(row.key, row.value);
  }
  for (const item of await prefixed(KEY_PREFIX.log)) {
    for (const record of decodeLogItem(item).audit()) records.set(record.key, record.value);
  }
  return records;
};
