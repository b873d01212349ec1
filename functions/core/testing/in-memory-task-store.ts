import { Task, taskStateToJSON } from '@a2a-js/sdk';
import type * as z from 'zod';
import { TASK_METADATA_KEY } from '../a2a/identifiers.js';
import { AlreadyExistsError, ConcurrencyConflictError, InvalidTaskRecordError } from '../errors.js';
import { type HistoryEntry, HistoryEntrySchema } from '../loop/history.schema.js';
import { type InboxItem, InboxItemSchema } from '../loop/inbox.schema.js';
import { type LoopState, LoopStateSchema } from '../loop/loop-state.schema.js';
import { startPendingBefore as startPendingBeforeTime } from '../loop/pending-start.js';
import { PushConfigSchema } from '../ports/push-config-store.js';
import type {
  BudgetAmounts,
  CommitResult,
  TaskCommit,
  TaskQuery,
  TaskRecord,
  TaskStore,
} from '../ports/task-store.js';
import { isTerminalState, withForksListed } from '../task/a2a-task.js';
import { type BudgetLimit, TaskExtensionSchema } from '../task/extension.schema.js';
import { encodeEvent } from './in-memory-event-codec.js';

/** A stored record: JSON text, as a real store holds it, so every read is a fresh copy. */
interface StoredRecord {
  task: string;
  loop: string;
  version: number;
  eventSeq: number;
}

/** Everything stored about one task (the in-memory twin of one DynamoDB partition). */
export interface TaskPartition {
  record?: StoredRecord;
  history: Map<number, string>;
  inbox: Map<number, string>;
  /** Inbox item id -> the seq it was enqueued at (kept after the item is consumed). */
  inboxIds: Map<string, number>;
  lastInboxSeq: number;
  /** How many items were ever enqueued (`TaskRecord.inboxCount`). */
  inboxCount: number;
  audit: Map<string, string>;
  /** Event seq -> JSON text. */
  events: Map<number, string>;
  /** Event seq -> the transcript's last seq its commit left (`LoggedEvent.historySeq`). */
  eventMarks: Map<number, number>;
  /** The ids of the task's forks, in the order their creations added them. */
  forks: string[];
  /** Push config id -> JSON text. */
  pushConfigs: Map<string, string>;
  /** What the task's budget has left, per limit (`TaskRecord.budgetAvailable`). */
  budget: BudgetAmounts;
  /** The last call the task reserved for: a reservation for it again takes nothing. */
  reservedCall?: string;
}

/** The JSON text of a value; `undefined`, functions and symbols have none. */
const toJsonText = (value: unknown): string => {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError('the value is not JSON-serialisable');
  return text;
};

const refuse = (what: string, detail: string) =>
  new InvalidTaskRecordError(`refusing to store an invalid ${what}: ${detail}`);

const checked = <T>(schema: z.ZodType<T>, value: unknown, what: string): T => {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw refuse(what, parsed.error.message);
  return parsed.data;
};

/** The task in its ProtoJSON text (what the DynamoDB adapter stores), after the same checks. */
const encodeTask = (task: Task): string => {
  if (typeof task.id !== 'string' || task.id === '') throw refuse('task', 'no id');
  if (taskStateToJSON(task.status?.state ?? 0) === 'UNRECOGNIZED') {
    throw refuse('task', 'unknown state');
  }
  return toJsonText(Task.toJSON(task));
};

const encodeLoop = (loop: LoopState): string =>
  toJsonText(checked(LoopStateSchema, loop, 'loop state'));

/**
 * The record as read: with `pushConfigured` while the task's partition holds a push config, and
 * its inbox whole unless the store is told not to say it (`inboxOnRecord`).
 */
const decodeRecord = (
  stored: StoredRecord,
  partition: TaskPartition | undefined,
  inboxOnRecord = true
): TaskRecord => ({
  task: withForksListed(Task.fromJSON(JSON.parse(stored.task)), partition?.forks ?? []),
  loop: JSON.parse(stored.loop) as LoopState,
  version: stored.version,
  eventSeq: stored.eventSeq,
  inboxCount: partition?.inboxCount ?? 0,
  ...((partition?.pushConfigs.size ?? 0) > 0 ? { pushConfigured: true as const } : {}),
  ...(partition === undefined || Object.keys(partition.budget).length === 0
    ? {}
    : { budgetAvailable: { ...partition.budget } }),
  ...(inboxOnRecord ? { inbox: partition === undefined ? [] : inboxItemsOf(partition) } : {}),
});

