/**
 * Messages waiting in a task's inbox, held on its record. A commit that writes the record (a
 * parked task's claim, a new task's first message) keeps the items it enqueues on the record
 * itself while they are small, and the drain that folds them into the transcript takes them off
 * in its own record write: a message that comes and goes between two record writes costs no item
 * of its own. What does not fit, and what a commit without a record write enqueues (a message to a
 * running task), is an `INBOX#<seq>` item as before; the record counts those
 * (`inbox_apart`, trusted on records that began counting at their creation), so a read of the
 * inbox queries them only when there are some.
 */
import type { InboxItem } from '../../core/loop/inbox.schema.js';
import { InboxItemSchema } from '../../core/loop/inbox.schema.js';
import { type Item, refuseInvalid, toJsonText } from './item-codec.js';
import { ATTR } from './table.js';

/** The most JSON text of waiting items a record holds; past it, items go apart. */
export const HELD_INBOX_CHARACTERS = 4_000;

/** Where a commit that writes the record keeps its inbox. */
export interface InboxPlacement {
  /** What the record holds after the commit. */
  held: InboxItem[];
  /** Enqueued items kept apart (`INBOX#<seq>`). */
  apart: InboxItem[];
  /** Consumed items that were apart: their items are deleted. */
  consumedApart: InboxItem[];
  /** Whether the record's held items change. */
  heldChanged: boolean;
}

export const placeInbox = (
  baseHeld: readonly InboxItem[],
  consumed: readonly InboxItem[],
  enqueued: readonly InboxItem[]
): InboxPlacement => {
  const consumedSeqs = new Set(consumed.map((item) => item.seq));
  const heldSeqs = new Set(baseHeld.map((item) => item.seq));
  const held = baseHeld.filter((item) => !consumedSeqs.has(item.seq));
  let characters = held.reduce((sum, item) => sum + JSON.stringify(item).length, 0);
  const apart: InboxItem[] = [];
  for (const item of enqueued) {
    const size = JSON.stringify(item).length;
    if (characters + size <= HELD_INBOX_CHARACTERS) {
      held.push(item);
      characters += size;
    } else {
      apart.push(item);
    }
  }
  return {
    held,
    apart,
    consumedApart: consumed.filter((item) => !heldSeqs.has(item.seq)),
    heldChanged: held.length !== baseHeld.length || consumed.some((item) => heldSeqs.has(item.seq)),
  };
};

/** The record attribute of held items (none when there are none: it is removed). */
export const heldInboxAttribute = (held: readonly InboxItem[]): Item | undefined =>
  held.length === 0
    ? undefined
    : {
        [ATTR.inboxHeld]: {
          S: toJsonText(held.map((item) => refuseInvalid(InboxItemSchema, item, 'inbox item'))),
        },
      };
