import { TaskState } from '@a2a-js/sdk';
import { stateName, stateOf, subStateOf } from '../task/a2a-task.js';
import type { SubState } from '../task/extension.schema.js';
import { agentMessage, statusText } from './messages.js';
import { type Change, withLoop, withStatusChange } from './records.js';
import type { Route, TurnRef } from './route.schema.js';

const keyOf = (ref: TurnRef, purpose: string) => `${ref.generation}:${ref.turn}:${purpose}`;

const statusMessage = (change: Change, ref: TurnRef, purpose: string, text: string | undefined) =>
  text === undefined || text === ''
    ? undefined
    : agentMessage({
        messageId: `${change.record.task.id}:${keyOf(ref, purpose)}`,
        taskId: change.record.task.id,
        contextId: change.record.task.contextId,
        text: statusText(text),
      });

/**
 * Parks in INPUT_REQUIRED with a sub-state; the status message is what the task waits on. The
 * same park again (a turn state re-entered after its turn ended) changes nothing.
 */
export const parkedForInput = (
  change: Change,
  ref: TurnRef,
  subState: SubState,
  text: string | undefined,
  now: string
): Change => {
  const message = statusMessage(change, ref, `park:${subState}`, text);
  const { task } = change.record;
  const samePark =
    stateOf(task) === TaskState.TASK_STATE_INPUT_REQUIRED &&
    subStateOf(task) === subState &&
    JSON.stringify(task.status?.message) === JSON.stringify(message);
  if (samePark) return change;
  return withStatusChange(
    change,
    { state: TaskState.TASK_STATE_INPUT_REQUIRED, subState, message },
    now
  );
};

/** Ends the task: nobody may wake it any more. */
export const ended = (
  change: Change,
  ref: TurnRef,
  state: TaskState,
  text: string | undefined,
  now: string
): Change =>
  withLoop(
    withStatusChange(
      change,
      { state, message: statusMessage(change, ref, `end:${stateName(state)}`, text) },
      now
    ),
    (loop) => ({ ...loop, parkToken: null })
  );

/** WORKING, unless it already is (a turn after a tool call changes nothing). */
export const working = (change: Change, now: string): Change =>
  stateOf(change.record.task) === TaskState.TASK_STATE_WORKING
    ? change
    : withStatusChange(change, { state: TaskState.TASK_STATE_WORKING }, now);

export const endRoute = (state: TaskState): Route => ({ next: 'end', state: stateName(state) });
