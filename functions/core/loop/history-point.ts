import type { Task } from '@a2a-js/sdk';
import { HistoryPointError } from '../errors.js';
import type { LoggedEvent } from '../ports/event-log.js';
import type { TaskRecord } from '../ports/task-store.js';
import { taskAtPoint } from '../task/task-at.js';
import type { CompactionRecord } from './compaction.js';
import type { HistoryEntry } from './history.schema.js';
import type { ModelCallRecord } from './invoke-model.js';

/** A point in a task's history as a client names it: a message, just before a turn, or now. */
export type HistoryPoint =
  | { kind: 'message'; messageId: string }
  | { kind: 'before_turn'; turn: number }
  | { kind: 'latest' };

/** Where a turn's model response sits in the transcript, from its call's record. */
export interface TurnMark {
  /** The transcript's last seq the call was shown; undefined on records written before it. */
  shownThrough: number | undefined;
  /** The response's own entries (its text and its tool calls), which follow `shownThrough`. */
  entries: number;
  callIds: readonly string[];
}

/** A point as the transcript has it. */
export interface ResolvedPoint {
  /** The transcript's last seq kept (0: none). */
  throughSeq: number;
  /** The last history message kept; null when none is. */
  messageId: string | null;
}

/**
 * The A2A message id of a transcript entry, or null for entries that are not in the A2A history.
 * A participant's message keeps the id it came in (unique on its task: the inbox deduplicates on
 * it); the agent's, and entries written before ids were kept, take their place in the transcript.
 */
export const historyMessageId = (taskId: string, entry: HistoryEntry): string | null => {
  if (entry.kind === 'participant_message') {
    return entry.messageId ?? `${taskId}:history:${entry.seq}`;
  }
  if (entry.kind === 'assistant_message') return `${taskId}:history:${entry.seq}`;
  return null;
};

/** The seq of each call's result in the transcript (absent: no result yet). */
const resultSeqs = (entries: readonly HistoryEntry[]): Map<string, number> =>
  new Map(
    entries.flatMap((entry) =>
      entry.kind === 'tool_result' ? [[entry.callId, entry.seq] as const] : []
    )
  );

/**
 * The end of a model response whose entries end at `responseEnd`: the last of its calls' results,
 * undefined while one has none (it runs, or waits for approval).
 */
const endOfResponse = (
  responseEnd: number,
  callIds: readonly string[],
  results: ReadonlyMap<string, number>
): number | undefined => {
  let end = responseEnd;
  for (const callId of callIds) {
    const seq = results.get(callId);
    if (seq === undefined) return undefined;
    end = Math.max(end, seq);
  }
  return end;
};

/**
 * The point moved back until every tool call it keeps has its result: a fork never shows the
 * model a call without an answer, and never runs one again. A call without its result takes its
 * whole response (the text before it and its sibling calls) out.
 */
const withAnsweredCalls = (entries: readonly HistoryEntry[], through: number): number => {
  const kept = entries.filter((entry) => entry.seq <= through);
  const answered = new Set(
    kept.flatMap((entry) => (entry.kind === 'tool_result' ? [entry.callId] : []))
  );
  const open = kept.findIndex((entry) => entry.kind === 'tool_call' && !answered.has(entry.callId));
  if (open === -1) return through;
  let start = open;
  while (start > 0 && kept[start - 1]?.kind === 'tool_call') start--;
  if (start > 0 && kept[start - 1]?.kind === 'assistant_message') start--;
  return withAnsweredCalls(entries, (kept[start]?.seq ?? 1) - 1);
};

/** The seq a message point keeps through: the message, and for the agent's, its calls' results. */
const throughMessage = (
  taskId: string,
  entries: readonly HistoryEntry[],
  messageId: string
): number => {
  const index = entries.findIndex((entry) => historyMessageId(taskId, entry) === messageId);
  const entry = entries[index];
  if (entry === undefined) {
    throw new HistoryPointError(`task ${taskId} has no message ${messageId} in its history`);
  }
  if (entry.kind !== 'assistant_message') return entry.seq;
  const calls: string[] = [];
  for (const next of entries.slice(index + 1)) {
    if (next.kind !== 'tool_call') break;
    calls.push(next.callId);
  }
  const end = endOfResponse(entry.seq + calls.length, calls, resultSeqs(entries));
  if (end === undefined) {
    throw new HistoryPointError(
      `message ${messageId} of task ${taskId} made tool calls that have no result yet: fork at an earlier message, or once they have one`
    );
  }
  return end;
};

