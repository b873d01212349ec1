import type { HistoryEntry } from '../loop/history.schema.js';
import type { InboxItem, InboxItemDraft } from '../loop/inbox.schema.js';
import type { TaskQuery, TaskRecord, TaskStore } from '../ports/task-store.js';

export type TaskRecordListener = (before: TaskRecord | undefined, after: TaskRecord) => void;

/**
 * A task store that tells a listener about every task-record write, as DynamoDB's stream does
 * (old and new image). Lets the in-process harness play the stream handler's part.
 */
export class ObservedTaskStore implements TaskStore {
  readonly #inner: TaskStore;
  readonly #listeners: TaskRecordListener[] = [];

  constructor(inner: TaskStore) {
    this.#inner = inner;
  }

  onChange(listener: TaskRecordListener): void {
    this.#listeners.push(listener);
  }

  async create(record: TaskRecord): Promise<TaskRecord> {
    const created = await this.#inner.create(record);
    for (const listener of this.#listeners) listener(undefined, created);
    return created;
  }

  async update(record: TaskRecord): Promise<TaskRecord> {
    const before = await this.#inner.get(record.task.id);
    const updated = await this.#inner.update(record);
    for (const listener of this.#listeners) listener(before, updated);
    return updated;
  }

  get(taskId: string): Promise<TaskRecord | undefined> {
    return this.#inner.get(taskId);
  }
  list(query: TaskQuery): Promise<TaskRecord[]> {
    return this.#inner.list(query);
  }
  appendHistory(taskId: string, entries: readonly HistoryEntry[]): Promise<void> {
    return this.#inner.appendHistory(taskId, entries);
  }
  readHistory(taskId: string, afterSeq?: number): Promise<HistoryEntry[]> {
    return this.#inner.readHistory(taskId, afterSeq);
  }
  enqueue(taskId: string, item: InboxItemDraft): Promise<{ seq: number; duplicate: boolean }> {
    return this.#inner.enqueue(taskId, item);
  }
  readInbox(taskId: string, afterSeq: number): Promise<InboxItem[]> {
    return this.#inner.readInbox(taskId, afterSeq);
  }
  putOnce<T>(taskId: string, key: string, value: T): Promise<T> {
    return this.#inner.putOnce(taskId, key, value);
  }
  getOnce<T>(taskId: string, key: string): Promise<T | undefined> {
    return this.#inner.getOnce(taskId, key);
  }
}
