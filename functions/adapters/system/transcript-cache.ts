import { type HistoryEntry, HistoryEntrySchema } from '../../core/loop/history.schema.js';
import type { InboxItem } from '../../core/loop/inbox.schema.js';
import type {
  CommitResult,
  TaskCommit,
  TaskQuery,
  TaskRecord,
  TaskStore,
} from '../../core/ports/task-store.js';

/** How much transcript text one process keeps, over all tasks (the least recently read go first). */
export const TRANSCRIPT_CACHE_CHARACTERS = 16 * 1024 * 1024;

interface CachedTranscript {
  /** The entries after this seq are held, each seq from `after + 1` on, none missing. */
  after: number;
  /** Each entry's JSON text: every read parses its own copy. */
  entries: string[];
  characters: number;
}

/**
 * A task store that keeps the transcripts it has read, so a task's next read asks the store only
 * for the entries after the last one it holds. A transcript entry is written once, by the commit
 * that takes the transcript past its seq, and never changes, so what was read stays true: each
 * turn reads the transcript since the last compaction for the model's context, which would
 * otherwise cost a long conversation more on every turn; a read bounded by a seq the caller knows
 * is committed (`throughSeq`: the record's) and already held asks the store nothing, and the
 * entries a commit through it writes are held at once. Only a run
 * of consecutive seqs is kept (a read that overlapped a commit may miss an entry before the last
 * it saw); the rest is read again next time. Everything else passes through.
 */
export class TranscriptCache implements TaskStore {
  readonly #inner: TaskStore;
  readonly #limit: number;
  /** By task id, least recently read first. */
  readonly #transcripts = new Map<string, CachedTranscript>();
  #characters = 0;

  constructor(inner: TaskStore, options: { characters?: number } = {}) {
    this.#inner = inner;
    this.#limit = options.characters ?? TRANSCRIPT_CACHE_CHARACTERS;
  }

  async readHistory(taskId: string, afterSeq = 0, throughSeq?: number): Promise<HistoryEntry[]> {
    const isSeq = (seq: number) => Number.isSafeInteger(seq) && seq >= 0;
    if (!isSeq(afterSeq) || (throughSeq !== undefined && !isSeq(throughSeq))) {
      return this.#inner.readHistory(taskId, afterSeq, throughSeq);
    }
    if (throughSeq !== undefined && throughSeq <= afterSeq) return [];
    const cached = this.#transcripts.get(taskId);
    // What is held serves a read from within it; any other read starts over from its own seq.
    const base =
      cached !== undefined &&
      cached.after <= afterSeq &&
      afterSeq <= cached.after + cached.entries.length
        ? cached
        : { after: afterSeq, entries: [], characters: 0 };
    const last = base.after + base.entries.length;
    const answer = (entries: readonly string[]) =>
      entries.map((text) => JSON.parse(text) as HistoryEntry);
    if (throughSeq !== undefined && throughSeq <= last) {
      // Held through the seq the caller knows to be committed: nothing to ask the store.
      this.#transcripts.delete(taskId);
      this.#transcripts.set(taskId, cached as CachedTranscript);
      return answer(base.entries.slice(afterSeq - base.after, throughSeq - base.after));
    }
    const read = await this.#inner.readHistory(taskId, last, throughSeq);
    const fresh = read.map((entry) => JSON.stringify(entry));
    const gap = read.findIndex((entry, index) => entry.seq !== last + index + 1);
    this.#hold(taskId, base, gap === -1 ? fresh : fresh.slice(0, gap));
    return answer([...base.entries.slice(afterSeq - base.after), ...fresh]);
  }

  /**
   * Keeps a task's transcript, `held` and then `added`, as the most recently read, within the
   * character limit.
   */
  #hold(taskId: string, held: CachedTranscript, added: readonly string[]): void {
    this.#drop(taskId);
    const characters = added.reduce((sum, text) => sum + text.length, held.characters);
    if (characters > this.#limit) return;
    this.#transcripts.set(taskId, {
      after: held.after,
      entries: [...held.entries, ...added],
      characters,
    });
    this.#characters += characters;
    for (const [oldest] of this.#transcripts) {
      if (this.#characters <= this.#limit) break;
      this.#drop(oldest);
    }
  }

  #drop(taskId: string): void {
    const cached = this.#transcripts.get(taskId);
    if (cached === undefined) return;
    this.#characters -= cached.characters;
    this.#transcripts.delete(taskId);
  }

  /**
   * A commit that went through adds its transcript entries to a transcript held up to them: they
   * are stored now, and the operation that wrote them (the drain, the response) is often the one
   * that reads next.
   */
  async commit(commit: TaskCommit): Promise<CommitResult> {
    const result = await this.#inner.commit(commit);
    if (commit.kind === 'create' || commit.kind === 'update') {
      this.#append(commit.record.task.id, commit.history ?? []);
    }
    return result;
  }

  #append(taskId: string, entries: readonly HistoryEntry[]): void {
    if (entries.length === 0) return;
    // A transcript's first entries are all of it so far: they start one.
    const cached = this.#transcripts.get(taskId) ?? { after: 0, entries: [], characters: 0 };
    // As a read gives them back: checked and stripped to the schema.
    const parsed = entries.map((entry) => HistoryEntrySchema.safeParse(entry));
    const sorted = parsed.flatMap((entry) => (entry.success ? [entry.data] : []));
    sorted.sort((a, b) => a.seq - b.seq);
    const last = cached.after + cached.entries.length;
    if (
      sorted.length !== entries.length ||
      sorted.some((entry, index) => entry.seq !== last + index + 1)
    ) {
      return;
    }
    this.#hold(
      taskId,
      cached,
      sorted.map((entry) => JSON.stringify(entry))
    );
  }
  get(taskId: string): Promise<TaskRecord | undefined> {
    return this.#inner.get(taskId);
  }
  list(query: TaskQuery): Promise<TaskRecord[]> {
    return this.#inner.list(query);
  }
  readInbox(taskId: string): Promise<InboxItem[]> {
    return this.#inner.readInbox(taskId);
  }
  inboxSeqOf(taskId: string, itemId: string): Promise<number | undefined> {
    return this.#inner.inboxSeqOf(taskId, itemId);
  }
  getAudit<T>(taskId: string, key: string): Promise<T | undefined> {
    return this.#inner.getAudit<T>(taskId, key);
  }
}
