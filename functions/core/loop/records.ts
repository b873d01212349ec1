import type { Task, TaskState } from '@a2a-js/sdk';
import { TASK_METADATA_KEY } from '../a2a/identifiers.js';
import type { TaskEvent } from '../ports/event-log.js';
import type { PushConfig } from '../ports/push-config-store.js';
import type { AuditRecord, BudgetEntry, TaskCommit, TaskRecord } from '../ports/task-store.js';
import { type StatusChange, stateOf, subStateOf, withStatus } from '../task/a2a-task.js';
import type { SubState } from '../task/extension.schema.js';
import type { HistoryEntry } from './history.schema.js';
import type { InboxItem, InboxItemDraft } from './inbox.schema.js';

export interface StateChanged {
  from: TaskState;
  to: TaskState;
  subState: SubState | undefined;
}

/**
 * What an operation decided about one task: the record as it should be and everything written
 * with it. Built by pure functions from the record as loaded; committed once.
 */
export interface Change {
  record: TaskRecord;
  history: HistoryEntry[];
  events: TaskEvent[];
  consumed: InboxItem[];
  enqueue: InboxItemDraft[];
  seen: string[];
  audit: AuditRecord[];
  pushConfigs: PushConfig[];
  /** Amounts added to budget accounts (a budget set, a reservation given back). */
  budgetCredits: BudgetEntry[];
  /** For the `task.state_changed` hooks, which run once the change is committed. */
  stateChanges: StateChanged[];
}

export const changeOf = (record: TaskRecord): Change => ({
  record,
  history: [],
  events: [],
  consumed: [],
  enqueue: [],
  seen: [],
  audit: [],
  pushConfigs: [],
  budgetCredits: [],
  stateChanges: [],
});

/** Whether committing `change` (made on `base`) would write nothing at all. */
export const writesNothing = (change: Change, base: TaskRecord): boolean =>
  change.record === base &&
  [
    change.history,
    change.events,
    change.consumed,
    change.enqueue,
    change.seen,
    change.audit,
    change.pushConfigs,
    change.budgetCredits,
  ].every((list) => list.length === 0);

/** The change with the record rewritten (task or loop state). */
export const withRecord = (change: Change, update: (record: TaskRecord) => TaskRecord): Change => ({
  ...change,
  record: update(change.record),
});

export const withLoop = (
  change: Change,
  update: (loop: TaskRecord['loop']) => TaskRecord['loop']
): Change => withRecord(change, (record) => ({ ...record, loop: update(record.loop) }));

/** The task as it now is, appended to its log: renderers read the extension only from Tasks. */
export const withTaskEvent = (change: Change): Change => ({
  ...change,
  events: [...change.events, { kind: 'task', task: change.record.task }],
});

/**
 * What a status update carries of the task's metadata: everything but the task extension (its
 * sub-state and usage, say). The extension travels in Task events, which follow every change of
 * it; a status update carrying it too would log the whole plan and every sub-task row twice a
 * turn, and a task's events would grow with the task.
 */
export const statusMetadataOf = (task: Task): Task['metadata'] => {
  if (task.metadata === undefined) return undefined;
  const { [TASK_METADATA_KEY]: _extension, ...rest } = task.metadata;
  return rest;
};

/**
 * The task with a new status. A change of state or sub-state is logged as a status update (every
 * subscriber and push config reads it) and runs the `task.state_changed` hooks once committed;
 * the same state and sub-state again only updates the status message and timestamp.
 */
export const withStatusChange = (
  change: Change,
  status: Omit<StatusChange, 'timestamp'>,
  now: string
): Change => {
  const from = stateOf(change.record.task);
  const fromSubState = subStateOf(change.record.task);
  const task = withStatus(change.record.task, { ...status, timestamp: now });
  const next = { ...change, record: { ...change.record, task } };
  if (from === status.state && fromSubState === subStateOf(task)) return next;
  return {
    ...next,
    events: [
      ...next.events,
      {
        kind: 'status_update',
        statusUpdate: {
          taskId: task.id,
          contextId: task.contextId,
          status: task.status,
          metadata: statusMetadataOf(task),
        },
      },
    ],
    stateChanges: [...next.stateChanges, { from, to: status.state, subState: subStateOf(task) }],
  };
};

/** The commit of a change decided on `base`: applies only while the task is still at `base`. */
export const updateOf = (base: TaskRecord, change: Change): TaskCommit => ({
  kind: 'update',
  base,
  record: change.record,
  history: change.history,
  events: change.events,
  consumed: change.consumed,
  enqueue: change.enqueue,
  seen: change.seen,
  audit: change.audit,
  pushConfigs: change.pushConfigs,
  budgetCredits: change.budgetCredits,
});

/** The change with amounts added to budget accounts in its commit. */
export const withBudgetCredits = (change: Change, credits: readonly BudgetEntry[]): Change =>
  credits.length === 0
    ? change
    : { ...change, budgetCredits: [...change.budgetCredits, ...credits] };
