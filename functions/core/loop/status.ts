import { TaskState } from '@a2a-js/sdk';
import type { TaskRecord } from '../ports/task-store.js';
import { stateName } from '../task/a2a-task.js';
import type { SubState } from '../task/extension.schema.js';
import type { LoopDeps } from './deps.js';
import { agentMessage } from './messages.js';
import { changeStatus } from './records.js';
import type { StepResult, TurnRef } from './route.schema.js';

const keyOf = (ref: TurnRef, purpose: string) => `${ref.generation}:${ref.turn}:${purpose}`;

const statusMessage = (
  record: TaskRecord,
  ref: TurnRef,
  purpose: string,
  text: string | undefined
) =>
  text === undefined || text === ''
    ? undefined
    : agentMessage({
        messageId: `${record.task.id}:${keyOf(ref, purpose)}`,
        taskId: record.task.id,
        contextId: record.task.contextId,
        text,
      });

/** Parks in INPUT_REQUIRED with a sub-state; the status message is what the task waits on. */
export const parkWaitingForInput = async (
  deps: LoopDeps,
  record: TaskRecord,
  ref: TurnRef,
  subState: SubState,
  text: string | undefined
): Promise<StepResult> => {
  await changeStatus(
    deps,
    record.task.id,
    {
      state: TaskState.TASK_STATE_INPUT_REQUIRED,
      subState,
      message: statusMessage(record, ref, `park:${subState}`, text),
    },
    keyOf(ref, `park:${subState}`)
  );
  return { ref, route: { next: 'park', subState } };
};

/** Ends the task: the terminal status is persisted and emitted before the route is returned. */
export const endTask = async (
  deps: LoopDeps,
  record: TaskRecord,
  ref: TurnRef,
  state: TaskState,
  text: string | undefined,
  alsoMutate?: (record: TaskRecord) => TaskRecord
): Promise<StepResult> => {
  const purpose = `end:${stateName(state)}`;
  await changeStatus(
    deps,
    record.task.id,
    { state, message: statusMessage(record, ref, purpose, text) },
    keyOf(ref, purpose),
    (current) => {
      const next = alsoMutate ? alsoMutate(current) : current;
      return { ...next, loop: { ...next.loop, parkToken: null } };
    }
  );
  return { ref, route: { next: 'end', state: stateName(state) } };
};

export const markWorking = (deps: LoopDeps, record: TaskRecord, ref: TurnRef) =>
  changeStatus(
    deps,
    record.task.id,
    { state: TaskState.TASK_STATE_WORKING },
    keyOf(ref, 'working')
  );
