import type { TaskState } from '@a2a-js/sdk';
import { ConcurrencyConflictError, TaskNotFoundError } from '../errors.js';
import type { TaskEvent } from '../ports/event-log.js';
import type { PushConfig } from '../ports/push-config-store.js';
import type { AuditRecord, CommitResult, TaskCommit, TaskRecord } from '../ports/task-store.js';
import { type StatusChange, stateOf, subStateOf, withStatus } from '../task/a2a-task.js';
import type { SubState } from '../task/extension.schema.js';
import type { LoopDeps } from './deps.js';
import type { HistoryEntry } from './history.schema.js';
import type { InboxItem, InboxItemDraft } from './inbox.schema.js';

export const loadRecord = async (
  deps: Pick<LoopDeps, 'store'>,
  taskId: string
): Promise<TaskRecord> => {
  const record = await deps.store.get(taskId);
  if (record === undefined) throw new TaskNotFoundError(taskId);
  return record;
};

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
          metadata: task.metadata,
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
});

/** What one decision of an operation comes to: its result, and what to commit (if anything). */
export interface Decision<T> {
  result: T;
  commit?: TaskCommit | undefined;
  stateChanges?: readonly StateChanged[];
}

/** A decision to commit `change` (made on `base`) and answer `result`. */
export const decided = <T>(base: TaskRecord, change: Change, result: T): Decision<T> => ({
  result,
  commit: updateOf(base, change),
  stateChanges: change.stateChanges,
});

/**
 * How many times an operation decides before it gives up a lost race: with the pause between
 * attempts (up to 100 ms each once a few are lost), about two seconds of trying, which fifty
 * senders racing for one parked task never exhaust. Giving up writes nothing and is retryable.
 */
const MAX_ATTEMPTS = 40;

/**
 * One read, one decision, one commit. `load` reads what the operation needs, `decide` (pure but
 * for hooks: no store I/O) says what to write and what to answer, and the store writes it all at
 * once, conditioned on what was read. On a conflict (the task was written since it was read:
 * a child's row, a message, a cut) the operation reads and decides again, after the pause the
 * deps ask for (`pauseAfterConflict`); whatever it did outside the store (a model call) is
 * captured by `decide`, never repeated. A decision made on a state that has moved on (a
 * superseded generation, an ended task) decides to write nothing.
 */
export const decideAndCommit = async <S, T>(
  deps: LoopDeps,
  load: () => Promise<S>,
  decide: (snapshot: S) => Decision<T> | Promise<Decision<T>>
): Promise<{ result: T; committed: CommitResult | undefined }> => {
  for (let attempt = 1; ; attempt++) {
    const decision = await decide(await load());
    if (decision.commit === undefined) return { result: decision.result, committed: undefined };
    let committed: CommitResult;
    try {
      committed = await deps.store.commit(decision.commit);
    } catch (error) {
      if (!(error instanceof ConcurrencyConflictError) || attempt >= MAX_ATTEMPTS) throw error;
      await deps.pauseAfterConflict?.(attempt);
      continue;
    }
    const taskId =
      'taskId' in decision.commit ? decision.commit.taskId : decision.commit.record.task.id;
    for (const changed of decision.stateChanges ?? []) {
      await deps.hooks.run('task.state_changed', { taskId, ...changed }, () => undefined);
    }
    return { result: decision.result, committed };
  }
};

/** `decideAndCommit` on the task record alone. */
export const decideOnRecord = <T>(
  deps: LoopDeps,
  taskId: string,
  decide: (record: TaskRecord) => Decision<T> | Promise<Decision<T>>
) => decideAndCommit(deps, () => loadRecord(deps, taskId), decide);
