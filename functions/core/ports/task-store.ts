import type { Task } from '@a2a-js/sdk';
import type { HistoryEntry } from '../loop/history.schema.js';
import type { InboxItem, InboxItemDraft } from '../loop/inbox.schema.js';
import type { LoopState } from '../loop/loop-state.schema.js';
import type { BudgetLimit } from '../task/extension.schema.js';
import type { TaskEvent } from './event-log.js';
import type { PushConfig } from './push-config-store.js';

/** Amounts of a budget's limits (any subset). */
export type BudgetAmounts = Partial<Record<BudgetLimit, number>>;

/** Amounts for one task's budget account: taken by a `reserve`, given by a credit. */
export interface BudgetEntry {
  taskId: string;
  amounts: BudgetAmounts;
}

/** A task as stored: the A2A task (extensions in its metadata) and the loop's own state. */
export interface TaskRecord {
  task: Task;
  loop: LoopState;
  /** Optimistic concurrency: 1 on create, +1 on every commit that writes the record. */
  version: number;
  /** Seq of the newest event of the task's log (0 before any): a commit's events follow it. */
  eventSeq: number;
  /**
   * How many items were ever enqueued on the task (0 before any). Kept by the store beside the
   * record, not part of its version: every commit that enqueues advances it, conditioned on
   * nothing (a message to a running task never conflicts with its turn), and a `park` applies
   * only while it is what the turn read, so nothing came in between.
   */
  inboxCount: number;
  /**
   * Present (true) when the task had a push config as the record was read. Kept by the store
   * beside the record, not part of its version: a config's put or delete never races a turn, but
   * a commit made on a record read before the task's first config came or its last went is
   * refused (and decided again), so the store can mark the events committed while a config exists
   * for delivery, and delivery reads configs for those events only.
   */
  pushConfigured?: true;
  /**
   * What the task's budget has left for the task and its descendants, per limit it has (absent:
   * no budget account). Kept by the store beside the record, not part of its version: a call
   * anywhere under the task takes its worst case from it (`reserve`) and the response gives back
   * what it did not use, conditioned on nothing but what is left.
   */
  budgetAvailable?: BudgetAmounts;
  /**
   * The store's own note of how it keeps the record (the DynamoDB store: the parts of the
   * extension it keeps in items of their own, each with the record version that last wrote it, so
   * an update writes only those that changed and a reader holding a part need not read it again).
   * The core never sets or reads it; a record read as an earlier build stored it has none.
   */
  partsApart?: Readonly<Record<string, number>>;
  /**
   * The store's own note of where its log of the task begins (the DynamoDB store: the last event
   * seq and transcript seq an earlier build kept in items of their own, before the commit log).
   * The core never sets or reads it; a record last written by an earlier build has none.
   */
  logFrom?: Readonly<{ eventSeq: number; historySeq: number }>;
  /**
   * The store's own note of the inbox items it keeps on the record itself (the DynamoDB store:
   * small items enqueued by a record write, until the write that consumes them). The core never
   * sets or reads it: it reads the inbox with `readInbox`.
   */
  inboxHeld?: readonly InboxItem[];
  /**
   * What waits in the task's inbox as the record was read, when the store knows it from the record
   * alone (the DynamoDB store: when no item is kept apart from it); absent, `readInbox` tells.
   * Every item counted in `inboxCount` is in it, as in what `readInbox` returns after the read.
   * The store sets it on every record it returns and ignores it on the records it is given.
   */
  inbox?: readonly InboxItem[];
}

export interface TaskQuery {
  contextId?: string | undefined;
  /** Only tasks this participant is on. */
  participantId?: string | undefined;
  /**
   * Only open tasks whose generation's start has been pending since before this time (an ISO
   * timestamp, compared with `loop.startPendingSince`): the pending-start sweep's query.
   */
  startPendingBefore?: string | undefined;
}

/** An audit record: what the auditor's timeline reads (a model call, a tool result, ...). */
export interface AuditRecord {
  key: string;
  value: unknown;
}

/**
 * What a fork's creation writes on the task it was forked from, and nothing else: the fork's id
 * added to the original's forks (beside its record, outside its version, like the inbox count, so
 * a running turn is never refused for it and no event is logged) and the original's audit record
 * of the fork. Conditioned only on the original existing.
 */
export interface ForkNote {
  taskId: string;
  forkId: string;
  audit: AuditRecord;
}

/** What a commit writes besides the task record, all or nothing. */
export interface CommitWrites {
  /** Transcript entries, at the seqs they carry (after the loaded `loop.historySeq`). */
  history?: readonly HistoryEntry[];
  /** Events appended to the task's log, in order, after the loaded record's `eventSeq`. */
  events?: readonly TaskEvent[];
  /** Inbox items this operation folded into the transcript: they leave the inbox. */
  consumed?: readonly InboxItem[];
  /**
   * Items that join the inbox, each at a fresh seq. An item id already enqueued (ever) fails the
   * commit with `ConcurrencyConflictError`: the caller reloads and finds it a duplicate.
   */
  enqueue?: readonly InboxItemDraft[];
  /**
   * Message ids taken in without an inbox item (a control or envelope message, a `/sub-task`):
   * remembered as seen (`inboxSeqOf` answers 0), and refused again like an enqueued id.
   */
  seen?: readonly string[];
  /** Audit records, by key: a later record with the same key replaces the earlier one. */
  audit?: readonly AuditRecord[];
  /** Push-notification configs stored with the commit (SendMessage's inline config). */
  pushConfigs?: readonly PushConfig[];
  /**
   * Amounts added to budget accounts, conditioned on nothing: a budget set or changed on the
   * commit's own task (its account opened or moved by the change), and a call's unused
   * reservation given back, on any task it was taken from.
   */
  budgetCredits?: readonly BudgetEntry[];
}

