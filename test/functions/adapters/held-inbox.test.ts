import { describe, expect, it } from 'vitest';
import {
  HELD_INBOX_CHARACTERS,
  placeInbox,
} from '../../../functions/adapters/dynamodb/held-inbox.js';
import type { InboxItem } from '../../../functions/core/loop/inbox.schema.js';

const message = (seq: number, text = `message ${seq}`): InboxItem => ({
  seq,
  kind: 'message',
  id: `m-${seq}`,
  participantId: 'alice',
  source: 'human',
  text,
});

describe('where a record write keeps its inbox', () => {
  it('holds what it enqueues while it fits, and keeps the rest apart, in order', () => {
    const large = message(3, 'x'.repeat(HELD_INBOX_CHARACTERS));
    const placed = placeInbox([message(1)], [], [message(2), large, message(4)]);
    expect(placed.held.map((item) => item.seq)).toEqual([1, 2, 4]);
    expect(placed.apart.map((item) => item.seq)).toEqual([3]);
    expect(placed.heldChanged).toBe(true);
    expect(placed.consumedApart).toEqual([]);
  });

  it('takes consumed items off the record, and names those that were apart to delete', () => {
    const placed = placeInbox([message(1), message(3)], [message(1), message(2)], []);
    expect(placed.held.map((item) => item.seq)).toEqual([3]);
    expect(placed.consumedApart.map((item) => item.seq)).toEqual([2]);
    expect(placed.heldChanged).toBe(true);
  });

  it('leaves the record as it is when nothing held comes or goes', () => {
    const placed = placeInbox([message(1)], [message(2)], []);
    expect(placed.heldChanged).toBe(false);
    expect(placed.held.map((item) => item.seq)).toEqual([1]);
    expect(placed.consumedApart.map((item) => item.seq)).toEqual([2]);
  });
});
