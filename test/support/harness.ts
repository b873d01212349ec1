import { TaskState } from '@a2a-js/sdk';
import type { ChildChange } from '../../functions/core/intake/child-changed.js';
import type { TaskRecord } from '../../functions/core/ports/task-store.js';
import {
  readExtension,
  stateName,
  stateOf,
  subStateOf,
} from '../../functions/core/task/a2a-task.js';
import type { SubTaskRow } from '../../functions/core/task/extension.schema.js';
import {
  InProcessHarness,
  type InProcessHarnessOptions,
} from '../../functions/core/testing/in-process-harness.js';
import { ScriptedModel, type ScriptedReply } from '../../functions/core/testing/scripted-model.js';
import { envelopeMessage, textMessage } from './messages.js';

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

/** A task Alice starts (saying `text`) with Bob on it as a watcher. */
export const sharedWithBob = (harness: InProcessHarness, text = 'hello') =>
  harness.start(
    envelopeMessage(
      'task',
      {
        name: 'Shared',
        goal: 'Work together',
        participants: [{ id: BOB, kind: 'human', role: 'watcher' }],
      },
      { text }
    ),
    ALICE
  );

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

/** Rows of `count` children on this harness that have ended, named `<prefix>-0`, `<prefix>-1`, ... */
/** The first change of the child `remote-task-1` on the agent `remote`, as its stand-in delivers it. */
export const remoteChildChange = (
  parentId: string,
  change: Pick<ChildChange, 'state' | 'summary'> & Partial<ChildChange>
): ChildChange => ({
  parentId,
  childId: 'remote-task-1',
  agent: { kind: 'agent', id: 'remote', version: null },
  subState: undefined,
  childLifecycle: 'delegated',
  participantTask: false,
  remoteTurn: false,
  linkedByHarness: true,
  changeKey: 'remote:1',
  order: 1,
  ...change,
});

export const endedRows = (count: number, prefix = 'child'): SubTaskRow[] =>
  Array.from({ length: count }, (_, index) => ({
    task_id: `${prefix}-${index}`,
    agent: null,
    state: 'TASK_STATE_COMPLETED',
    sub_state: null,
    criteria: null,
  }));

/**
 * A conversation of three messages (`one`, `two`, `three`) whose third turn compacts by the
 * `compaction.trigger` hook (the model's replies: `a`, `b`, the summary, then the third answer),
 * and compacts nothing after it.
 */
export const compactedAtThirdMessage = async (harness: InProcessHarness) => {
  let overBudget = false;
  harness.hooks.register('compaction.trigger', {
    phase: 'in',
    priority: 1,
    run: () => ({ result: overBudget }),
  });
  const task = await harness.start(textMessage('one'), ALICE);
  await harness.send(task.task.id, textMessage('two'), ALICE);
  overBudget = true;
  await harness.send(task.task.id, textMessage('three'), ALICE);
  overBudget = false;
  return task;
};