/**
 * One atomic write of everything an operation decided. The record write is conditioned on the
 * version the operation loaded, so a decision made on a state that has since changed (a cut
 * turn, a renewal, a cancel) is refused whole and changes nothing.
 */
export type TaskCommit =
  | (CommitWrites & {
      kind: 'create';
      /** The new task (its version and eventSeq are the store's: 1 and the events written). */
      record: TaskRecord;
      /** The task the new one is a fork of: told so in the same write (`ForkNote`). */
      forkOf?: ForkNote;
    })
  | (CommitWrites & {
      kind: 'update';
      /** The record as loaded: the commit applies only while the stored version is its version. */
      base: TaskRecord;
      record: TaskRecord;
    })
  | (Omit<CommitWrites, 'history' | 'events' | 'consumed'> & {
      kind: 'guarded';
      /**
       * No record write: the commit applies only while the task exists and has not ended, and,
       * with `unparked`, while no execution is parked on it (so whoever parks it sees what this
       * commit adds, and whoever adds to a parked task wakes it).
       */
      taskId: string;
      unparked: boolean;
    })
  | {
      /**
       * An execution's task token stored on the task without reading it again: the turn that ended
       * read the task and then its inbox, decided it should park, and committed at `version`.
       * Applies only while the stored version is still `version` and the inbox count still
       * `inboxCount`: then nothing has changed and nothing was enqueued since that decision. The
       * record's version advances; nothing else is written.
       */
      kind: 'park';
      taskId: string;
      version: number;
      inboxCount: number;
      token: string;
    }
  | {
      /**
       * A model call's worst case taken from the budget accounts it draws on, all or none: each
       * entry's amounts from its task's account, only while that account has at least as much
       * left of each. No record's version changes. Once per call: the reserving task's record
       * keeps the last call it reserved for (outside its version), and a reservation for that
       * call again (a retried turn: a throttled model, a crash before the response) answers as
       * taken and takes nothing.
       */
      kind: 'reserve';
      taskId: string;
      /** The call the holds are for, unique to the reserving task (its generation and turn). */
      call: string;
      holds: readonly BudgetEntry[];
    };

export interface CommitResult {
  /**
   * The stored record after a create or an update (version, eventSeq and inboxCount advanced; the
   * count may since have moved on, by messages to the running task). An update's record carries
   * the budget account as its base did: a write does not read the account back.
   */
  record?: TaskRecord;
  /** The inbox seqs given to `enqueue`'s items, in order. */
  enqueued: number[];
  /**
   * A `reserve` that was refused: the first task (in the holds' order) whose account had less
   * left than asked. Nothing was taken.
   */
  exhausted?: string;
}

/**
 * Durable task state. Every write is a `commit`: all of it or nothing.
 *
 * - `commit` MUST apply every write of the commit or none. `create` fails with
 *   `AlreadyExistsError` when the id exists; `update` with `ConcurrencyConflictError` when the
 *   stored version is not `base.version`; `guarded` with `ConcurrencyConflictError` when the task
 *   is missing, ended, or (with `unparked`) parked; `park` with `ConcurrencyConflictError` when
 *   the stored version or inbox count is not the commit's; any commit with
 *   `ConcurrencyConflictError` when an enqueued item id was enqueued before; a `create` with
 *   `forkOf` with `ConcurrencyConflictError` when that task is missing. A `reserve` never
 *   throws for a short account: it answers `exhausted` and takes nothing. A hold takes from each
 *   limit it names, and is short when the account lacks the limit or has less left; a credit adds
 *   to each limit it names (opening one the account lacks) and is conditioned on nothing. A record write
 *   stores `version + 1` and advances `eventSeq` by the events written; events take seqs
 *   `eventSeq + 1, ...`. Every commit that enqueues advances `inboxCount` by its items, in the
 *   same write.
 * - Inbox seqs are unique and increasing per task in the order seqs are taken, but a seq may be
 *   skipped (a refused commit), and items of concurrent commits may land out of seq order; an
 *   item is never lost. So the inbox is read whole (`readInbox`: every item not yet consumed,
 *   ascending), never after a cursor. Items of one sender, sent one after another, keep their
 *   order.
 * - `get` MUST return `undefined`, not throw, for an unknown id. A record's extension lists in
 *   `forks` the ids its forks' creations added, in the order they were added, whatever the
 *   record's own writes carried.
 * - `readHistory` returns entries with `seq > afterSeq` (and `seq <= throughSeq`, when given),
 *   ascending.
 * - `inboxSeqOf` returns the seq an item id was enqueued at (consumed or not), 0 for an id only
 *   `seen`, or `undefined` for an id never taken in.
 * - Implementations MUST return copies: mutating a returned value never changes the store.
 */
export interface TaskStore {
  commit(commit: TaskCommit): Promise<CommitResult>;
  get(taskId: string): Promise<TaskRecord | undefined>;
  list(query: TaskQuery): Promise<TaskRecord[]>;
  readHistory(taskId: string, afterSeq?: number, throughSeq?: number): Promise<HistoryEntry[]>;
  readInbox(taskId: string): Promise<InboxItem[]>;
  inboxSeqOf(taskId: string, itemId: string): Promise<number | undefined>;
  getAudit<T>(taskId: string, key: string): Promise<T | undefined>;
}
