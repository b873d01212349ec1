/**
 * The single-table design (docs/architecture.md, "Data"). The CDK stack, `create-table.ts` and the adapters all read
 * these constants, so this file stays free of SDK (and Node) imports.
 *
 * Everything is keyed by task: `pk = TASK#<taskId>`, and the sort key says what the item is.
 *
 * | item                      | sk                       | notes                                     |
 * | ------------------------- | ------------------------ | ----------------------------------------- |
 * | task record               | `TASK`                   | task + loop JSON, `version`, `evt_seq`... |
 * | part of the task record   | `TASK#<part>`            | the plan, the rows: apart, with a `rev`   |
 * | participant membership    | `PART#<participantId>`   | per participant but the agent itself      |
 * | commit's log              | `LOG#<evt seq>#<version>`| a commit's entries, events, audit records |
 * | history entry (earlier)   | `HIST#<seq padded>`      | written by builds before the log item     |
 * | inbox counter             | `INBOXSEQ`               | last inbox seq taken (atomic ADD)         |
 * | inbox item                | `INBOX#<seq padded>`     | deleted when folded into the transcript   |
 * | inbox dedup marker        | `INBOXID#<item id>`      | the seq of the item (0: seen, not queued);|
 * |                           |                          | none for a creation's seen ids (`seen0`)  |
 * | audit record              | `ONCE#<key>`             | of a commit without a record write        |
 * | event (earlier)           | `EVT#<seq padded>`       | written by builds before the log item     |
 * | push-notification config  | `PUSH#<configId>`        | upserted by id, deleted idempotently      |
 * | remote child's link       | `REMOTE#<linkId>`        | the stand-in of a child on another agent  |
 * | payload piece             | `PIECE#<sk>#<n>`         | the rest of an item's too-large payload   |
 *
 * Every write of an operation is one commit (`DynamoDbTaskStore.commit`): a transaction whose
 * record write is conditioned on the version the operation read, so the transcript entries,
 * events, inbox changes and audit records of a refused decision are never written. A commit that
 * writes the record puts what it says (transcript entries, events, audit records) in one item, its
 * log item (`log-item.ts`), keyed by its last event's seq and the version it wrote: events after
 * `n` are one key range, and the items' order is the commits' order. The event log's seqs come
 * from the record (`evt_seq`), so appending needs no counter and no retry loop; the inbox's come
 * from an atomic counter (`ADD`), so concurrent senders never contend. Builds before the log item
 * wrote one `HIST#`, `EVT#` and `ONCE#` item each; they stay where they are, and a record names
 * the seqs they hold (`log_evt0`, `log_hseq0`), so readers read them only for that stretch.
 *
 * Seqs are zero-padded to SEQ_WIDTH digits so the string order of sort keys is the numeric order
 * and "seq > n" is one key-range Query. Caller-supplied strings in keys (item ids, once and event
 * keys, participant and context ids) are used as they are up to 512 UTF-8 bytes and replaced by
 * `~sha256:<hex>` beyond (item-codec.ts `keyPart`): DynamoDB caps a sort key at 1024 bytes.
 *
 * Listing:
 * - by context: GSI `by_context` on the task record (`ctx_pk = <contextId>`, `ctx_sk = <taskId>`).
 * - by participant: GSI `by_participant` on the membership items (`part_pk = <participantId>`,
 *   `part_sk = <taskId>`). A participant list cannot be a GSI key, so each participant (but the
 *   agent itself, never a caller) gets an item in the task's own partition, written in the same transaction as the record whenever the
 *   set changes. Keeping them in the task's partition (rather than `pk = PART#<id>` items) keeps
 *   "everything about a task" one Query and one stream partition key.
 * - by pending start: GSI `by_pending_start` on the task record (`start_pk = PENDING`,
 *   `start_sk = <since>`), present only while a generation waits for its execution.
 * The GSIs project KEYS_ONLY: the adapter reads the records themselves with a strongly
 * consistent BatchGetItem, so a list never returns a stale version and the (large) task JSON is
 * not written twice on every update. GSIs are eventually consistent in AWS (DynamoDB Local updates
 * them at once): a task created a moment ago may be missing from a list for that moment, while an
 * index entry lagging a removal is dropped by re-checking the filter on the record read.
 *
 * Top-level attributes of the task record exist for stream consumers (filter criteria and the
 * stream Lambda compare old and new images without parsing JSON): `state` (A2A state name),
 * `sub_state` and `parent_id` (NULL when absent, so they are always present).
 */