/** The seq "just before turn N" keeps through: everything turns 1 to N - 1 said and heard. */
const throughTurn = (
  taskId: string,
  entries: readonly HistoryEntry[],
  turn: number,
  marks: ReadonlyMap<number, TurnMark>,
  turnsTaken: number
): number => {
  if (turn > turnsTaken + 1) {
    throw new HistoryPointError(
      `task ${taskId} has taken ${turnsTaken} turn${turnsTaken === 1 ? '' : 's'}: before turn ${turn} is past its end`
    );
  }
  if (turn === 1) return 0;
  const mark = marks.get(turn - 1);
  if (mark?.shownThrough === undefined) {
    throw new HistoryPointError(
      `turn ${turn - 1} of task ${taskId} was recorded before turns were marked in the transcript: name a message instead`
    );
  }
  const responseEnd = mark.shownThrough + mark.entries;
  // A turn whose calls are still unanswered ends, for now, before its response.
  return endOfResponse(responseEnd, mark.callIds, resultSeqs(entries)) ?? mark.shownThrough;
};

/**
 * Where a point is in a task's transcript (`entries`: the whole of it, ascending): the last seq
 * it keeps, never inside a model response whose calls are unanswered, and the last message it
 * keeps. An unknown message, or a turn past the last one taken, is a `HistoryPointError`.
 */
export const resolvePoint = (options: {
  taskId: string;
  entries: readonly HistoryEntry[];
  point: HistoryPoint;
  /** Each turn's mark, by turn (only `before_turn` reads them). */
  marks: ReadonlyMap<number, TurnMark>;
  turnsTaken: number;
}): ResolvedPoint => {
  const { taskId, entries, point } = options;
  const asked =
    point.kind === 'message'
      ? throughMessage(taskId, entries, point.messageId)
      : point.kind === 'before_turn'
        ? throughTurn(taskId, entries, point.turn, options.marks, options.turnsTaken)
        : (entries.at(-1)?.seq ?? 0);
  const throughSeq = withAnsweredCalls(entries, asked);
  if (point.kind === 'message' && throughSeq !== asked) {
    throw new HistoryPointError(
      `message ${point.messageId} of task ${taskId} came between a tool call and its result: fork at an earlier message, or at the one that answered the call`
    );
  }
  const last = entries
    .filter((entry) => entry.seq <= throughSeq)
    .map((entry) => historyMessageId(taskId, entry))
    .filter((id): id is string => id !== null)
    .at(-1);
  return { throughSeq, messageId: last ?? null };
};

const RESPONSE_KEY = /^response:\d+:(\d+)$/;
const COMPACTION_KEY = /^compaction:\d+:\d+$/;

/** What a task's records say of its history: each turn's mark, by turn, and every compaction. */
export const historyRecordsOf = (
  records: ReadonlyMap<string, unknown>
): { marks: Map<number, TurnMark>; compactions: CompactionRecord[] } => {
  const marks = new Map<number, TurnMark>();
  const compactions: CompactionRecord[] = [];
  for (const [key, value] of records) {
    const turn = RESPONSE_KEY.exec(key)?.[1];
    if (turn !== undefined) {
      const call = value as ModelCallRecord;
      marks.set(Number(turn), {
        shownThrough: call.history_seq,
        entries: (call.text === '' ? 0 : 1) + call.toolCalls.length,
        callIds: call.toolCalls.map((toolCall) => toolCall.id),
      });
    } else if (COMPACTION_KEY.test(key)) {
      compactions.push(value as CompactionRecord);
    }
  }
  return { marks, compactions };
};

/** The compaction the model was shown at a point: the latest one made by then. */
export const compactionAtPoint = (
  records: readonly CompactionRecord[],
  throughSeq: number
): CompactionRecord | undefined =>
  records
    .filter((record) => (record.history_seq ?? record.removed_through) <= throughSeq)
    .filter((record) => record.removed_through <= throughSeq)
    .reduce<CompactionRecord | undefined>(
      (latest, record) =>
        latest === undefined || record.removed_through > latest.removed_through ? record : latest,
      undefined
    );

/** A task at a point of its history: everything a fork or a look back needs. */
export interface TaskAtPoint {
  point: ResolvedPoint;
  /** The transcript through the point. */
  entries: HistoryEntry[];
  /** The task as its log says it was at the point (the record's task when its log has none). */
  asItWas: Task;
  /** The compaction the model had been shown by the point, if any. */
  compaction: CompactionRecord | undefined;
}

/**
 * A task at a point (pure), from what was read of it once: its record, its whole transcript, its
 * records by key and its event log. An unknown point is a `HistoryPointError`.
 */
export const taskAtHistoryPoint = (
  read: {
    record: TaskRecord;
    entries: readonly HistoryEntry[];
    records: ReadonlyMap<string, unknown>;
    log: readonly LoggedEvent[];
  },
  point: HistoryPoint
): TaskAtPoint => {
  const { record, entries } = read;
  const taskId = record.task.id;
  const { marks, compactions } = historyRecordsOf(read.records);
  const resolved = resolvePoint({ taskId, entries, point, marks, turnsTaken: record.loop.turn });
  return {
    point: resolved,
    entries: entries.filter((entry) => entry.seq <= resolved.throughSeq),
    asItWas: taskAtPoint(read.log, resolved.throughSeq) ?? record.task,
    compaction: compactionAtPoint(compactions, resolved.throughSeq),
  };
};