/** What waits in a partition's inbox, in seq order. */
const inboxItemsOf = (partition: TaskPartition): InboxItem[] =>
  [...partition.inbox.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, text]) => JSON.parse(text) as InboxItem);

const participantIdsOf = (task: Task): string[] => {
  const parsed = TaskExtensionSchema.safeParse(task.metadata?.[TASK_METADATA_KEY]);
  return parsed.success ? parsed.data.participants.map((participant) => participant.id) : [];
};

const byTaskId = (a: TaskRecord, b: TaskRecord) =>
  a.task.id < b.task.id ? -1 : a.task.id > b.task.id ? 1 : 0;

const emptyPartition = (): TaskPartition => ({
  history: new Map(),
  inbox: new Map(),
  inboxIds: new Map(),
  lastInboxSeq: 0,
  inboxCount: 0,
  audit: new Map(),
  events: new Map(),
  eventMarks: new Map(),
  forks: [],
  pushConfigs: new Map(),
  budget: {},
});

/** A written record as the commit returns it: an update's budget account as it was read. */
const asReturned = (record: TaskRecord, commit: TaskCommit): TaskRecord => {
  if (commit.kind !== 'update') return record;
  const { budgetAvailable: _stored, ...rest } = record;
  const read = commit.base.budgetAvailable;
  return read === undefined ? rest : { ...rest, budgetAvailable: read };
};

/** Each limit of `amounts`, as [limit, amount] pairs. */
const limitsOf = (amounts: BudgetAmounts) => Object.entries(amounts) as [BudgetLimit, number][];

const conflict = (message: string) => new ConcurrencyConflictError(message);

/**
 * The in-memory `TaskStore`: the reference behaviour of the port contract, and the fake the core's
 * tests use. It passes the same conformance suite as the DynamoDB adapter (test/conformance).
 * Values are kept as JSON text, so nothing a caller holds aliases the store. A commit is checked
 * whole before anything is applied, so it is all or nothing, as a DynamoDB transaction is. The
 * event log and push-config facets (`InMemoryEventLog`, `InMemoryPushConfigStore`) read and
 * write the same partitions, as the DynamoDB adapters share one table.
 */
