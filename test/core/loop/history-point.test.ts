import { describe, expect, it } from 'vitest';
import { HistoryPointError } from '../../../functions/core/errors.js';

import type { CompactionRecord } from '../../../functions/core/loop/compaction.js';
import type { HistoryEntry } from '../../../functions/core/loop/history.schema.js';
import {
  compactionAtPoint,
  historyRecordsOf,
  resolvePoint,
  type TurnMark,
} from '../../../functions/core/loop/history-point.js';

const T = 'task-1';
const said = (seq: number, messageId: string): HistoryEntry => ({
  seq,
  kind: 'participant_message',
  participantId: 'alice',
  messageId,
  source: 'human',
  text: `said ${seq}`,
});
const answer = (seq: number): HistoryEntry => ({ seq, kind: 'assistant_message', text: `a${seq}` });
const call = (seq: number, callId: string): HistoryEntry => ({
  seq,
  kind: 'tool_call',
  callId,
  name: 'lookup',
  arguments: '{}',
});
const result = (seq: number, callId: string): HistoryEntry => ({
  seq,
  kind: 'tool_result',
  callId,
  name: 'lookup',
  output: 'found',
  isError: false,
});

/** Turn 1: m1 → a2 + c1 (result 4); turn 2: a5; turn 3: m6 → a7 + c2 (no result yet). */
const ENTRIES = [
  said(1, 'm1'),
  answer(2),
  call(3, 'c1'),
  result(4, 'c1'),
  answer(5),
  said(6, 'm6'),
  answer(7),
  call(8, 'c2'),
];
const MARKS = new Map<number, TurnMark>([
  [1, { shownThrough: 1, entries: 2, callIds: ['c1'] }],
  [2, { shownThrough: 4, entries: 1, callIds: [] }],
  [3, { shownThrough: 6, entries: 2, callIds: ['c2'] }],
]);
const resolve = (point: Parameters<typeof resolvePoint>[0]['point']) =>
  resolvePoint({ taskId: T, entries: ENTRIES, point, marks: MARKS, turnsTaken: 3 });

describe('where a point is in the transcript', () => {
  it('keeps a participant’s message and all before it', () => {
    expect(resolve({ kind: 'message', messageId: 'm1' })).toEqual({
      throughSeq: 1,
      messageId: 'm1',
    });
  });

  it('keeps the agent’s message with its calls’ results', () => {
    expect(resolve({ kind: 'message', messageId: `${T}:history:2` })).toEqual({
      throughSeq: 4,
      messageId: `${T}:history:2`,
    });
  });

  it('refuses the agent’s message whose calls have no result yet', () => {
    expect(() => resolve({ kind: 'message', messageId: `${T}:history:7` })).toThrow(
      /no result yet/
    );
  });

  it('never ends inside an unanswered response: the latest point moves back before it', () => {
    expect(resolve({ kind: 'latest' })).toEqual({ throughSeq: 6, messageId: 'm6' });
  });

  it('takes "before turn N" as everything turns 1 to N - 1 said and heard', () => {
    expect(resolve({ kind: 'before_turn', turn: 1 })).toEqual({ throughSeq: 0, messageId: null });
    expect(resolve({ kind: 'before_turn', turn: 2 })).toEqual({
      throughSeq: 4,
      messageId: `${T}:history:2`,
    });
    expect(resolve({ kind: 'before_turn', turn: 3 })).toEqual({
      throughSeq: 5,
      messageId: `${T}:history:5`,
    });
    // Turn 3's calls are unanswered: before turn 4 is, for now, before its response.
    expect(resolve({ kind: 'before_turn', turn: 4 })).toEqual({ throughSeq: 6, messageId: 'm6' });
  });

  it('refuses an unknown message, a turn past the end, and a turn recorded before marks', () => {
    expect(() => resolve({ kind: 'message', messageId: 'nope' })).toThrow(HistoryPointError);
    expect(() => resolve({ kind: 'before_turn', turn: 5 })).toThrow(/taken 3 turns/);
    const unmarked = new Map(MARKS).set(1, { shownThrough: undefined, entries: 2, callIds: [] });
    expect(() =>
      resolvePoint({
        taskId: T,
        entries: ENTRIES,
        point: { kind: 'before_turn', turn: 2 },
        marks: unmarked,
        turnsTaken: 3,
      })
    ).toThrow(/name a message instead/);
  });

  it('reads each turn’s mark and every compaction from the records', () => {
    const records = new Map<string, unknown>([
      ['response:1:1', { text: 'a', toolCalls: [{ id: 'c1' }], history_seq: 1 }],
      ['response:2:2', { text: '', toolCalls: [], history_seq: 4 }],
      ['compaction:1:2', { removed_through: 2 }],
      ['audit:m1', { accepted: true }],
    ]);
    const { marks, compactions } = historyRecordsOf(records);
    expect(marks.get(1)).toEqual({ shownThrough: 1, entries: 2, callIds: ['c1'] });
    expect(marks.get(2)).toEqual({ shownThrough: 4, entries: 0, callIds: [] });
    expect(compactions).toHaveLength(1);
  });

  it('shows a fork the latest compaction made by its point', () => {
    const compaction = (removed: number, at?: number) =>
      ({ removed_through: removed, history_seq: at, summary: `s${removed}` }) as CompactionRecord;
    // The first was written before records kept their seq: it counts from what it removed.
    const records = [compaction(1), compaction(2, 5), compaction(6, 9)];
    expect(compactionAtPoint(records, 4)?.summary).toBe('s1');
    expect(compactionAtPoint(records, 8)?.summary).toBe('s2');
    expect(compactionAtPoint(records, 9)?.summary).toBe('s6');
    expect(compactionAtPoint(records, 0)).toBeUndefined();
  });
});
