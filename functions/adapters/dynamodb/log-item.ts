/**
 * A commit's log item: what a commit that writes the task record says, in one item instead of an
 * item per transcript entry, event and audit record. Its sort key is `LOG#<last event seq>#<record
 * version>`: every commit has its own version, and a later commit's events never precede an
 * earlier one's, so the items sort in commit order and "events after n" is the key range from
 * `LOG#<n + 1>`. The payload is one JSON text, cut into pieces past the item limit like any other
 * (`splitData`), read whole.
 */
import * as z from 'zod';
import { type HistoryEntry, HistoryEntrySchema } from '../../core/loop/history.schema.js';
import type { LoggedEvent, TaskEvent } from '../../core/ports/event-log.js';
import type { AuditRecord } from '../../core/ports/task-store.js';
import {
  eventFromJson,
  eventToJson,
  type Item,
  type ItemImage,
  invalid,
  key,
  parseWith,
  readInt,
  readJson,
  refuseInvalid,
  StoredEventSchema,
  toJsonText,
} from './item-codec.js';
import { packedText } from './packed-text.js';
import { ATTR, ITEM_TYPE, KEY_PREFIX, MAX_SEQ, padSeq } from './table.js';

export const logSk = (eventSeq: number, version: number) =>
  `${KEY_PREFIX.log}${padSeq(eventSeq)}#${padSeq(version)}`;

/** The first key a log item holding an event of seq `seq` or later can have. */
export const logSkFrom = (seq: number) => `${KEY_PREFIX.log}${padSeq(seq)}`;

/** Past every log item's key. */
export const LOG_SK_END = `${KEY_PREFIX.log}${padSeq(MAX_SEQ)}#~`;

/** What one commit says. */
export interface LogContent {
  history: readonly HistoryEntry[];
  events: readonly TaskEvent[];
  audit: readonly AuditRecord[];
}

/** Where a commit's log item stands. */
export interface LogPlace {
  /** The version the commit writes. */
  version: number;
  /** The seq of the task's last event after the commit (its own last, when it logs any). */
  eventSeq: number;
  /** The transcript's last seq after the commit (`LoggedEvent.historySeq` of its events). */
  historySeq: number;
  /** Marked for the push function: the task has a push config (only with events). */
  push: boolean;
}

const StoredLogSchema = z.strictObject({
  history: z.array(z.unknown()),
  events: z.array(z.unknown()),
  audit: z.array(z.strictObject({ key: z.string(), value: z.unknown() })),
});

/** The commit's log item, or `undefined` when it says nothing. Refuses what would not read back. */
export const encodeLogItem = (
  taskId: string,
  place: LogPlace,
  content: LogContent
): Item | undefined => {
  const { history, events, audit } = content;
  if (history.length === 0 && events.length === 0 && audit.length === 0) return undefined;
  const stored = {
    history: history.map((entry) => refuseInvalid(HistoryEntrySchema, entry, 'history entry')),
    events: events.map((event) => refuseInvalid(StoredEventSchema, eventToJson(event), 'event')),
    audit: audit.map((record) => ({ key: record.key, value: record.value })),
  };
  return {
    ...key(taskId, logSk(place.eventSeq, place.version)),
    [ATTR.type]: { S: ITEM_TYPE.log },
    [ATTR.version]: { N: String(place.version) },
    [ATTR.eventSeq]: { N: String(place.eventSeq) },
    [ATTR.eventCount]: { N: String(events.length) },
    [ATTR.historySeq]: { N: String(place.historySeq) },
    [ATTR.historyTop]: {
      N: String(stored.history.reduce((top, entry) => Math.max(top, entry.seq), place.historySeq)),
    },
    [ATTR.data]: { S: packedText(toJsonText(stored)) },
    ...(place.push && events.length > 0 ? { [ATTR.push]: { BOOL: true } } : {}),
  };
};

/** A log item's place, from its attributes alone (its payload may be in pieces). */
export interface LogItemHead {
  eventSeq: number;
  eventCount: number;
  historySeq: number;
  /** The highest transcript seq as of this commit: none of its entries, nor any before, is higher. */
  historyTop: number;
}

export const logItemHead = (image: ItemImage): LogItemHead => ({
  eventSeq: readInt(image, ATTR.eventSeq, 'log item', 0),
  eventCount: readInt(image, ATTR.eventCount, 'log item', 0),
  historySeq: readInt(image, ATTR.historySeq, 'log item', 0),
  historyTop: readInt(image, ATTR.historyTop, 'log item', 0),
});

/** A whole log item (its pieces joined) read back: each part checked as it is asked for. */
export const decodeLogItem = (image: ItemImage) => {
  const head = logItemHead(image);
  const stored = parseWith(StoredLogSchema, readJson(image, ATTR.data, 'log item'), 'log item');
  if (stored.events.length !== head.eventCount) {
    throw invalid(`log item (${stored.events.length} events, ${head.eventCount} named)`);
  }
  const firstSeq = head.eventSeq - head.eventCount + 1;
  return {
    head,
    history: (): HistoryEntry[] =>
      stored.history.map((entry) => parseWith(HistoryEntrySchema, entry, 'history entry')),
    events: (afterSeq = 0): LoggedEvent[] =>
      stored.events.flatMap((json, index) =>
        firstSeq + index > afterSeq
          ? [
              {
                seq: firstSeq + index,
                event: eventFromJson(json),
                historySeq: head.historySeq,
              },
            ]
          : []
      ),
    audit: (): AuditRecord[] => stored.audit,
  };
};
