import { describe, expect, it } from 'vitest';
import { TranscriptCache } from '../../../functions/adapters/system/transcript-cache.js';
import type { HistoryEntry } from '../../../functions/core/loop/history.schema.js';
import type { TaskStore } from '../../../functions/core/ports/task-store.js';
import { InMemoryTaskStore } from '../../../functions/core/testing/in-memory-task-store.js';
import { makeRecord } from '../../conformance/fixtures.js';

const said = (seq: number, text = `entry ${seq}`): HistoryEntry => ({
  seq,
  kind: 'assistant_message',
  text,
});

/** An in-memory store whose transcript reads are recorded (the seq each asked after). */
const recorded = () => {
  const store = new InMemoryTaskStore();
  const asked: number[] = [];
  const inner: TaskStore = {
    commit: (commit) => store.commit(commit),
    get: (taskId) => store.get(taskId),
    list: (query) => store.list(query),
    readHistory: (taskId, afterSeq, throughSeq) => {
      asked.push(afterSeq ?? 0);
      return store.readHistory(taskId, afterSeq, throughSeq);
    },
    readInbox: (taskId) => store.readInbox(taskId),
    inboxSeqOf: (taskId, itemId) => store.inboxSeqOf(taskId, itemId),
    getAudit: (taskId, key) => store.getAudit(taskId, key),
  };
  return { store, inner, asked };
};

const withTranscript = async (store: TaskStore, seqs: number) => {
  const record = makeRecord(`task-${Math.random()}`);
  await store.commit({
    kind: 'create',
    record,
    history: Array.from({ length: seqs }, (_, index) => said(index + 1)),
  });
  return record.task.id;
};

describe('the transcript cache', () => {
  it('asks the store only for the entries after the last it holds, and answers the whole range', async () => {
    const { store, inner, asked } = recorded();
    const cache = new TranscriptCache(inner);
    const taskId = await withTranscript(store, 3);

    expect(await cache.readHistory(taskId)).toEqual([said(1), said(2), said(3)]);
    const created = (await store.get(taskId))!;
    await store.commit({
      kind: 'update',
      base: created,
      record: created,
      history: [said(4), said(5)],
    });
    // The turn reads after its compaction (seq 2): the cache holds 3, the store gives 4 and 5.
    expect(await cache.readHistory(taskId, 2)).toEqual([said(3), said(4), said(5)]);
    expect(await cache.readHistory(taskId)).toEqual([1, 2, 3, 4, 5].map((seq) => said(seq)));
    expect(asked).toEqual([0, 3, 5]);
  });

  it('asks the store nothing for a read through a seq it holds, and only past it otherwise', async () => {
    const { store, inner, asked } = recorded();
    const cache = new TranscriptCache(inner);
    const taskId = await withTranscript(store, 4);

    expect(await cache.readHistory(taskId, 0, 3)).toEqual([said(1), said(2), said(3)]);
    // What a turn reads: after its compaction, through the record's seq.
    expect(await cache.readHistory(taskId, 1, 3)).toEqual([said(2), said(3)]);
    expect(await cache.readHistory(taskId, 1, 2)).toEqual([said(2)]);
    expect(await cache.readHistory(taskId, 2, 4)).toEqual([said(3), said(4)]);
    expect(await cache.readHistory(taskId, 0, 4)).toHaveLength(4);
    expect(asked).toEqual([0, 3]);
  });

  it('holds what a commit through it writes after what it holds, and asks the store nothing for it', async () => {
    const { store, inner, asked } = recorded();
    const cache = new TranscriptCache(inner);
    const taskId = await withTranscript(store, 2);
    await cache.readHistory(taskId, 0, 2);
    const record = (await store.get(taskId))!;

    const { record: turned } = await cache.commit({
      kind: 'update',
      base: record,
      record,
      history: [said(4), said(3)],
    });
    expect(turned).toBeDefined();
    expect(await cache.readHistory(taskId, 1, 4)).toEqual([said(2), said(3), said(4)]);
    // A commit that does not follow what is held (another process wrote 5) holds nothing.
    await store.commit({ kind: 'update', base: turned!, record: turned!, history: [said(5)] });
    const later = (await store.get(taskId))!;
    await cache.commit({ kind: 'update', base: later, record: later, history: [said(6)] });
    expect(await cache.readHistory(taskId, 0, 6)).toHaveLength(6);
    expect(asked).toEqual([0, 4]);
  });

  it("holds a new task's first entries from its commit, and nothing of a later one it does not hold", async () => {
    const { store, inner, asked } = recorded();
    const cache = new TranscriptCache(inner);
    const record = makeRecord(`task-${Math.random()}`);
    const taskId = record.task.id;
    await cache.commit({ kind: 'create', record, history: [said(1), said(2)] });
    expect(await cache.readHistory(taskId, 0, 2)).toEqual([said(1), said(2)]);
    expect(asked).toEqual([]);

    const other = await withTranscript(store, 3);
    const stored = (await store.get(other))!;
    await cache.commit({ kind: 'update', base: stored, record: stored, history: [said(4)] });
    expect(await cache.readHistory(other, 0, 4)).toHaveLength(4);
    expect(asked).toEqual([0]);
  });

  it('starts over for a read before what it holds, or past its end', async () => {
    const { store, inner, asked } = recorded();
    const cache = new TranscriptCache(inner);
    const taskId = await withTranscript(store, 6);

    expect(await cache.readHistory(taskId, 4)).toEqual([said(5), said(6)]);
    expect(await cache.readHistory(taskId, 1)).toHaveLength(5);
    expect(await cache.readHistory(taskId, 6)).toEqual([]);
    expect(await cache.readHistory(taskId, 9)).toEqual([]);
    expect(asked).toEqual([4, 1, 6, 9]);
  });

  it('holds only consecutive seqs: an entry missing from a read is read again next time', async () => {
    const store = new InMemoryTaskStore();
    const taskId = await withTranscript(store, 4);
    let reads = 0;
    const inner: TaskStore = Object.assign(Object.create(store) as TaskStore, {
      // The first read overlapped a commit: it saw 1, 3 and 4 but not 2.
      readHistory: async (id: string, afterSeq = 0) => {
        const entries = await store.readHistory(id, afterSeq);
        return reads++ === 0 ? entries.filter((entry) => entry.seq !== 2) : entries;
      },
    });
    const cache = new TranscriptCache(inner);

    expect((await cache.readHistory(taskId)).map((entry) => entry.seq)).toEqual([1, 3, 4]);
    expect((await cache.readHistory(taskId)).map((entry) => entry.seq)).toEqual([1, 2, 3, 4]);
  });

  it('answers copies, and keeps at most its characters, the least recently read going first', async () => {
    const { store, inner, asked } = recorded();
    const entry = JSON.stringify(said(1)).length;
    const cache = new TranscriptCache(inner, { characters: entry * 3 });
    const first = await withTranscript(store, 2);
    const second = await withTranscript(store, 2);

    const [read] = await cache.readHistory(first);
    (read as { text: string }).text = 'mutated';
    await cache.readHistory(second);
    // Both held would be four entries: the first task's transcript is dropped.
    expect(await cache.readHistory(first)).toEqual([said(1), said(2)]);
    expect(asked).toEqual([0, 0, 0]);
    await cache.readHistory(first);
    expect(asked).toEqual([0, 0, 0, 2]);
  });
});
