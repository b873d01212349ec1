import { randomUUID } from 'node:crypto';
import { Task } from '@a2a-js/sdk';
import { STATUS_METADATA_KEY, TASK_METADATA_KEY } from '../../functions/core/a2a/identifiers.js';
import { initialLoopState } from '../../functions/core/loop/loop-state.schema.js';
import type { TaskRecord } from '../../functions/core/ports/task-store.js';
import type { SubState, TaskStateName } from '../../functions/core/task/extension.schema.js';

/** Ids unique across suite runs: the DynamoDB suites share one table per run. */
const run = randomUUID().slice(0, 8);
let counter = 0;
export const uid = (prefix: string) => `${prefix}-${run}-${++counter}`;

export interface TaskOptions {
  contextId?: string;
  participants?: string[];
  state?: TaskStateName;
  subState?: SubState;
  parentId?: string;
  goal?: string;
}

/** A task as the core builds one: ProtoJSON through the SDK, with the task extension. */
export const makeTask = (id: string, options: TaskOptions = {}): Task =>
  Task.fromJSON({
    id,
    contextId: options.contextId ?? uid('ctx'),
    status: {
      state: options.state ?? 'TASK_STATE_SUBMITTED',
      timestamp: '2026-01-01T00:00:00.000Z',
      message: {
        messageId: `${id}-status`,
        role: 'ROLE_AGENT',
        parts: [{ text: 'accepted' }],
      },
    },
    history: [
      {
        messageId: `${id}-m1`,
        role: 'ROLE_USER',
        parts: [{ text: 'hello' }, { data: { n: 1, nested: [true, null] } }],
      },
    ],
    artifacts: [{ artifactId: 'a1', name: 'report', parts: [{ text: 'body' }] }],
    metadata: {
      [TASK_METADATA_KEY]: {
        name: `task ${id}`,
        goal: options.goal ?? 'test the store',
        participants: (options.participants ?? ['alice']).map((participant) => ({
          id: participant,
          kind: 'human',
          role: 'assignee',
        })),
        parent_tasks:
          options.parentId === undefined ? [] : [{ task_id: options.parentId, agent: null }],
      },
      ...(options.subState === undefined
        ? {}
        : { [STATUS_METADATA_KEY]: { sub_state: options.subState } }),
    },
  });

export const makeRecord = (id: string, options: TaskOptions = {}): TaskRecord => ({
  task: makeTask(id, options),
  loop: initialLoopState(),
  version: 1,
  eventSeq: 0,
  inboxCount: 0,
});

/** The record with its state and goal changed, as the core writes an update. */
export const changed = (
  record: TaskRecord,
  change: { state?: TaskStateName; goal?: string; participants?: string[]; turn?: number }
): TaskRecord => {
  const json = Task.toJSON(record.task) as {
    status?: { state?: string };
    metadata?: Record<string, { goal?: string; participants?: unknown[] }>;
  };
  const copy = JSON.parse(JSON.stringify(json)) as typeof json;
  if (change.state !== undefined) copy.status = { ...copy.status, state: change.state };
  const extension = copy.metadata?.[TASK_METADATA_KEY];
  if (extension && change.goal !== undefined) extension.goal = change.goal;
  if (extension && change.participants !== undefined) {
    extension.participants = change.participants.map((id) => ({
      id,
      kind: 'human',
      role: 'watcher',
    }));
  }
  return {
    task: Task.fromJSON(copy),
    loop: { ...record.loop, turn: change.turn ?? record.loop.turn },
    version: record.version,
    eventSeq: record.eventSeq,
    inboxCount: record.inboxCount,
  };
};

export const goalOf = (record: TaskRecord | undefined): unknown =>
  (record?.task.metadata?.[TASK_METADATA_KEY] as { goal?: unknown } | undefined)?.goal;