import type { BudgetLimit } from '../../core/task/extension.schema.js';

export const PARTITION_KEY = 'pk';
export const SORT_KEY = 'sk';

/** Width of zero-padded seqs in sort keys: up to 999,999,999,999 per task. */
export const SEQ_WIDTH = 12;
export const MAX_SEQ = 10 ** SEQ_WIDTH - 1;

export const KEY_PREFIX = {
  task: 'TASK#',
  participant: 'PART#',
  history: 'HIST#',
  /** A commit's log item (`LOG#<evt seq>#<version>`). */
  log: 'LOG#',
  inbox: 'INBOX#',
  inboxId: 'INBOXID#',
  once: 'ONCE#',
  event: 'EVT#',
  pushConfig: 'PUSH#',
  /** The stand-in's record of a child on a remote agent (`REMOTE#<linkId>`, in the parent's partition). */
  remoteLink: 'REMOTE#',
  /** A further piece of a payload too large for one item (`PIECE#<sk of the item>#<n>`). */
  part: 'PIECE#',
} as const;

/** Sort keys of the singleton items of a task's partition. */
export const SORT_KEY_VALUE = {
  task: 'TASK',
  /** The task's inbox seq counter: one atomic ADD takes a commit's seqs (never contended). */
  inboxCounter: 'INBOXSEQ',
  /**
   * The last model call the task reserved its budgets' worst case for: a reservation for the same
   * call (a retried turn) takes nothing again. Its own item, so writing it never passes the
   * stream's filter of task records.
   */
  reservation: 'RESERVED',
} as const;

/**
 * The parts of the task extension kept in items of their own beside the record (`TASK#<part>`),
 * each written only by a commit that changes it: the two that grow with the task. The record item
 * keeps the rest, so a turn's commits write a record whose size does not depend on how many steps
 * or sub-tasks the task has. One Query of `TASK`..`TASK#~` reads the record with its parts.
 */
export const TASK_PARTS = ['plan', 'sub_tasks'] as const;
export type TaskPart = (typeof TASK_PARTS)[number];
export const taskPartSk = (part: TaskPart) => `${SORT_KEY_VALUE.task}#${part}`;
/** The upper end of a task record's key range: past every `TASK#<part>`. */
export const TASK_PARTS_END = `${SORT_KEY_VALUE.task}#~`;

