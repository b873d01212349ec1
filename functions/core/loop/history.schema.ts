import * as z from 'zod';

/**
 * What a harness note is about: the task's acceptance criteria that keep it from completing, a
 * reviewer's rejection of one, or the tool calls of a response past the most one may make. The harness's own words (and a reviewer's reason), never framed as
 * untrusted.
 */
export const HarnessNoteTopicSchema = z.enum([
  'criteria_unmet',
  'criterion_rejected',
  'criteria_changed',
  'tool_calls_dropped',
]);
export type HarnessNoteTopic = z.infer<typeof HarnessNoteTopicSchema>;

/** Agents' words are data to the model, never instructions: they are framed as untrusted. */
export const MessageSourceSchema = z.enum(['human', 'agent']);

/** What a child's news says, in the inbox as in the transcript. */
export const noteFields = {
  /** The child task the news is about. */
  fromTaskId: z.string(),
  text: z.string(),
};

/** What a harness note says, in the inbox as in the transcript. */
export const harnessNoteFields = {
  topic: HarnessNoteTopicSchema,
  /** Ids of the acceptance criteria it names. */
  criteria: z.array(z.string()),
  text: z.string(),
};

/**
 * The transcript: many small entries, never one big item. `seq` is the entry's position in the
 * task's transcript (1, 2, ...); compaction names the entries it summarised by seq.
 */
const base = { seq: z.int().min(1) };

export const HistoryEntrySchema = z.discriminatedUnion('kind', [
  z.strictObject({
    ...base,
    kind: z.literal('participant_message'),
    participantId: z.string(),
    /** The A2A message id it came in (absent on entries written before it was kept). */
    messageId: z.string().optional(),
    source: MessageSourceSchema,
    text: z.string(),
  }),
  z.strictObject({ ...base, kind: z.literal('assistant_message'), text: z.string() }),
  z.strictObject({
    ...base,
    kind: z.literal('tool_call'),
    callId: z.string(),
    name: z.string(),
    arguments: z.string(),
  }),
  z.strictObject({
    ...base,
    kind: z.literal('tool_result'),
    callId: z.string(),
    name: z.string(),
    output: z.string(),
    isError: z.boolean(),
  }),
  z.strictObject({ ...base, kind: z.literal('note'), ...noteFields }),
  z.strictObject({ ...base, kind: z.literal('harness_note'), ...harnessNoteFields }),
]);
export type HistoryEntry = z.infer<typeof HistoryEntrySchema>;
export type HistoryEntryDraft = HistoryEntry extends infer E
  ? E extends HistoryEntry
    ? Omit<E, 'seq'>
    : never
  : never;
