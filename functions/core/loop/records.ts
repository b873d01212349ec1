import type { TaskState } from '@a2a-js/sdk';
import { ConcurrencyConflictError, TaskNotFoundError } from '../errors.js';
import type { TaskEvent } from '../ports/event-log.js';
import type { TaskRecord } from '../ports/task-store.js';
import { type StatusChange, stateOf, subStateOf, withStatus } from '../task/a2a-task.js';
import type { LoopDeps } from './deps.js';

export const loadRecord = async (
  deps: Pick<LoopDeps, 'store'>,
  taskId: string
): Promise<TaskRecord> => {
  const record = await deps.store.get(taskId);
  if (record === undefined) throw new TaskNotFoundError(taskId);
  return record;
};

const MAX_ATTEMPTS = 8;

/**
 * Read-modify-write with optimistic concurrency. The loop is not the task record's only writer
 * (the stream handler updates sub-task rows, intake records completion requests), so a conflict
 * re-reads and re-applies `mutate`. `mutate` returns undefined when there is nothing to write.
 */
export const mutateRecord = async (
  deps: Pick<LoopDeps, 'store'>,
  taskId: string,
  mutate: (record: TaskRecord) => TaskRecord | undefined
): Promise<TaskRecord> => {
  for (let attempt = 1; ; attempt++) {
    const current = await loadRecord(deps, taskId);
    const next = mutate(current);
    if (next === undefined) return current;
    try {
      return await deps.store.update({ ...next, version: current.version });
    } catch (error) {
      if (!(error instanceof ConcurrencyConflictError) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
};

export const emit = (
  deps: Pick<LoopDeps, 'events'>,
  taskId: string,
  event: TaskEvent,
  key: string
) => deps.events.append(taskId, event, key);

export const emitTask = (deps: Pick<LoopDeps, 'events'>, record: TaskRecord, key: string) =>
  emit(deps, record.task.id, { kind: 'task', task: record.task }, key);

export const emitStatus = (deps: Pick<LoopDeps, 'events'>, record: TaskRecord, key: string) =>
  emit(
    deps,
    record.task.id,
    {
      kind: 'status_update',
      statusUpdate: {
        taskId: record.task.id,
        contextId: record.task.contextId,
        status: record.task.status,
        metadata: record.task.metadata,
      },
    },
    key
  );

/**
 * Moves the task to a new status, persists it, then emits the status update (to the durable log
 * every subscriber and push config reads) and runs the `task.state_changed` hooks.
 * A change to the same state and sub-state is a no-op.
 */
export const changeStatus = async (
  deps: LoopDeps,
  taskId: string,
  change: Omit<StatusChange, 'timestamp'>,
  eventKey: string,
  alsoMutate: (record: TaskRecord) => TaskRecord = (record) => record
): Promise<TaskRecord> => {
  let from: TaskState | undefined;
  const record = await mutateRecord(deps, taskId, (current) => {
    from = stateOf(current.task);
    const task = withStatus(current.task, { ...change, timestamp: deps.clock.now() });
    return alsoMutate({ ...current, task });
  });
  if (
    from !== undefined &&
    (from !== change.state || subStateOf(record.task) !== change.subState)
  ) {
    await emitStatus(deps, record, eventKey);
    await deps.hooks.run(
      'task.state_changed',
      { taskId, from, to: change.state, subState: change.subState },
      () => undefined
    );
  }
  return record;
};