/** Attribute names. */
export const ATTR = {
  /** Item kind, for humans and stream filters: `task`, `participant`, `history`, ... */
  type: 'type',
  taskId: 'task_id',
  /** Optimistic concurrency version of the task record. */
  version: 'version',
  /**
   * The A2A task in its ProtoJSON form, as a JSON string (deflated when that is shorter:
   * `packed-text.ts`).
   */
  task: 'task',
  /**
   * The loop state, as a JSON string, without the fields that hold what a new task's loop holds
   * (`loop-codec.ts`: a read puts them back), deflated when that is shorter.
   */
  loop: 'loop',
  /** A2A state name of the task (`TASK_STATE_WORKING`, ...). */
  state: 'state',
  /** The sub-state while parked, else NULL. */
  subState: 'sub_state',
  /** The first parent task on this harness, else NULL. */
  parentId: 'parent_id',
  contextId: 'context_id',
  /** The participant ids of the task, as a JSON array string (for diffing membership items). */
  participants: 'participants',
  participantId: 'participant_id',
  /** Seq of the task's newest event: the next commit's events follow it. */
  eventSeq: 'evt_seq',
  /** Whether an execution is parked on the task (its token is on the record). */
  parked: 'parked',
  /**
   * The parked execution's task token, else NULL: kept beside the loop state (whose JSON holds
   * none) so a park can store it without reading the loop state it would rewrite.
   */
  parkToken: 'park_token',
  /**
   * How many items were ever enqueued on the task (`TaskRecord.inboxCount`): every commit that
   * enqueues ADDs its items, conditioned on nothing; a park is conditioned on it. Not part of the
   * version.
   */
  inboxCount: 'inbox_count',
  /**
   * On a task record: the items waiting in its inbox that it holds itself (a JSON array; absent
   * when none), put and taken by its versioned writes (`held-inbox.ts`).
   */
  inboxHeld: 'inbox_held',
  /**
   * On a task record: how many of its waiting items are apart (`INBOX#<seq>` items): ADDed by the
   * commits that enqueue them and that consume them. Trusted only with `inbox_counted`, set when a
   * record is created counting (an earlier build's record may have items it never counted).
   */
  inboxApart: 'inbox_apart',
  inboxCounted: 'inbox_counted',
  /**
   * On the task record: the ids of the task's push configs (a string set, absent when there is
   * none). Not part of the record's version: a config's put or delete adds or takes its id, and a
   * commit is conditioned on whether the set existed when the record was read.
   */
  pushIds: 'push_ids',
  /** On an event: true when the task had a push config as the event was committed. */
  push: 'push',
  /** On an event: the transcript's last seq its commit left (`LoggedEvent.historySeq`). */
  historySeq: 'hseq',
  /** On a log item: how many events it holds (its last is `evt_seq`). */
  eventCount: 'evt_n',
  /**
   * On a log item: the highest transcript seq as of its commit (the record's, or an entry's it
   * writes): a reader reading back from the newest item stops at the first at or below its seq,
   * since a commit's entries follow the transcript it read.
   */
  historyTop: 'hseq_top',
  /**
   * On a task record: the seq of the last event, and of the last transcript entry, kept in the
   * items of builds before the log item (`EVT#`, `HIST#`): 0 for a task created with log items.
   * Set by the first write of a record that lacks them (an earlier build's record, whose every
   * event and entry so far is in those items), and never changed after.
   */
  logEventsFrom: 'log_evt0',
  logHistoryFrom: 'log_hseq0',
  /**
   * On a task record: the ids of its forks (a list, in the order they were made; absent when it
   * has none). Not part of the version: a fork's creation appends to it, conditioned on nothing
   * but the record existing, and a read lists it in the extension's `forks`.
   */
  forks: 'fork_ids',
  /**
   * On a task record: the ids its creation took in without an inbox item (its first message,
   * folded at once; a string set, absent when none), kept on the record instead of a marker each
   * (`seen-at-creation.ts`). Written by the creation only; every later commit that takes ids in
   * is conditioned on its ids not being among them.
   */
  seenAtCreation: 'seen0',
  /**
   * On a task record: the names of the extension's parts kept in their own items (`TASK_PARTS`;
   * a list, absent when none is). A record without it either holds nothing to keep apart or was
   * stored by an earlier build with its parts in its own JSON: its next write moves them out.
   */
  partsApart: 'parts_apart',
  /**
   * On a task record: the revision of each part it keeps apart (a map, name to the record version
   * that last wrote the part), and on a part's item its own. A reader that holds a part of that
   * revision need not read it again; a record that names no revision for a part has its part
   * written again at its next write.
   */
  partRevisions: 'part_revs',
  /** On a part's item: the record version that wrote it. */
  partRevision: 'rev',
  /** Seq of a history entry / inbox item / event, and of counters (their last seq). */
  seq: 'seq',
  /**
   * JSON payload of history entries, inbox items, once values and events; a log item's is
   * deflated when that is shorter (`packed-text.ts`: it begins with `~`, which JSON never does).
   */
  data: 'data',
  /** How many part items hold the rest of this item's payload (absent: none). */
  parts: 'parts',
  /** The original (unhashed) key of a marker or once item. */
  key: 'key',
  /** Epoch seconds after which DynamoDB TTL may delete the item (unused for now). */
  expiresAt: 'expires_at',
  ctxPk: 'ctx_pk',
  ctxSk: 'ctx_sk',
  partPk: 'part_pk',
  partSk: 'part_sk',
  /** On an open task whose generation's start is pending: `PENDING_START_KEY` (else absent). */
  startPk: 'start_pk',
  /** Since when it is pending (`loop.startPendingSince`, ISO): the sweep's range. */
  startSk: 'start_sk',
  /**
   * On a task record with a budget account (`avail_<limit>` attributes): true, set with the
   * account's first credit, so the stream's filter can pass a budgeted task's every change (its
   * spend metric) in one rule.
   */
  budgetAccount: 'budget_account',
  /** On a task's reservation item: the call it was made for (`TaskCommit` reserve's `call`). */
  reservedCall: 'call',
} as const;

/**
 * On a task record: what its budget has left of one limit (`TaskRecord.budgetAvailable`), one
 * attribute per limit the budget has. Not part of the version: a reservation takes from it and a
 * credit adds to it, each an ADD.
 */
