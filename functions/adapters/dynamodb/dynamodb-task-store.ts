import {
  type DynamoDBClient,
  GetItemCommand,
  type Put,
  PutItemCommand,
  type TransactWriteItem,
  TransactWriteItemsCommand,
  type Update,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { AlreadyExistsError, ConcurrencyConflictError } from '../../core/errors.js';
import { addAmounts } from '../../core/loop/budget-account.js';
import type { HistoryEntry } from '../../core/loop/history.schema.js';
import type { InboxItem } from '../../core/loop/inbox.schema.js';
import { startPendingBefore as isStartPendingBefore } from '../../core/loop/pending-start.js';
import type {
  AuditRecord,
  BudgetAmounts,
  CommitResult,
  ForkNote,
  TaskCommit,
  TaskQuery,
  TaskRecord,
  TaskStore,
} from '../../core/ports/task-store.js';
import type { BudgetLimit } from '../../core/task/extension.schema.js';
import { pauseAfterConflict } from '../system/conflict-pause.js';
import { heldInboxAttribute, type InboxPlacement, placeInbox } from './held-inbox.js';
import {
  budgetAttributes,
  decodeHeldInbox,
  decodeInboxItem,
  decodeMarkerSeq,
  decodeTaskRecord,
  encodeInboxItem,
  encodeOnce,
  encodePushConfig,
  encodeTaskRecord,
  type Item,
  inboxCounterItem,
  inboxIdSk,
  inboxOnRecord,
  inboxSk,
  intakeRowsApart,
  isStorableTaskId,
  key,
  keyPart,
  logOriginAttributes,
  markerItem,
  membershipItem,
  participantIdsOf,
  participantSk,
  splitData,
  taskIdOfKey,
  taskKey,
  taskRecordAttributes,
  withIntakeRow,
  withPartsApart,
} from './item-codec.js';
import { encodeLogItem } from './log-item.js';
import { LogOrigins, readAuditRecords, readLoggedHistory } from './log-reads.js';
import { recordAdds, recordUpdate } from './record-update.js';
import {
  notSeenAtCreation,
  seenAtCreationApart,
  seenAtCreationAttribute,
  wasSeenAtCreation,
} from './seen-at-creation.js';
import {
  ATTR,
  availableAttribute,
  INDEX_BY_CONTEXT,
  INDEX_BY_PARTICIPANT,
  INDEX_BY_PENDING_START,
  ITEM_TYPE,
  MAX_SEQ,
  PARTITION_KEY,
  PENDING_START_KEY,
  SORT_KEY,
  SORT_KEY_VALUE,
} from './table.js';
import {
  batchGetAll,
  cancellationCodes,
  ITEM_ABSENT,
  inboxCountMatches,
  isConditionFailed,
  isContendedOnly,
  NOT_PARKED,
  queryAll,
  RECORD_ABSENT,
  refusedFirstItem,
  scanAll,
  TASK_OPEN,
  taskRangeQuery,
  VERSION_MATCHES,
  wholePayloads,
} from './table-io.js';
import { TaskPartCache } from './task-part-cache.js';
import {
  holdWritten,
  type PartWritten,
  partWrites,
  readTaskRecord,
  recordOfHeldParts,
  withPartsRead,
} from './task-record-io.js';

export interface DynamoDbTableOptions {
  client: DynamoDBClient;
  tableName: string;
}

/** How often a reservation contended by another transaction is tried. */
const RESERVE_ATTEMPTS = 5;

/** How often a commit refused only for contention is sent before it is a conflict to decide again. */
export const CONTENDED_ATTEMPTS = 3;

/** A transaction holds at most 100 actions. */
export const MAX_TRANSACTION_ITEMS = 100;

const TERMINAL_STATE_VALUES = {
  ':completed': { S: 'TASK_STATE_COMPLETED' },
  ':failed': { S: 'TASK_STATE_FAILED' },
  ':canceled': { S: 'TASK_STATE_CANCELED' },
  ':rejected': { S: 'TASK_STATE_REJECTED' },
} as const;

/**
 * The task store on the single table (table.ts). Every write is one commit: a transaction whose
 * first action is the record's own (a put-if-absent, a version-checked update, or a check that
 * the task is open), so the transcript entries, events, inbox changes, audit records and push
 * configs of a decision the record no longer supports are never written. A commit that is only
 * a record write is a plain conditional write (half a transaction's cost).
 */
export class DynamoDbTaskStore implements TaskStore {
  readonly #client: DynamoDBClient;
  readonly #table: string;
  readonly #parts: TaskPartCache | undefined;
  readonly #agentId: string | undefined;
  /** Where the log of each task this store has read or written begins. */
  readonly #origins = new LogOrigins();

  /**
   * `partCache`: the parts of large tasks held between reads (`false`: none, every read reads
   * them). A process keeps one for as long as it runs: a warm Lambda's next read of the same task
   * reads its record alone.
   */
  constructor(
    options: DynamoDbTableOptions & {
      partCache?: TaskPartCache | false;
      /**
       * The agent's own id: a participant of every task it works and never a caller (identity
       * refuses it), so no membership item lists a task under it, and `list` by it finds none.
       */
      agentId?: string | undefined;
    }
  ) {
    this.#client = options.client;
    this.#table = options.tableName;
    this.#agentId = options.agentId;
    this.#parts =
      options.partCache === false ? undefined : (options.partCache ?? new TaskPartCache());
  }

  async commit(commit: TaskCommit): Promise<CommitResult> {
    if (commit.kind === 'park') return this.#park(commit);
    if (commit.kind === 'reserve') return this.#reserve(commit);
    const taskId = commit.kind === 'guarded' ? commit.taskId : commit.record.task.id;
    const enqueue = commit.enqueue ?? [];
    // A new task's first items take the first seqs, and its counter is written with them: no
    // other commit can enqueue before the task exists. (A seq taken for a commit then refused,
    // for a value that would not read back among others, is skipped for good.)
    const firstSeq =
      enqueue.length === 0
        ? 0
        : commit.kind === 'create'
          ? 1
          : await this.#takeInboxSeqs(taskId, enqueue.length);
    const enqueued = enqueue.map(
      (item, index) => ({ ...item, seq: firstSeq + index }) as InboxItem
    );
    // A commit that writes the record holds small items on it; the rest are items apart.
    const inbox =
      commit.kind === 'guarded'
        ? placeInbox([], [], [])
        : placeInbox(
            commit.kind === 'update' ? (commit.base.inboxHeld ?? []) : [],
            commit.consumed ?? [],
            enqueued
          );
    if (commit.kind === 'guarded') inbox.apart.push(...enqueued);
    // A new task's seen ids (its first message) are on its record: their rows stay in its log.
    const seen =
      commit.kind === 'create'
        ? seenAtCreationApart(commit.seen ?? [])
        : { onRecord: [], marked: commit.seen ?? [] };
    // Everything else is encoded before any write: a value that would not read back refuses the
    // commit whole.
    const recordWrite = this.#recordWrite(commit, inbox, seen.onRecord);
    const put = (item: Item, condition?: string): TransactWriteItem => ({
      Put: {
        TableName: this.#table,
        Item: item,
        ...(condition === undefined
          ? {}
          : { ConditionExpression: condition, ExpressionAttributeNames: { '#pk': PARTITION_KEY } }),
      },
    });
    // Intake's row of a message it takes in is kept on the message's marker: one item says the
    // id was taken in, where, and how.
    const { rows, audit } = intakeRowsApart(commit.audit ?? [], [
      ...enqueued.map((item) => item.id),
      ...seen.marked,
    ]);
    // The id markers' actions: a refusal says by them whether the ids it took in were free.
    const markers = new Set<TransactWriteItem>();
    const marker = (id: string, seq: number) => {
      const action = put(
        withIntakeRow(markerItem(taskId, inboxIdSk(id), ITEM_TYPE.inboxId, id, seq), rows.get(id)),
        ITEM_ABSENT
      );
      markers.add(action);
      return action;
    };
    // What a commit that writes the record says is its log item; a guarded commit's other audit
    // records (a refusal's row) are items of their own, as nothing orders them among the commits.
    const logItem =
      commit.kind === 'guarded'
        ? undefined
        : this.#logItem(commit, audit, recordWrite.record?.pushConfigured === true);
    const [logHead, ...logPieces] = logItem === undefined ? [] : splitData(logItem);
    const pieceWrites = logPieces.map((item) => put(item));
    const others: TransactWriteItem[] = [
      ...(logHead === undefined ? [] : [put(logHead, ITEM_ABSENT)]),
      // An item's parts are the ones its encoding makes: the same item encodes the same way.
      ...inbox.consumedApart.flatMap((item) =>
        splitData(encodeInboxItem(taskId, item)).map((stored) => ({
          Delete: {
            TableName: this.#table,
            Key: { [PARTITION_KEY]: stored[PARTITION_KEY], [SORT_KEY]: stored[SORT_KEY] } as Item,
          },
        }))
      ),
      ...(commit.kind === 'create' && enqueued.length > 0
        ? [put(inboxCounterItem(taskId, enqueued.length))]
        : []),
      ...inbox.apart.flatMap((item) =>
        splitData(encodeInboxItem(taskId, item)).map((stored) => put(stored))
      ),
      ...enqueued.map((item) => marker(item.id, item.seq)),
      ...seen.marked.map((id) => marker(id, 0)),
      ...(commit.kind === 'guarded' ? audit : []).flatMap((entry) =>
        splitData(encodeOnce(taskId, entry.key, entry.value)).map((item) => put(item))
      ),
      ...(commit.pushConfigs ?? []).map((config) => {
        if (config.taskId !== taskId) throw new Error('a commit writes one task’s push configs');
        return put(encodePushConfig(config));
      }),
      // Another task's account (a reservation given back): an ADD on its record, no condition.
      ...(commit.budgetCredits ?? [])
        .filter((credit) => credit.taskId !== taskId)
        .map((credit) => ({ Update: this.#accountUpdate(credit.taskId, credit.amounts, 1) })),
      ...(commit.kind === 'create' && commit.forkOf !== undefined
        ? this.#forkNote(commit.forkOf)
        : []),
    ];
    let actions = [...recordWrite.actions, ...pieceWrites, ...others];
    if (commit.kind === 'create' && actions.length > MAX_TRANSACTION_ITEMS) {
      // A new task carrying a long transcript (a fork) writes its log item's further pieces ahead
      // of its record, in writes of their own conditioned on the record's absence: a reader
      // reaches a piece only through the log item, which commits with the record.
      await this.#prefill(taskId, pieceWrites);
      actions = [...recordWrite.actions, ...others];
    }
    if (actions.length > MAX_TRANSACTION_ITEMS) {
      throw new RangeError(
        `task ${taskId}: one commit of ${actions.length} writes; at most ${MAX_TRANSACTION_ITEMS}`
      );
    }
    for (let attempt = 1; ; attempt++) {
      try {
        await this.#send(actions);
        break;
      } catch (error) {
        // Refused only for another transaction on one of its items (fifty senders to one task):
        // its conditions still hold as far as DynamoDB looked, so it goes again as it is, with
        // the inbox seqs it took, rather than being decided again on a fresh read.
        if (attempt < CONTENDED_ATTEMPTS && isContendedOnly(error)) {
          await pauseAfterConflict(attempt);
          continue;
        }
        throw this.#refusal(commit, taskId, error, {
          markerIndexes: actions.flatMap((action, index) => (markers.has(action) ? [index] : [])),
        });
      }
    }
    holdWritten(this.#parts, taskId, recordWrite.partsWritten ?? []);
    this.#origins.note(taskId, recordWrite.record?.logFrom);
    return {
      ...(recordWrite.record === undefined ? {} : { record: recordWrite.record }),
      enqueued: enqueued.map((item) => item.seq),
    };
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const record = await readTaskRecord(this.#client, this.#table, taskId, this.#parts);
    if (record !== undefined) this.#origins.note(taskId, record.logFrom);
    return record;
  }

  async list(query: TaskQuery): Promise<TaskRecord[]> {
    const { contextId, participantId, startPendingBefore } = query;
    // No task is indexed under an empty id: an empty filter matches nothing (never "everything").
    if (contextId === '' || participantId === '') return [];
    if (participantId !== undefined && participantId === this.#agentId) return [];

    // The index entries say which tasks; the records come from a consistent read, and are checked
    // against the filter again, so a lagging index never yields a stale or wrong task.
    const entries =
      startPendingBefore !== undefined
        ? await this.#queryPendingStarts(startPendingBefore)
        : contextId !== undefined
          ? await this.#queryIndex(INDEX_BY_CONTEXT, ATTR.ctxPk, keyPart(contextId))
          : participantId !== undefined
            ? await this.#queryIndex(INDEX_BY_PARTICIPANT, ATTR.partPk, keyPart(participantId))
            : undefined;
    const items =
      entries === undefined
        ? await this.#scanTaskRecords()
        : await batchGetAll(
            this.#client,
            this.#table,
            [...new Set(entries.map(taskIdOfKey))].map(taskKey)
          );
    const records = await withPartsRead(this.#client, this.#table, items, this.#parts);
    return records
      .filter(
        (record) =>
          (contextId === undefined || record.task.contextId === contextId) &&
          (participantId === undefined || participantIdsOf(record.task).includes(participantId)) &&
          (startPendingBefore === undefined || isStartPendingBefore(record, startPendingBefore))
      )
      .sort(byTaskId);
  }

  async readHistory(
    taskId: string,
    afterSeq = 0,
    throughSeq: number = MAX_SEQ
  ): Promise<HistoryEntry[]> {
    if (!isStorableTaskId(taskId)) return [];
    const origin = await this.#origins.of(this.#client, this.#table, taskId);
    return readLoggedHistory(this.#client, this.#table, taskId, { afterSeq, throughSeq, origin });
  }

  /** The items the record holds, and those apart when it may have some, in seq order. */
  async readInbox(taskId: string): Promise<InboxItem[]> {
    if (!isStorableTaskId(taskId)) return [];
    const { Item: record } = await this.#client.send(
      new GetItemCommand({
        TableName: this.#table,
        Key: taskKey(taskId),
        ConsistentRead: true,
        ProjectionExpression: '#held, #apart, #counted',
        ExpressionAttributeNames: {
          '#held': ATTR.inboxHeld,
          '#apart': ATTR.inboxApart,
          '#counted': ATTR.inboxCounted,
        },
      })
    );
    const whole = record === undefined ? undefined : inboxOnRecord(record).inbox;
    if (whole !== undefined) return whole;
    const held = record === undefined ? [] : decodeHeldInbox(record);
    const items = await this.#queryRange(taskId, inboxSk(1), inboxSk(MAX_SEQ));
    const apart = (await wholePayloads(this.#client, this.#table, items)).map(decodeInboxItem);
    return [...held, ...apart].sort((a, b) => a.seq - b.seq);
  }

  async inboxSeqOf(taskId: string, itemId: string): Promise<number | undefined> {
    if (!isStorableTaskId(taskId)) return undefined;
    // The id's marker, and the ids the creation took in without one, in one read.
    const markerKey = key(taskId, inboxIdSk(itemId));
    const items = await batchGetAll(
      this.#client,
      this.#table,
      [markerKey, taskKey(taskId)],
      [ATTR.seq, ATTR.seenAtCreation]
    );
    const marker = items.find((item) => item[SORT_KEY]?.S === markerKey[SORT_KEY]?.S);
    if (marker !== undefined) return decodeMarkerSeq(marker, 'inbox marker');
    const record = items.find((item) => item[SORT_KEY]?.S === SORT_KEY_VALUE.task);
    return wasSeenAtCreation(record, itemId) ? 0 : undefined;
  }

  /** Reads the task's audit records whole: for tests and tools, never on a turn's path. */
  async getAudit<T>(taskId: string, auditKey: string): Promise<T | undefined> {
    return (await readAuditRecords(this.#client, this.#table, taskId)).get(auditKey) as
      | T
      | undefined;
  }

  /**
   * The record's part of a commit: its action(s) and the record as stored after it. A commit
   * that enqueues adds its items to the record's inbox count.
   */
  #recordWrite(
    commit: Exclude<TaskCommit, { kind: 'park' | 'reserve' }>,
    inbox: InboxPlacement,
    seenOnRecord: readonly string[]
  ): {
    actions: TransactWriteItem[];
    record?: TaskRecord;
    /** The parts it puts, held once it has committed. */
    partsWritten?: PartWritten[];
  } {
    const pushIds = (commit.pushConfigs ?? []).map((config) => config.id);
    const enqueued = commit.enqueue?.length ?? 0;
    const apart = inbox.apart.length - inbox.consumedApart.length;
    const ownId = commit.kind === 'guarded' ? commit.taskId : commit.record.task.id;
    // The ids a later commit takes in: refused, like marked ones, if the creation took them in.
    const takenIn = [...(commit.enqueue ?? []).map((item) => item.id), ...(commit.seen ?? [])];
    const credit = (commit.budgetCredits ?? [])
      .filter((entry) => entry.taskId === ownId)
      .reduce<BudgetAmounts>((sum, entry) => addAmounts(sum, entry.amounts), {});
    if (commit.kind === 'guarded') {
      const names: Record<string, string> = { '#pk': PARTITION_KEY, '#state': ATTR.state };
      const values: Item = { ...TERMINAL_STATE_VALUES };
      const conditions = [
        TASK_OPEN,
        ...(commit.unparked ? [NOT_PARKED] : []),
        ...notSeenAtCreation(names, values, takenIn),
      ];
      if (commit.unparked) {
        names['#parked'] = ATTR.parked;
        values[':false'] = { BOOL: false };
      }
      // An inline push config is named on the record (not a new version of it).
      const updates = recordAdds(names, values, { pushIds, enqueued, apart, credit });
      const check = {
        TableName: this.#table,
        Key: taskKey(commit.taskId),
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        // Refused, the record as stored comes back: the decision is taken again on it, unread.
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
      };
      if (updates.length === 0) return { actions: [{ ConditionCheck: check }] };
      return { actions: [{ Update: { ...check, UpdateExpression: `ADD ${updates.join(', ')}` } }] };
    }
    const taskId = commit.record.task.id;
    const eventSeq =
      (commit.kind === 'update' ? commit.base.eventSeq : 0) + (commit.events?.length ?? 0);
    const pushConfigured =
      pushIds.length > 0 || (commit.kind === 'update' && commit.base.pushConfigured === true);
    const stored = { ...commit.record, eventSeq };
    if (commit.kind === 'create') {
      const created = encodeTaskRecord({ ...stored, inboxCount: enqueued }, 1);
      const { participantIds, parts } = created;
      const partsWritten = partWrites(this.#table, taskId, undefined, parts, 1);
      const item: Item = {
        ...created.item,
        // A new task's whole log is in log items.
        ...logOriginAttributes({ eventSeq: 0, historySeq: 0 }),
        // A new task counts its inbox's items apart from the start.
        ...heldInboxAttribute(inbox.held),
        [ATTR.inboxCounted]: { BOOL: true },
        [ATTR.inboxApart]: { N: String(inbox.apart.length) },
        ...budgetAttributes(credit),
        ...(pushIds.length === 0 ? {} : { [ATTR.pushIds]: { SS: pushIds } }),
        ...seenAtCreationAttribute(seenOnRecord),
      };
      return {
        actions: [
          {
            Put: {
              TableName: this.#table,
              Item: item,
              ConditionExpression: RECORD_ABSENT,
              ExpressionAttributeNames: { '#pk': PARTITION_KEY },
            },
          },
          // The record and its membership items commit together: a listed task always exists
          // and a created task is always listed.
          ...this.#listed(participantIds).map((participantId) => ({
            Put: { TableName: this.#table, Item: membershipItem(taskId, participantId) },
          })),
          ...partsWritten.writes,
        ],
        record: decodeTaskRecord(item, taskId, parts),
        partsWritten: partsWritten.written,
      };
    }
    if (commit.base.task.id !== taskId) throw new Error('a commit updates one task');
    const next = commit.base.version + 1;
    const unnamed = taskRecordAttributes(stored);
    const partsWritten = partWrites(this.#table, taskId, commit.base, unnamed.parts, next);
    // A record an earlier build wrote last names where that build's items end, once.
    const logFrom = commit.base.logFrom ?? {
      eventSeq: commit.base.eventSeq,
      historySeq: commit.base.loop.historySeq,
    };
    const named = withPartsApart(unnamed, partsWritten.apart);
    const held = inbox.heldChanged ? heldInboxAttribute(inbox.held) : undefined;
    const attributes = {
      ...named,
      set: {
        ...named.set,
        ...(commit.base.logFrom === undefined ? logOriginAttributes(logFrom) : {}),
        ...held,
      },
      remove: [
        ...named.remove,
        ...(inbox.heldChanged && held === undefined ? [ATTR.inboxHeld] : []),
      ],
    };
    // The condition says the stored record is `base`: its participants are the base's.
    const before = this.#listed(participantIdsOf(commit.base.task));
    const after = this.#listed(attributes.participantIds);
    const membership: TransactWriteItem[] = [
      ...after
        .filter((id) => !before.includes(id))
        .map((participantId) => ({
          Put: { TableName: this.#table, Item: membershipItem(taskId, participantId) },
        })),
      ...before
        .filter((id) => !after.includes(id))
        .map((participantId) => ({
          Delete: { TableName: this.#table, Key: key(taskId, participantSk(participantId)) },
        })),
    ];
    return {
      actions: [
        {
          Update: {
            ...recordUpdate(this.#table, taskId, attributes, {
              expected: commit.base.version,
              next,
              pushConfigured: commit.base.pushConfigured === true,
              pushIds,
              enqueued,
              apart,
              credit,
              takenIn,
            }),
            // Refused, the record as stored comes back: the decision is taken again on it, unread.
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        ...membership,
        ...partsWritten.writes,
      ],
      partsWritten: partsWritten.written,
      record: {
        ...decodeTaskRecord(
          { ...taskKey(taskId), ...attributes.set, [ATTR.version]: { N: String(next) } },
          taskId,
          attributes.parts
        ),
        // What the record read, and this commit's items: messages to the running task may have
        // added more, which a park decided on this count is refused for.
        inboxCount: commit.base.inboxCount + enqueued,
        logFrom,
        // What the record holds now, whether this commit wrote it or kept it; whole while the
        // record it read was, and this commit puts nothing apart.
        ...(inbox.held.length === 0 ? {} : { inboxHeld: inbox.held }),
        ...(commit.base.inbox !== undefined && inbox.apart.length === 0
          ? { inbox: inbox.held }
          : {}),
        ...(pushConfigured ? { pushConfigured: true as const } : {}),
        // As read: a write does not read the account back (calls under the task move it).
        ...(commit.base.budgetAvailable === undefined
          ? {}
          : { budgetAvailable: commit.base.budgetAvailable }),
      },
    };
  }

  /** The participants a membership item lists a task under: all but the agent itself. */
  #listed(participantIds: readonly string[]): string[] {
    return participantIds.filter((id) => id !== this.#agentId);
  }

  /** What a commit that writes the record says, as its log item (none when it says nothing). */
  #logItem(
    commit: Extract<TaskCommit, { kind: 'create' | 'update' }>,
    audit: readonly AuditRecord[],
    push: boolean
  ): Item | undefined {
    const events = commit.events ?? [];
    const base = commit.kind === 'update' ? commit.base : undefined;
    return encodeLogItem(
      commit.record.task.id,
      {
        version: base === undefined ? 1 : base.version + 1,
        eventSeq: (base?.eventSeq ?? 0) + events.length,
        historySeq: commit.record.loop.historySeq,
        push,
      },
      { history: commit.history ?? [], events, audit }
    );
  }

  /** A new task's log pieces, before its record: each write while the record is absent. */
  async #prefill(taskId: string, puts: readonly TransactWriteItem[]): Promise<void> {
    const absent: TransactWriteItem = {
      ConditionCheck: {
        TableName: this.#table,
        Key: taskKey(taskId),
        ConditionExpression: RECORD_ABSENT,
        ExpressionAttributeNames: { '#pk': PARTITION_KEY },
      },
    };
    const room = MAX_TRANSACTION_ITEMS - 1;
    for (let start = 0; start < puts.length; start += room) {
      try {
        await this.#send([absent, ...puts.slice(start, start + room)]);
      } catch (error) {
        if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') {
          throw new AlreadyExistsError(`task ${taskId} already exists`, { cause: error });
        }
        throw error;
      }
    }
  }

  /**
   * A fork's note on the task it was forked from: the fork's id appended to its forks (outside
   * the version: a turn running on it is not refused) and its audit record of the fork.
   */
  #forkNote(note: ForkNote) {
    const append: TransactWriteItem = {
      Update: {
        TableName: this.#table,
        Key: taskKey(note.taskId),
        ConditionExpression: 'attribute_exists(#pk)',
        UpdateExpression: 'SET #forks = list_append(if_not_exists(#forks, :none), :fork)',
        ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#forks': ATTR.forks },
        ExpressionAttributeValues: { ':none': { L: [] }, ':fork': { L: [{ S: note.forkId }] } },
      },
    };
    const audit = splitData(encodeOnce(note.taskId, note.audit.key, note.audit.value)).map(
      (item): TransactWriteItem => ({ Put: { TableName: this.#table, Item: item } })
    );
    return [append, ...audit];
  }

  /** One action is a plain write (a transaction costs twice); more are one transaction. */
  async #send(actions: TransactWriteItem[]): Promise<void> {
    const [only] = actions;
    if (actions.length === 1 && only?.Update !== undefined) {
      await this.#client.send(new UpdateItemCommand(only.Update));
    } else if (actions.length === 1 && only?.Put !== undefined) {
      await this.#client.send(new PutItemCommand(only.Put));
    } else {
      await this.#client.send(new TransactWriteItemsCommand({ TransactItems: actions }));
    }
  }

  /**
   * A refused commit as the port names it; other errors pass through. A conflict says what the
   * refusal told of the task: the record as stored when its condition failed (decoded when the
   * parts it names are held), and whether the ids the commit took in were free (their markers'
   * conditions held, and the record's creation did not take them in).
   */
  #refusal(
    commit: TaskCommit,
    taskId: string,
    error: unknown,
    taken: { markerIndexes: readonly number[] } = { markerIndexes: [] }
  ): unknown {
    const codes = cancellationCodes(error);
    const recordRefused = isConditionFailed(error) || codes?.[0] === 'ConditionalCheckFailed';
    if (commit.kind === 'create' && recordRefused) {
      return new AlreadyExistsError(`task ${taskId} already exists`, { cause: error });
    }
    const contended =
      recordRefused ||
      (codes?.some((code) => code === 'ConditionalCheckFailed' || code === 'TransactionConflict') ??
        false) ||
      (error instanceof Error && error.name === 'TransactionConflictException');
    if (!contended) return error;
    const stored = refusedFirstItem(error);
    const current =
      stored === undefined ? undefined : recordOfHeldParts(stored, taskId, this.#parts);
    if (current !== undefined) this.#origins.note(taskId, current.logFrom);
    const takenIn =
      commit.kind === 'update' || commit.kind === 'guarded'
        ? [...(commit.enqueue ?? []).map((item) => item.id), ...(commit.seen ?? [])]
        : [];
    // The record's conditions held (`None`), or failed with the ids absent from its creation's.
    const recordClear =
      codes?.[0] === 'None' ||
      (stored !== undefined && !takenIn.some((id) => wasSeenAtCreation(stored, id)));
    const markersFree = taken.markerIndexes.every((index) => codes?.[index] === 'None');
    return new ConcurrencyConflictError(
      commit.kind === 'update'
        ? `task ${taskId}: stored version is not ${commit.base.version}`
        : `task ${taskId}: the commit's conditions no longer hold`,
      { cause: error, current, idsFree: recordClear && markersFree }
    );
  }

  /**
   * A call's holds taken from their accounts, all or none: one ADD of the negated amounts per
   * account, conditioned on each limit having at least that much left. A short account refuses the
   * transaction; its cancellation reason says which. Contention with another transaction on the
   * same accounts (a sibling's call) is tried again: a reservation decides nothing of its own.
   */
  async #reserve(commit: Extract<TaskCommit, { kind: 'reserve' }>): Promise<CommitResult> {
    const holds = commit.holds.filter(({ amounts }) => Object.keys(amounts).length > 0);
    if (holds.length === 0) return { enqueued: [] };
    // The call's mark first: refused, the call was reserved for already and nothing is taken.
    const actions: TransactWriteItem[] = [
      { Put: this.#reservationMark(commit.taskId, commit.call) },
      ...holds.map(({ taskId, amounts }) => ({
        Update: this.#accountUpdate(taskId, amounts, -1),
      })),
    ];
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.#send(actions);
        return { enqueued: [] };
      } catch (error) {
        const codes = cancellationCodes(error);
        const short = codes?.indexOf('ConditionalCheckFailed') ?? -1;
        if (short === 0) return { enqueued: [] };
        const exhausted = short > 0 ? holds[short - 1]?.taskId : undefined;
        if (exhausted !== undefined) return { enqueued: [], exhausted };
        const contended = codes?.includes('TransactionConflict') ?? false;
        if (!contended || attempt >= RESERVE_ATTEMPTS) {
          throw this.#refusal(commit, commit.taskId, error);
        }
      }
    }
  }

  /** The task's reservation item, marked for `call`, written only if it was for another call. */
  #reservationMark(taskId: string, call: string): Put {
    return {
      TableName: this.#table,
      Item: {
        ...key(taskId, SORT_KEY_VALUE.reservation),
        [ATTR.type]: { S: ITEM_TYPE.reservation },
        [ATTR.reservedCall]: { S: call },
      },
      ConditionExpression: 'attribute_not_exists(#pk) OR #call <> :call',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#call': ATTR.reservedCall },
      ExpressionAttributeValues: { ':call': { S: call } },
    };
  }

  /**
   * One ADD of `sign × amounts` on a task's account. A taking (`-1`) is conditioned on each limit
   * having at least its amount left (a missing limit has nothing); a credit on nothing.
   */
  #accountUpdate(taskId: string, amounts: BudgetAmounts, sign: 1 | -1): Update {
    const names: Record<string, string> = {};
    const values: Item = {};
    const adds: string[] = [];
    const conditions: string[] = [];
    Object.entries(amounts).forEach(([limit, amount], index) => {
      names[`#a${index}`] = availableAttribute(limit as BudgetLimit);
      values[`:a${index}`] = { N: String(sign * amount) };
      adds.push(`#a${index} :a${index}`);
      if (sign < 0) {
        values[`:w${index}`] = { N: String(amount) };
        conditions.push(`#a${index} >= :w${index}`);
      }
    });
    return {
      TableName: this.#table,
      Key: taskKey(taskId),
      UpdateExpression: `ADD ${adds.join(', ')}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ...(conditions.length === 0 ? {} : { ConditionExpression: conditions.join(' AND ') }),
    };
  }

  /** A park's one UpdateItem: the token and a new version, on the version and inbox count read. */
  async #park(commit: Extract<TaskCommit, { kind: 'park' }>): Promise<CommitResult> {
    try {
      await this.#client.send(
        new UpdateItemCommand({
          TableName: this.#table,
          Key: taskKey(commit.taskId),
          UpdateExpression: 'SET #version = :nextVersion, #parkToken = :token, #parked = :true',
          ConditionExpression: `${VERSION_MATCHES} AND ${inboxCountMatches(commit.inboxCount)}`,
          ExpressionAttributeNames: {
            '#version': ATTR.version,
            '#parkToken': ATTR.parkToken,
            '#parked': ATTR.parked,
            '#inboxCount': ATTR.inboxCount,
          },
          ExpressionAttributeValues: {
            ':expectedVersion': { N: String(commit.version) },
            ':nextVersion': { N: String(commit.version + 1) },
            ':token': { S: commit.token },
            ':true': { BOOL: true },
            ':inboxCount': { N: String(commit.inboxCount) },
          },
        })
      );
    } catch (error) {
      throw this.#refusal(commit, commit.taskId, error);
    }
    return { enqueued: [] };
  }

  /**
   * `n` fresh inbox seqs: one atomic ADD on the counter, which never fails for contention. A
   * seq whose commit is then refused is skipped for good (readers read the inbox whole).
   */
  async #takeInboxSeqs(taskId: string, n: number): Promise<number> {
    const result = await this.#client.send(
      new UpdateItemCommand({
        TableName: this.#table,
        Key: key(taskId, SORT_KEY_VALUE.inboxCounter),
        UpdateExpression: 'SET #type = :type ADD #seq :n',
        ExpressionAttributeNames: { '#type': ATTR.type, '#seq': ATTR.seq },
        ExpressionAttributeValues: {
          ':type': { S: ITEM_TYPE.inboxCounter },
          ':n': { N: String(n) },
        },
        ReturnValues: 'UPDATED_NEW',
      })
    );
    const last = Number(result.Attributes?.[ATTR.seq]?.N);
    if (!Number.isSafeInteger(last) || last < n)
      throw new Error(`task ${taskId}: bad inbox counter`);
    return last - n + 1;
  }

  /** Items of one key range of a task's partition, ascending. */
  async #queryRange(taskId: string, from: string, to: string) {
    if (!isStorableTaskId(taskId)) return [];
    return queryAll(this.#client, taskRangeQuery(this.#table, taskId, from, to));
  }

  #queryIndex(indexName: string, partitionAttribute: string, value: string) {
    return queryAll(this.#client, {
      TableName: this.#table,
      IndexName: indexName,
      KeyConditionExpression: '#key = :value',
      ExpressionAttributeNames: { '#key': partitionAttribute },
      ExpressionAttributeValues: { ':value': { S: value } },
    });
  }

  /** The entries `by_pending_start` lists as pending since before `before`. */
  #queryPendingStarts(before: string) {
    return queryAll(this.#client, {
      TableName: this.#table,
      IndexName: INDEX_BY_PENDING_START,
      KeyConditionExpression: '#pk = :pending AND #since < :before',
      ExpressionAttributeNames: { '#pk': ATTR.startPk, '#since': ATTR.startSk },
      ExpressionAttributeValues: { ':pending': { S: PENDING_START_KEY }, ':before': { S: before } },
    });
  }

  /** All task records: a Scan, for an unfiltered `list` (admin and tests; clients always filter). */
  #scanTaskRecords(): Promise<Item[]> {
    return scanAll(this.#client, {
      TableName: this.#table,
      FilterExpression: '#sk = :sk',
      ExpressionAttributeNames: { '#sk': SORT_KEY },
      ExpressionAttributeValues: { ':sk': { S: SORT_KEY_VALUE.task } },
      ConsistentRead: true,
    });
  }
}

const byTaskId = (a: TaskRecord, b: TaskRecord) =>
  a.task.id < b.task.id ? -1 : a.task.id > b.task.id ? 1 : 0;
