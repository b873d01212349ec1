import * as z from 'zod';
import { harnessNoteFields, MessageSourceSchema, noteFields } from './history.schema.js';

/**
 * What waits for a task's next drain: accepted participant messages, notes from children, and
 * the harness's own notes (a reviewer's rejection of a criterion).
 * `seq` is the arrival order the store assigns; the loop keeps a cursor, so a retried drain never
 * folds an item twice.
 */
export const InboxItemSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    seq: z.int().min(1),
    kind: z.literal('message'),
    /** The A2A message id: the store deduplicates on it. */
    id: z.string(),
    participantId: z.string(),
    source: MessageSourceSchema,
    text: z.string(),
  }),
  z.strictObject({
    seq: z.int().min(1),
    kind: z.literal('note'),
    id: z.string(),
    ...noteFields,
    /** A child result the parent's model has not read yet (an ending or a remote turn). */
    result: z.boolean(),
  }),
  z.strictObject({
    seq: z.int().min(1),
    kind: z.literal('harness_note'),
    id: z.string(),
    ...harnessNoteFields,
  }),
]);
export type InboxItem = z.infer<typeof InboxItemSchema>;
export type InboxItemDraft = InboxItem extends infer I
  ? I extends InboxItem
    ? Omit<I, 'seq'>
    : never
  : never;