export const availableAttribute = (limit: BudgetLimit): string => `avail_${limit}`;

export const ITEM_TYPE = {
  task: 'task',
  participant: 'participant',
  history: 'history',
  log: 'log',
  inbox: 'inbox',
  inboxId: 'inbox_id',
  inboxCounter: 'inbox_counter',
  reservation: 'reservation',
  once: 'once',
  event: 'event',
  pushConfig: 'push_config',
  remoteLink: 'remote_link',
  part: 'part',
  taskPart: 'task_part',
} as const;

export const INDEX_BY_CONTEXT = 'by_context';
export const INDEX_BY_PARTICIPANT = 'by_participant';
/** Sparse: only open tasks whose generation's start is pending are in it (a handful at a time). */
export const INDEX_BY_PENDING_START = 'by_pending_start';
/** The one partition of `by_pending_start`: its entries live only between a commit and a start. */
export const PENDING_START_KEY = 'PENDING';

export const TTL_ATTRIBUTE = ATTR.expiresAt;

export type KeyType = 'S' | 'N' | 'B';

export interface KeyAttribute {
  readonly name: string;
  readonly type: KeyType;
}

export interface GlobalIndexDefinition {
  readonly indexName: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey: KeyAttribute;
  readonly projectionType: 'KEYS_ONLY' | 'ALL';
}

export interface TableDefinition {
  /** Key schema (names as CDK's TableV2 `partitionKey` / `sortKey` take them). */
  readonly partitionKey: KeyAttribute;
  readonly sortKey: KeyAttribute;
  /** Every key attribute of the table and its indexes (CreateTable's `AttributeDefinitions`). */
  readonly attributeDefinitions: readonly KeyAttribute[];
  readonly globalSecondaryIndexes: readonly GlobalIndexDefinition[];
  readonly billingMode: 'PAY_PER_REQUEST';
  readonly streamViewType: 'NEW_AND_OLD_IMAGES';
  readonly timeToLiveAttribute: string;
  readonly pointInTimeRecovery: boolean;
}

const TABLE_KEY: KeyAttribute = { name: PARTITION_KEY, type: 'S' };
const TABLE_SORT_KEY: KeyAttribute = { name: SORT_KEY, type: 'S' };

const GLOBAL_SECONDARY_INDEXES: readonly GlobalIndexDefinition[] = [
  {
    indexName: INDEX_BY_CONTEXT,
    partitionKey: { name: ATTR.ctxPk, type: 'S' },
    sortKey: { name: ATTR.ctxSk, type: 'S' },
    projectionType: 'KEYS_ONLY',
  },
  {
    indexName: INDEX_BY_PARTICIPANT,
    partitionKey: { name: ATTR.partPk, type: 'S' },
    sortKey: { name: ATTR.partSk, type: 'S' },
    projectionType: 'KEYS_ONLY',
  },
  {
    indexName: INDEX_BY_PENDING_START,
    partitionKey: { name: ATTR.startPk, type: 'S' },
    sortKey: { name: ATTR.startSk, type: 'S' },
    projectionType: 'KEYS_ONLY',
  },
];

export const TABLE_DEFINITION: TableDefinition = {
  partitionKey: TABLE_KEY,
  sortKey: TABLE_SORT_KEY,
  attributeDefinitions: [
    TABLE_KEY,
    TABLE_SORT_KEY,
    ...GLOBAL_SECONDARY_INDEXES.flatMap((index) => [index.partitionKey, index.sortKey]),
  ],
  globalSecondaryIndexes: GLOBAL_SECONDARY_INDEXES,
  billingMode: 'PAY_PER_REQUEST',
  streamViewType: 'NEW_AND_OLD_IMAGES',
  timeToLiveAttribute: TTL_ATTRIBUTE,
  pointInTimeRecovery: true,
};

/** `seq` zero-padded to SEQ_WIDTH digits; throws for anything but an integer in [0, MAX_SEQ]. */
export const padSeq = (seq: number): string => {
  if (!Number.isSafeInteger(seq) || seq < 0 || seq > MAX_SEQ) {
    throw new RangeError(`seq must be an integer in [0, ${MAX_SEQ}], got ${seq}`);
  }
  return String(seq).padStart(SEQ_WIDTH, '0');
};

export const taskPk = (taskId: string): string => `${KEY_PREFIX.task}${taskId}`;
