import { Task, taskStateToJSON } from '@a2a-js/sdk';
import { TASK_METADATA_KEY } from '../a2a/identifiers.js';
import { AlreadyExistsError, ConcurrencyConflictError, InvalidTaskRecordError } from '../errors.js';
import { type HistoryEntry, HistoryEntrySchema } from '../loop/history.schema.js';
import { type InboxItem, type InboxItemDraft, InboxItemSchema } from '../loop/inbox.schema.js';
import { type LoopState, LoopStateSchema } from '../loop/loop-state.schema.js';
import type { TaskQuery, TaskRecord, TaskStore } from '../ports/task-store.js';
import { TaskExtensionSchema } from '../task/extension.schema.js';

/** A stored record: JSON text, as a real store holds it, so every read is a fresh copy. */
interface StoredRecord {
  task: string;
  loop: string;
  version: number;
}

interface TaskPartition {
  record?: StoredRecord;
  history: Map<number, string>;
  inbox: Map<number, string>;
  /** Inbox item id -> the seq of the first item with it. */
  inboxIds: Map<string, number>;
  lastInboxSeq: number;
  once: Map<string, string>;
}

/** The JSON text of a value; `undefined`, functions and symbols have none. */
const toJsonText = (value: unknown): string => {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError('the value is not JSON-serialisable');
  return text;
};

const refuse = (what: string, detail: string) =>
  new InvalidTaskRecordError(`refusing to store an invalid ${what}: ${detail}`);

/** The task in its ProtoJSON text (what the DynamoDB adapter stores), after the same checks. */
const encodeTask = (task: Task): string => {
  if (typeof task.id !== 'string' || task.id === '') throw refuse('task', 'no id');
  if (taskStateToJSON(task.status?.state ?? 0) === 'UNRECOGNIZED') {
    throw refuse('task', 'unknown state');
  }
  return toJsonText(Task.toJSON(task));
};

const encodeLoop = (loop: LoopState): string => {
  const parsed = LoopStateSchema.safeParse(loop);
  if (!parsed.success) throw refuse('loop state', parsed.error.message);
  return toJsonText(parsed.data);
};

const decodeRecord = (stored: StoredRecord): TaskRecord => ({
  task: Task.fromJSON(JSON.parse(stored.task)),
  loop: JSON.parse(stored.loop) as LoopState,
  version: stored.version,
});

const participantIdsOf = (task: Task): string[] => {
  const parsed = TaskExtensionSchema.safeParse(task.metadata?.[TASK_METADATA_KEY]);
  return parsed.success ? parsed.data.participants.map((participant) => participant.id) : [];
};

const byTaskId = (a: TaskRecord, b: TaskRecord) =>
  a.task.id < b.task.id ? -1 : a.task.id > b.task.id ? 1 : 0;

/**
 * The in-memory `TaskStore`: the reference behaviour of the port contract, and the fake the core's
 * tests use. It passes the same conformance suite as the DynamoDB adapter (test/conformance).
 * Values are kept as JSON text, so nothing a caller holds aliases the store.
 */
export class InMemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, TaskPartition>();

  #partition(taskId: string): TaskPartition {
    let partition = this.#tasks.get(taskId);
    if (partition === undefined) {
      partition = {
        history: new Map(),
        inbox: new Map(),
        inboxIds: new Map(),
        lastInboxSeq: 0,
        once: new Map(),
      };
      this.#tasks.set(taskId, partition);
    }
    return partition;
  }

  async create(record: TaskRecord): Promise<TaskRecord> {
    const stored: StoredRecord = {
      task: encodeTask(record.task),
      loop: encodeLoop(record.loop),
      version: 1,
    };
    const partition = this.#partition(record.task.id);
    if (partition.record !== undefined) {
      throw new AlreadyExistsError(`task ${record.task.id} already exists`);
    }
    partition.record = stored;
    return decodeRecord(stored);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const stored = this.#tasks.get(taskId)?.record;
    return stored === undefined ? undefined : decodeRecord(stored);
  }

  async update(record: TaskRecord): Promise<TaskRecord> {
    const taskId = record.task.id;
    const current = this.#tasks.get(taskId)?.record;
    if (current === undefined || current.version !== record.version) {
      throw new ConcurrencyConflictError(`task ${taskId}: stored version is not ${record.version}`);
    }
    const stored: StoredRecord = {
      task: encodeTask(record.task),
      loop: encodeLoop(record.loop),
      version: record.version + 1,
    };
    this.#partition(taskId).record = stored;
    return decodeRecord(stored);
  }

  async list(query: TaskQuery): Promise<TaskRecord[]> {
    const { contextId, participantId } = query;
    // As in the DynamoDB store: an empty filter matches nothing (never "everything").
    if (contextId === '' || participantId === '') return [];
    const records: TaskRecord[] = [];
    for (const partition of this.#tasks.values()) {
      if (partition.record === undefined) continue;
      const record = decodeRecord(partition.record);
      if (contextId !== undefined && record.task.contextId !== contextId) continue;
      if (participantId !== undefined && !participantIdsOf(record.task).includes(participantId)) {
        continue;
      }
      records.push(record);
    }
    return records.sort(byTaskId);
  }

  async appendHistory(taskId: string, entries: readonly HistoryEntry[]): Promise<void> {
    const encoded = entries.map((entry) => {
      const parsed = HistoryEntrySchema.safeParse(entry);
      if (!parsed.success) throw refuse('history entry', parsed.error.message);
      return parsed.data;
    });
    const history = this.#partition(taskId).history;
    for (const entry of encoded) {
      if (!history.has(entry.seq)) history.set(entry.seq, toJsonText(entry));
    }
  }

  async readHistory(taskId: string, afterSeq = 0): Promise<HistoryEntry[]> {
    const history = this.#tasks.get(taskId)?.history;
    if (history === undefined) return [];
    return [...history.entries()]
      .filter(([seq]) => seq > afterSeq)
      .sort(([a], [b]) => a - b)
      .map(([, text]) => JSON.parse(text) as HistoryEntry);
  }

  async enqueue(
    taskId: string,
    item: InboxItemDraft
  ): Promise<{ seq: number; duplicate: boolean }> {
    const partition = this.#partition(taskId);
    const first = partition.inboxIds.get(item.id);
    if (first !== undefined) return { seq: first, duplicate: true };
    const seq = partition.lastInboxSeq + 1;
    const parsed = InboxItemSchema.safeParse({ ...item, seq });
    if (!parsed.success) throw refuse('inbox item', parsed.error.message);
    partition.inbox.set(seq, toJsonText(parsed.data));
    partition.inboxIds.set(item.id, seq);
    partition.lastInboxSeq = seq;
    return { seq, duplicate: false };
  }

  async readInbox(taskId: string, afterSeq: number): Promise<InboxItem[]> {
    const inbox = this.#tasks.get(taskId)?.inbox;
    if (inbox === undefined) return [];
    return [...inbox.entries()]
      .filter(([seq]) => seq > afterSeq)
      .sort(([a], [b]) => a - b)
      .map(([, text]) => JSON.parse(text) as InboxItem);
  }

  async putOnce<T>(taskId: string, key: string, value: T): Promise<T> {
    const text = toJsonText(value);
    const once = this.#partition(taskId).once;
    if (!once.has(key)) once.set(key, text);
    return JSON.parse(once.get(key) as string) as T;
  }

  async getOnce<T>(taskId: string, key: string): Promise<T | undefined> {
    const text = this.#tasks.get(taskId)?.once.get(key);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }
}
