import {
  type Message,
  type Task,
  TaskState,
  taskStateFromJSON,
  taskStateToJSON,
} from '@a2a-js/sdk';
import { STATUS_METADATA_KEY, TASK_METADATA_KEY } from '../a2a/identifiers.js';
import { InvalidTaskRecordError } from '../errors.js';
import {
  type Lifecycle,
  type StatusExtension,
  StatusExtensionSchema,
  type SubState,
  type TaskExtension,
  type TaskStateName,
} from './extension.schema.js';
import { parseExtension } from './extension-reading.js';

/** The four states a task never leaves. */
const TERMINAL_STATES: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

export const isTerminalState = (state: TaskState): boolean => TERMINAL_STATES.has(state);

export const stateName = (state: TaskState): TaskStateName =>
  taskStateToJSON(state) as TaskStateName;

export const stateFromName = (name: TaskStateName): TaskState => taskStateFromJSON(name);

/** The authoritative A2A state (`Task.status.state`). */
export const stateOf = (task: Task): TaskState =>
  task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;

/**
 * Each stored extension object's reading. A task's extension is read many times in one step, and
 * a large one (a thousand rows) takes milliseconds to parse; every change builds a new object
 * (nothing is changed in place), so the same object always reads the same.
 */
const readings = new WeakMap<object, TaskExtension>();

/** The task extension of a task; a task without a valid one is a corrupt record. */
export const readExtension = (task: Task): TaskExtension => {
  const stored: unknown = task.metadata?.[TASK_METADATA_KEY];
  const known = typeof stored === 'object' && stored !== null ? readings.get(stored) : undefined;
  if (known !== undefined) return known;
  const parsed = parseExtension(stored);
  if (parsed.issues !== undefined) {
    throw new InvalidTaskRecordError(
      `task ${task.id} has no valid task extension: ${parsed.issues} issue(s)`,
      parsed.cause === undefined ? {} : { cause: parsed.cause }
    );
  }
  const { extension } = parsed;
  if (typeof stored === 'object' && stored !== null) readings.set(stored, extension);
  // A reading reads as itself: a task rebuilt around it (`withExtension`) is not parsed again.
  readings.set(extension, extension);
  return extension;
};

export const withExtension = (task: Task, extension: TaskExtension): Task => ({
  ...task,
  metadata: { ...task.metadata, [TASK_METADATA_KEY]: extension },
});

/**
 * The task as a store reads it, its extension listing the forks kept beside its record (outside
 * its version: a fork's creation adds to them without writing the record).
 */
export const withForksListed = (task: Task, forks: readonly string[]): Task => {
  const extension = task.metadata?.[TASK_METADATA_KEY];
  if (forks.length === 0 || typeof extension !== 'object' || extension === null) return task;
  return {
    ...task,
    metadata: { ...task.metadata, [TASK_METADATA_KEY]: { ...extension, forks: [...forks] } },
  };
};

/**
 * The task's lifecycle. A task stored before the field existed reads as delegated when it has a
 * parent (it was someone's sub-task) and as a conversation otherwise.
 */
export const lifecycleOf = (extension: TaskExtension): Lifecycle =>
  extension.lifecycle ?? (extension.parent_tasks.length > 0 ? 'delegated' : 'conversation');

export const readStatusExtension = (task: Task): StatusExtension => {
  const parsed = StatusExtensionSchema.safeParse(task.metadata?.[STATUS_METADATA_KEY] ?? {});
  return parsed.success ? parsed.data : {};
};

export const subStateOf = (task: Task): SubState | undefined => readStatusExtension(task).sub_state;

export interface StatusChange {
  state: TaskState;
  /** Set only with INPUT_REQUIRED; any other state clears it. */
  subState?: SubState | undefined;
  message?: Message | undefined;
  timestamp: string;
}

/**
 * The task with a new status. The sub-state lives in the status extension in `Task.metadata`
 * (so the store, the event log and GetTask all carry it) and exists only while parked.
 */
export const withStatus = (task: Task, change: StatusChange): Task => {
  const { [STATUS_METADATA_KEY]: _previous, ...rest } = task.metadata ?? {};
  const subState =
    change.state === TaskState.TASK_STATE_INPUT_REQUIRED ? change.subState : undefined;
  return {
    ...task,
    status: { state: change.state, message: change.message, timestamp: change.timestamp },
    metadata:
      subState === undefined ? rest : { ...rest, [STATUS_METADATA_KEY]: { sub_state: subState } },
  };
};
