import { TaskState } from '@a2a-js/sdk';
import type { TaskRecord } from '../../functions/core/ports/task-store.js';
import {
  readExtension,
  stateName,
  stateOf,
  subStateOf,
} from '../../functions/core/task/a2a-task.js';
import {
  InProcessHarness,
  type InProcessHarnessOptions,
} from '../../functions/core/testing/in-process-harness.js';
import { ScriptedModel, type ScriptedReply } from '../../functions/core/testing/scripted-model.js';

export const ALICE = 'alice';
export const BOB = 'bob';
export const STRANGER = 'mallory';

/** A harness on a scripted model; the script is the replies in order. */
export const harnessWith = (
  replies: ScriptedReply[],
  options: Omit<InProcessHarnessOptions, 'model'> = {}
) => {
  const model = new ScriptedModel(replies);
  return { harness: new InProcessHarness({ ...options, model }), model };
};

/** What a test asserts on: the A2A state name, the sub-state, the extension. */
export const view = (record: TaskRecord) => ({
  state: stateName(stateOf(record.task)),
  subState: subStateOf(record.task),
  extension: readExtension(record.task),
  statusText: (record.task.status?.message?.parts ?? [])
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .join(''),
});

export const STATES = {
  WORKING: stateName(TaskState.TASK_STATE_WORKING),
  INPUT_REQUIRED: stateName(TaskState.TASK_STATE_INPUT_REQUIRED),
  COMPLETED: stateName(TaskState.TASK_STATE_COMPLETED),
  FAILED: stateName(TaskState.TASK_STATE_FAILED),
  CANCELED: stateName(TaskState.TASK_STATE_CANCELED),
} as const;
