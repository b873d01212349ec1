import { type Message, Role, type Task } from '@a2a-js/sdk';
import type { HistoryEntry } from '../core/loop/history.schema.js';
import { historyMessageId } from '../core/loop/history-point.js';
import type { TaskStore } from '../core/ports/task-store.js';
import { A2aError } from './a2a-errors.js';

/** How much of the transcript a response carries (A2A §3.2.4): none, the N most recent, or all. */
export type HistoryLimit = number | 'all';

/**
 * The most messages one response carries, whatever the request asks (§3.2.4 lets the server
 * apply a lower limit): a years-long conversation must not make an answer of unbounded size.
 */
export const MAX_HISTORY_MESSAGES = 1_000;

/**
 * What a request's `historyLength` asks for, given the operation's default when it is unset. A
 * negative or fractional length is malformed.
 */
export const historyLimit = (
  historyLength: number | undefined,
  unset: HistoryLimit
): HistoryLimit => {
  if (historyLength === undefined) return unset;
  if (!Number.isSafeInteger(historyLength) || historyLength < 0) {
    throw new A2aError('InvalidParams', 'historyLength must be a non-negative integer');
  }
  return historyLength;
};

const textMessage = (
  task: Task,
  entry: HistoryEntry,
  role: Role,
  text: string,
  metadata: Record<string, unknown> | undefined
): Message => ({
  messageId: historyMessageId(task.id, entry) ?? `${task.id}:history:${entry.seq}`,
  contextId: task.contextId,
  taskId: task.id,
  role,
  parts: [
    {
      content: { $case: 'text', value: text },
      metadata: undefined,
      filename: '',
      mediaType: 'text/plain',
    },
  ],
  metadata,
  extensions: [],
  referenceTaskIds: [],
});

type EntryOf<K extends HistoryEntry['kind']> = Extract<HistoryEntry, { kind: K }>;

/**
 * Which transcript entries are A2A messages, per kind (a new kind does not compile until it is
 * decided here). What participants said (people and agents alike: to this agent every participant
 * is a client) is ROLE_USER with `participant_id` in the metadata; what the model said is
 * ROLE_AGENT. Tool calls and results are the agent's own working, notes are a child's news to
 * the agent, and harness notes the harness's word to it (unmet criteria, a reviewer's rejection,
 * whose effect is on the task's criteria): none is a message between a client and the agent, so
 * none is in the A2A history
 * (auditors read them from the event log and the execution history).
 */
const AS_MESSAGE: {
  [K in HistoryEntry['kind']]: (task: Task, entry: EntryOf<K>) => Message | null;
} = {
  participant_message: (task, entry) =>
    textMessage(task, entry, Role.ROLE_USER, entry.text, { participant_id: entry.participantId }),
  assistant_message: (task, entry) =>
    textMessage(task, entry, Role.ROLE_AGENT, entry.text, undefined),
  tool_call: () => null,
  tool_result: () => null,
  note: () => null,
  harness_note: () => null,
};

/** The transcript as A2A messages, in transcript order. */
export const transcriptMessages = (task: Task, entries: readonly HistoryEntry[]): Message[] =>
  entries.flatMap((entry) => {
    const asMessage = AS_MESSAGE[entry.kind] as (task: Task, entry: HistoryEntry) => Message | null;
    const message = asMessage(task, entry);
    return message === null ? [] : [message];
  });

/**
 * The task with its history as limited, never more than the `cap` most recent messages. The stored task keeps `history: []` (the transcript is
 * many small items), so the history is built from the transcript here, and not read at all when
 * none is wanted. Messages still in the inbox (not yet folded in by a turn) are not history yet.
 */
export const withHistory = async (
  store: TaskStore,
  task: Task,
  limit: HistoryLimit,
  options: {
    cap?: number;
    /** The transcript's last seq as the task's record knows it (the answer's snapshot). */
    throughSeq?: number | undefined;
  } = {}
): Promise<Task> => {
  if (limit === 0) return { ...task, history: [] };
  const entries = await store.readHistory(task.id, 0, options.throughSeq);
  return withHistoryOf(task, entries, limit, options.cap);
};

/** The task with its history as limited, from transcript entries already read (pure). */
export const withHistoryOf = (
  task: Task,
  entries: readonly HistoryEntry[],
  limit: HistoryLimit,
  cap = MAX_HISTORY_MESSAGES
): Task => {
  if (limit === 0) return { ...task, history: [] };
  const messages = transcriptMessages(task, entries);
  return { ...task, history: messages.slice(-(limit === 'all' ? cap : Math.min(limit, cap))) };
};
