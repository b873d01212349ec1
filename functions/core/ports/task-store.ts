import type { Task } from '@a2a-js/sdk';
import type { HistoryEntry } from '../loop/history.schema.js';
import type { InboxItem, InboxItemDraft } from '../loop/inbox.schema.js';
import type { LoopState } from '../loop/loop-state.schema.js';

/** A task as stored: the A2A task (extensions in its metadata) and the loop's own state. */
export interface TaskRecord {
  task: Task;
  loop: LoopState;
  /** Optimistic concurrency: 1 on create, +1 on every update. */
  version: number;
}

export interface TaskQuery {
  contextId?: string | undefined;
  /** Only tasks this participant is on. */
  participantId?: string | undefined;
}

/**
 * Durable task state. Every write that can race is conditional.
 *
 * - `create` MUST fail with `AlreadyExistsError` when the id exists.
 * - `get` MUST return `undefined`, not throw, for an unknown id.
 * - `update` MUST write only if the stored version equals `record.version`, store
 *   `record.version + 1` and return the stored record; otherwise fail with
 *   `ConcurrencyConflictError`, writing nothing.
 * - `appendHistory` MUST be put-if-absent per `(taskId, seq)`: re-appending the same entries after
 *   a retry is a no-op; `readHistory` returns entries with `seq > afterSeq`, ascending.
 * - `enqueue` MUST deduplicate on `item.id` (returning the first item's seq and
 *   `duplicate: true`) and assign strictly increasing seqs per task; `readInbox` returns items
 *   with `seq > afterSeq`, ascending.
 * - `putOnce` MUST store `value` only if `key` is absent and return whatever is stored after the
 *   call (the first writer wins); `getOnce` returns it or `undefined`.
 * - Implementations MUST return copies: mutating a returned value never changes the store.
 */
export interface TaskStore {
  create(record: TaskRecord): Promise<TaskRecord>;
  get(taskId: string): Promise<TaskRecord | undefined>;
  update(record: TaskRecord): Promise<TaskRecord>;
  list(query: TaskQuery): Promise<TaskRecord[]>;
  appendHistory(taskId: string, entries: readonly HistoryEntry[]): Promise<void>;
  readHistory(taskId: string, afterSeq?: number): Promise<HistoryEntry[]>;
  enqueue(taskId: string, item: InboxItemDraft): Promise<{ seq: number; duplicate: boolean }>;
  readInbox(taskId: string, afterSeq: number): Promise<InboxItem[]>;
  putOnce<T>(taskId: string, key: string, value: T): Promise<T>;
  getOnce<T>(taskId: string, key: string): Promise<T | undefined>;
}