export class InMemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, TaskPartition>();
  readonly #inboxOnRecord: boolean;
  readonly #agentId: string | undefined;

  /**
   * `inboxOnRecord: false`: the records it returns never say their inbox (as a DynamoDB record
   * with items apart, or an earlier build's), so its readers read the inbox with `readInbox`.
   * `agentId`: the agent's own id, under which `list` finds no task (as in the DynamoDB store).
   */
  constructor(options: { inboxOnRecord?: boolean; agentId?: string } = {}) {
    this.#inboxOnRecord = options.inboxOnRecord ?? true;
    this.#agentId = options.agentId;
  }

  /** The partition of a task, created empty on first use (for the facets). */
  partition(taskId: string): TaskPartition {
    let partition = this.#tasks.get(taskId);
    if (partition === undefined) {
      partition = emptyPartition();
      this.#tasks.set(taskId, partition);
    }
    return partition;
  }

  /** The partition of a task if anything was ever stored for it. */
  existingPartition(taskId: string): TaskPartition | undefined {
    return this.#tasks.get(taskId);
  }

  async commit(commit: TaskCommit): Promise<CommitResult> {
    if (commit.kind === 'park') return this.#park(commit);
    if (commit.kind === 'reserve') return this.#reserve(commit);
    const taskId = commit.kind === 'guarded' ? commit.taskId : commit.record.task.id;
    const partition = this.#tasks.get(taskId);
    const stored = partition?.record;

    // 1. Conditions, before anything is written.
    if (commit.kind === 'create' && stored !== undefined) {
      throw new AlreadyExistsError(`task ${taskId} already exists`);
    }
    const forkOf = commit.kind === 'create' ? commit.forkOf : undefined;
    if (forkOf !== undefined && this.#tasks.get(forkOf.taskId)?.record === undefined) {
      throw conflict(`task ${forkOf.taskId} (forked) is missing`);
    }
    const ids = [...(commit.enqueue ?? []).map((item) => item.id), ...(commit.seen ?? [])];
    // Refused for the task's own state, a commit says how the task stood, as the DynamoDB store
    // does, and whether the ids it took in were free.
    const refusedForTask = (message: string) =>
      new ConcurrencyConflictError(message, {
        ...(stored === undefined
          ? {}
          : { current: decodeRecord(stored, partition, this.#inboxOnRecord) }),
        idsFree: !ids.some((id) => partition?.inboxIds.has(id)),
      });
    if (commit.kind === 'update') {
      if (commit.base.task.id !== taskId) throw new Error('a commit updates one task');
      if (stored === undefined || stored.version !== commit.base.version) {
        throw refusedForTask(`task ${taskId}: stored version is not ${commit.base.version}`);
      }
      if ((commit.base.pushConfigured === true) !== (partition?.pushConfigs.size ?? 0) > 0) {
        throw refusedForTask(`task ${taskId}: its push configs came or went since it was read`);
      }
    }
    if (commit.kind === 'guarded') {
      const current = stored === undefined ? undefined : decodeRecord(stored, partition);
      if (current === undefined || isTerminalState(current.task.status?.state ?? 0)) {
        throw refusedForTask(`task ${taskId} is missing or has ended`);
      }
      if (commit.unparked && current.loop.parkToken !== null) {
        throw refusedForTask(`task ${taskId} is parked`);
      }
    }
    for (const id of ids) {
      if (partition?.inboxIds.has(id)) throw conflict(`inbox item ${id} exists`);
    }
    if (new Set(ids).size !== ids.length) throw conflict('one commit enqueues an item id twice');

    // 2. Encode everything (a value that would not read back refuses the whole commit).
    const baseEventSeq = commit.kind === 'update' ? commit.base.eventSeq : 0;
    const events = (commit.kind === 'guarded' ? [] : (commit.events ?? [])).map(encodeEvent);
    const record: StoredRecord | undefined =
      commit.kind === 'guarded'
        ? undefined
        : {
            task: encodeTask(commit.record.task),
            loop: encodeLoop(commit.record.loop),
            version: commit.kind === 'create' ? 1 : commit.base.version + 1,
            eventSeq: baseEventSeq + events.length,
          };
    const history = (commit.kind === 'guarded' ? [] : (commit.history ?? [])).map((entry) =>
      checked(HistoryEntrySchema, entry, 'history entry')
    );
    const firstSeq = (partition?.lastInboxSeq ?? 0) + 1;
    const enqueued = (commit.enqueue ?? []).map((item, index) =>
      checked(InboxItemSchema, { ...item, seq: firstSeq + index }, 'inbox item')
    );
    const audit = (commit.audit ?? []).map(
      (entry) => [entry.key, toJsonText(entry.value)] as const
    );
    const pushConfigs = (commit.pushConfigs ?? []).map((config) => {
      const valid = PushConfigSchema.parse(config);
      if (valid.taskId !== taskId) throw new Error('a commit writes one task’s push configs');
      return valid;
    });
    const consumed = commit.kind === 'guarded' ? [] : (commit.consumed ?? []);

    // 3. Apply.
    const target = this.partition(taskId);
    if (record !== undefined) target.record = record;
    for (const entry of history) target.history.set(entry.seq, toJsonText(entry));
    events.forEach((text, index) => {
      target.events.set(baseEventSeq + index + 1, text);
      if (commit.kind !== 'guarded') {
        target.eventMarks.set(baseEventSeq + index + 1, commit.record.loop.historySeq);
      }
    });
    if (forkOf !== undefined) {
      const original = this.partition(forkOf.taskId);
      original.forks.push(forkOf.forkId);
      original.audit.set(forkOf.audit.key, toJsonText(forkOf.audit.value));
    }
    for (const item of consumed) target.inbox.delete(item.seq);
    for (const item of enqueued) {
      target.inbox.set(item.seq, toJsonText(item));
      target.inboxIds.set(item.id, item.seq);
      target.lastInboxSeq = item.seq;
      target.inboxCount += 1;
    }
    for (const id of commit.seen ?? []) target.inboxIds.set(id, 0);
    for (const [key, text] of audit) target.audit.set(key, text);
    for (const config of pushConfigs) target.pushConfigs.set(config.id, toJsonText(config));
    for (const credit of commit.budgetCredits ?? []) {
      const account = this.partition(credit.taskId).budget;
      for (const [limit, amount] of limitsOf(credit.amounts)) {
        account[limit] = (account[limit] ?? 0) + amount;
      }
    }
    return {
      ...(record === undefined
        ? {}
        : { record: asReturned(decodeRecord(record, target, this.#inboxOnRecord), commit) }),
      enqueued: enqueued.map((item) => item.seq),
    };
  }

  #reserve(commit: Extract<TaskCommit, { kind: 'reserve' }>): CommitResult {
    if (this.#tasks.get(commit.taskId)?.reservedCall === commit.call) return { enqueued: [] };
    if (commit.holds.every(({ amounts }) => limitsOf(amounts).length === 0))
      return { enqueued: [] };
    const short = commit.holds.find(({ taskId, amounts }) => {
      const account = this.#tasks.get(taskId)?.budget ?? {};
      return limitsOf(amounts).some(([limit, amount]) => {
        const left = account[limit];
        return left === undefined || left < amount;
      });
    });
    if (short !== undefined) return { enqueued: [], exhausted: short.taskId };
    for (const { taskId, amounts } of commit.holds) {
      const account = this.partition(taskId).budget;
      for (const [limit, amount] of limitsOf(amounts)) {
        account[limit] = (account[limit] ?? 0) - amount;
      }
    }
    this.partition(commit.taskId).reservedCall = commit.call;
    return { enqueued: [] };
  }

  #park(commit: Extract<TaskCommit, { kind: 'park' }>): CommitResult {
    const partition = this.#tasks.get(commit.taskId);
    const stored = partition?.record;
    if (stored === undefined || stored.version !== commit.version) {
      throw conflict(`task ${commit.taskId}: stored version is not ${commit.version}`);
    }
    if (partition?.inboxCount !== commit.inboxCount) {
      throw conflict(`task ${commit.taskId}: its inbox took items since the turn read it`);
    }
    const loop = JSON.parse(stored.loop) as LoopState;
    partition.record = {
      ...stored,
      loop: encodeLoop({ ...loop, parkToken: commit.token }),
      version: stored.version + 1,
    };
    return { enqueued: [] };
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const stored = this.#tasks.get(taskId)?.record;
    return stored === undefined
      ? undefined
      : decodeRecord(stored, this.#tasks.get(taskId), this.#inboxOnRecord);
  }

  async list(query: TaskQuery): Promise<TaskRecord[]> {
    const { contextId, participantId, startPendingBefore } = query;
    // As in the DynamoDB store: an empty filter matches nothing (never "everything").
    if (contextId === '' || participantId === '') return [];
    if (participantId !== undefined && participantId === this.#agentId) return [];
    const records: TaskRecord[] = [];
    for (const partition of this.#tasks.values()) {
      if (partition.record === undefined) continue;
      const record = decodeRecord(partition.record, partition, this.#inboxOnRecord);
      if (contextId !== undefined && record.task.contextId !== contextId) continue;
      if (participantId !== undefined && !participantIdsOf(record.task).includes(participantId)) {
        continue;
      }
      if (startPendingBefore !== undefined && !startPendingBeforeTime(record, startPendingBefore)) {
        continue;
      }
      records.push(record);
    }
    return records.sort(byTaskId);
  }

  async readHistory(
    taskId: string,
    afterSeq = 0,
    throughSeq = Number.POSITIVE_INFINITY
  ): Promise<HistoryEntry[]> {
    const history = this.#tasks.get(taskId)?.history;
    if (history === undefined) return [];
    return [...history.entries()]
      .filter(([seq]) => seq > afterSeq && seq <= throughSeq)
      .sort(([a], [b]) => a - b)
      .map(([, text]) => JSON.parse(text) as HistoryEntry);
  }

  async readInbox(taskId: string): Promise<InboxItem[]> {
    const partition = this.#tasks.get(taskId);
    return partition === undefined ? [] : inboxItemsOf(partition);
  }

  async inboxSeqOf(taskId: string, itemId: string): Promise<number | undefined> {
    return this.#tasks.get(taskId)?.inboxIds.get(itemId);
  }

  async getAudit<T>(taskId: string, key: string): Promise<T | undefined> {
    const text = this.#tasks.get(taskId)?.audit.get(key);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }
}
