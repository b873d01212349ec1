import { describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../../functions/core/loop/history.schema.js';
import { initialLoopState } from '../../../functions/core/loop/loop-state.schema.js';
import { InMemoryTaskStore } from '../../../functions/core/testing/in-memory-task-store.js';
import { MAX_HISTORY_MESSAGES, withHistory } from '../../../functions/service/task-history.js';
import { makeTask } from '../../conformance/fixtures.js';

/** A transcript of `exchanges` turns: a participant's message, a tool call, the model's answer. */
const transcript = (exchanges: number): HistoryEntry[] =>
  Array.from({ length: exchanges }, (_, index) => [
    {
      kind: 'participant_message' as const,
      participantId: 'alice',
      source: 'human' as const,
      text: `question ${index + 1}`,
    },
    { kind: 'tool_call' as const, callId: `c${index}`, name: 'noop', arguments: '{}' },
    { kind: 'assistant_message' as const, text: `answer ${index + 1}` },
  ])
    .flat()
    .map((entry, index) => ({ ...entry, seq: index + 1 }) as HistoryEntry);

const texts = (task: Awaited<ReturnType<typeof withHistory>>) =>
  task.history.map((message) =>
    message.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('')
  );

describe('the history a response carries (A2A §3.2.4)', () => {
  const setup = async (exchanges: number) => {
    const store = new InMemoryTaskStore();
    const task = makeTask('t-history');
    const record = { task, loop: initialLoopState(), version: 1, eventSeq: 0, inboxCount: 0 };
    await store.commit({ kind: 'create', record, history: transcript(exchanges) });
    return { store, task };
  };

  it('gives the messages only, the N most recent for N, none for 0, all for all', async () => {
    const { store, task } = await setup(3);

    expect(texts(await withHistory(store, task, 'all'))).toEqual([
      'question 1',
      'answer 1',
      'question 2',
      'answer 2',
      'question 3',
      'answer 3',
    ]);
    expect(texts(await withHistory(store, task, 3))).toEqual([
      'answer 2',
      'question 3',
      'answer 3',
    ]);
    expect(texts(await withHistory(store, task, 0))).toEqual([]);
  });

  it('never carries more than the cap: "all" and a larger N both give the most recent cap messages', async () => {
    const { store, task } = await setup(3);

    expect(texts(await withHistory(store, task, 'all', { cap: 2 }))).toEqual([
      'question 3',
      'answer 3',
    ]);
    expect(texts(await withHistory(store, task, 5, { cap: 2 }))).toEqual([
      'question 3',
      'answer 3',
    ]);
    expect(texts(await withHistory(store, task, 1, { cap: 2 }))).toEqual(['answer 3']);
    expect(MAX_HISTORY_MESSAGES).toBe(1_000);
  });
});
