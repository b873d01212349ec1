import type { HistoryEntry } from '../loop/history.schema.js';
import type { InboxItem } from '../loop/inbox.schema.js';
import type {
  CommitResult,
  TaskCommit,
  TaskQuery,
  TaskRecord,
  TaskStore,
} from '../ports/task-store.js';

export type TaskRecordListener = (before: TaskRecord | undefined, after: TaskRecord) => void;

/** A commit as the store saw it: for tests that count and inspect what operations write. */
export interface ObservedCommit {
  commit: TaskCommit;
  result: CommitResult;
}

/**
 * A task store that tells a listener about every task-record write, as DynamoDB's stream does
 * (old and new image), and counts what each operation reads and commits. Lets the in-process
 * harness play the stream handler's part, and tests hold operations to one read and one commit.
 */
export class ObservedTaskStore implements TaskStore {
  readonly #inner: TaskStore;
  readonly #listeners: TaskRecordListener[] = [];
  /** Every commit that succeeded, in order. */
  readonly commits: ObservedCommit[] = [];
  /** Reads of task records (`get`), per task id. */
  readonly recordReads = new Map<string, number>();
  /** Reads of an inbox item id's seq (`inboxSeqOf`): the dedupe check of a message. */
  idReads = 0;

  constructor(inner: TaskStore) {
    this.#inner = inner;
  }

  onChange(listener: TaskRecordListener): void {
    this.#listeners.push(listener);
  }

  async commit(commit: TaskCommit): Promise<CommitResult> {
    const before = commit.kind === 'update' ? commit.base : undefined;
    const result = await this.#inner.commit(commit);
    this.commits.push({ commit, result });
    if (result.record !== undefined) {
      for (const listener of this.#listeners) listener(before, result.record);
    }
    return result;
  }

  get(taskId: string): Promise<TaskRecord | undefined> {
    this.recordReads.set(taskId, (this.recordReads.get(taskId) ?? 0) + 1);
    return this.#inner.get(taskId);
  }
  list(query: TaskQuery): Promise<TaskRecord[]> {
    return this.#inner.list(query);
  }
  readHistory(taskId: string, afterSeq?: number, throughSeq?: number): Promise<HistoryEntry[]> {
    return this.#inner.readHistory(taskId, afterSeq, throughSeq);
  }
  readInbox(taskId: string): Promise<InboxItem[]> {
    return this.#inner.readInbox(taskId);
  }
  inboxSeqOf(taskId: string, itemId: string): Promise<number | undefined> {
    this.idReads++;
    return this.#inner.inboxSeqOf(taskId, itemId);
  }
  getAudit<T>(taskId: string, key: string): Promise<T | undefined> {
    return this.#inner.getAudit<T>(taskId, key);
  }
}
