/**
 * The ids a task's creation takes in without an inbox item (its first message, folded into the
 * transcript at once) are kept on its record, not as a dedup marker each: the creation writes an
 * item fewer. They stay refused like any marked id: every later commit that takes ids in is
 * conditioned on the record not holding them, and `inboxSeqOf` answers 0 for them. Long ids keep a
 * marker, so the record stays small whatever a client names its messages.
 */
import type { Item, ItemImage } from './item-shape.js';
import { ATTR } from './table.js';

/** The longest id (in characters) kept on the record; a longer one is a marker as before. */
export const SEEN_ON_RECORD_CHARACTERS = 200;

/** A creation's seen ids apart: those its record holds, and those that get a marker. */
export const seenAtCreationApart = (
  seen: readonly string[]
): { onRecord: string[]; marked: string[] } => {
  const onRecord = [...new Set(seen.filter((id) => id.length <= SEEN_ON_RECORD_CHARACTERS))];
  return { onRecord, marked: seen.filter((id) => !onRecord.includes(id)) };
};

/** The record attribute of the ids (none when there are none). */
export const seenAtCreationAttribute = (ids: readonly string[]): Item =>
  ids.length === 0 ? {} : { [ATTR.seenAtCreation]: { SS: [...ids] } };

/**
 * The conditions that the record's creation did not take in any of `ids`, binding their names
 * and values (none for no ids). An absent set contains nothing, so an earlier build's record
 * passes. One condition an id: a commit takes in a message or two (a claim's, a review's note),
 * far below the 4 KB a condition expression may hold.
 */
export const notSeenAtCreation = (
  names: Record<string, string>,
  values: Item,
  ids: readonly string[]
): string[] => {
  if (ids.length === 0) return [];
  names['#seen0'] = ATTR.seenAtCreation;
  return ids.map((id, index) => {
    values[`:seen0${index}`] = { S: id };
    return `NOT contains(#seen0, :seen0${index})`;
  });
};

/** Whether a record (as read) says its creation took `id` in. */
export const wasSeenAtCreation = (record: ItemImage | undefined, id: string): boolean =>
  record?.[ATTR.seenAtCreation]?.SS?.includes(id) === true;
