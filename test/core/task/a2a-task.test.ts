import { type Task, TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { STATUS_METADATA_KEY, TASK_METADATA_KEY } from '../../../functions/core/a2a/identifiers.js';
import { InvalidTaskRecordError } from '../../../functions/core/errors.js';
import {
  isTerminalState,
  lifecycleOf,
  readExtension,
  readStatusExtension,
  stateFromName,
  stateName,
  stateOf,
  subStateOf,
  withExtension,
  withStatus,
} from '../../../functions/core/task/a2a-task.js';
import {
  TASK_STATE_NAMES,
  type TaskExtension,
  TaskExtensionSchema,
} from '../../../functions/core/task/extension.schema.js';
import { deepFreeze } from '../../support/freeze.js';
import { textMessage } from '../../support/messages.js';

const extension = (overrides: Record<string, unknown> = {}): TaskExtension =>
  TaskExtensionSchema.parse({ name: 'n', goal: 'g', ...overrides });

const task = (
  metadata: Record<string, unknown> | undefined,
  state = TaskState.TASK_STATE_WORKING
): Task =>
  deepFreeze({
    id: 'task-1',
    contextId: 'ctx-1',
    status: { state, message: undefined, timestamp: '2026-01-01T00:00:00.000Z' },
    artifacts: [],
    history: [],
    metadata,
  });

const NOW = '2026-01-02T00:00:00.000Z';
const parent = { task_id: 'task-0', agent: null };

describe('lifecycleOf', () => {
  it('reads a stored task without lifecycle as delegated when it has a parent', () => {
    expect(lifecycleOf(extension({ parent_tasks: [parent] }))).toBe('delegated');
  });

  it('reads a stored task without lifecycle or parent as a conversation', () => {
    expect(lifecycleOf(extension())).toBe('conversation');
  });

  it('lets an explicit lifecycle win over the inference', () => {
    expect(lifecycleOf(extension({ lifecycle: 'conversation', parent_tasks: [parent] }))).toBe(
      'conversation'
    );
    expect(lifecycleOf(extension({ lifecycle: 'delegated' }))).toBe('delegated');
  });
});

describe('withStatus', () => {
  it('records the sub-state in the status extension while INPUT_REQUIRED', () => {
    const parked = withStatus(task({ other: 1 }), {
      state: TaskState.TASK_STATE_INPUT_REQUIRED,
      subState: 'awaiting-answer',
      timestamp: NOW,
    });
    expect(parked.status).toEqual({
      state: TaskState.TASK_STATE_INPUT_REQUIRED,
      message: undefined,
      timestamp: NOW,
    });
    expect(parked.metadata).toEqual({
      other: 1,
      [STATUS_METADATA_KEY]: { sub_state: 'awaiting-answer' },
    });
    expect(subStateOf(parked)).toBe('awaiting-answer');
  });

  it.each(TASK_STATE_NAMES.filter((name) => name !== 'TASK_STATE_INPUT_REQUIRED'))(
    'ignores a sub-state given with %s and clears the previous one',
    (name) => {
      const parked = task(
        { [STATUS_METADATA_KEY]: { sub_state: 'awaiting-next-message' }, other: 1 },
        TaskState.TASK_STATE_INPUT_REQUIRED
      );
      const next = withStatus(parked, {
        state: stateFromName(name),
        subState: 'awaiting-answer',
        timestamp: NOW,
      });
      expect(next.metadata).toEqual({ other: 1 });
      expect(subStateOf(next)).toBeUndefined();
    }
  );

  it('clears the sub-state when INPUT_REQUIRED comes without one', () => {
    const parked = task(
      { [STATUS_METADATA_KEY]: { sub_state: 'awaiting-answer' } },
      TaskState.TASK_STATE_INPUT_REQUIRED
    );
    const next = withStatus(parked, { state: TaskState.TASK_STATE_INPUT_REQUIRED, timestamp: NOW });
    expect(next.metadata).not.toHaveProperty(STATUS_METADATA_KEY);
  });

  it('carries the status message and keeps the task extension', () => {
    const message = textMessage('which venue?');
    const original = task({ [TASK_METADATA_KEY]: extension() });
    const next = withStatus(original, {
      state: TaskState.TASK_STATE_INPUT_REQUIRED,
      subState: 'awaiting-answer',
      message,
      timestamp: NOW,
    });
    expect(next.status?.message).toBe(message);
    expect(readExtension(next)).toEqual(readExtension(original));
  });

  it('works on a task without metadata', () => {
    const next = withStatus(task(undefined), {
      state: TaskState.TASK_STATE_WORKING,
      timestamp: NOW,
    });
    expect(next.metadata).toEqual({});
  });
});

describe('readExtension', () => {
  it('parses the extension under the task key, filling defaults', () => {
    expect(readExtension(task({ [TASK_METADATA_KEY]: { name: 'n', goal: 'g' } }))).toEqual(
      extension()
    );
  });

  it.each([
    ['no metadata', undefined],
    ['no extension', { other: 1 }],
    ['an invalid extension', { [TASK_METADATA_KEY]: { name: 'n' } }],
    ['an unknown key', { [TASK_METADATA_KEY]: { name: 'n', goal: 'g', extra: 1 } }],
  ])('throws InvalidTaskRecordError on a record with %s', (_label, metadata) => {
    expect(() => readExtension(task(metadata))).toThrow(InvalidTaskRecordError);
    try {
      readExtension(task(metadata));
    } catch (error) {
      expect(error).toMatchObject({ code: 'task.invalid' });
      expect((error as Error).message).toContain('task-1');
    }
  });

  it('reads one stored extension once: the same object again is not parsed again, a changed one is', () => {
    const stored = { name: 'n', goal: 'g' };
    const first = readExtension(task({ [TASK_METADATA_KEY]: stored }));
    expect(readExtension(task({ [TASK_METADATA_KEY]: stored }))).toBe(first);
    expect(readExtension(withExtension(task(undefined), first))).toBe(first);
    const changed = { ...first, goal: '' };
    expect(() => readExtension(task({ [TASK_METADATA_KEY]: changed }))).toThrow(
      InvalidTaskRecordError
    );
  });

  it('round-trips through withExtension', () => {
    const changed = extension({ description: 'd' });
    expect(readExtension(withExtension(task({ other: 1 }), changed))).toEqual(changed);
    expect(withExtension(task({ other: 1 }), changed).metadata).toMatchObject({ other: 1 });
  });
});

describe('the status extension', () => {
  it('reads as empty when absent or malformed', () => {
    expect(readStatusExtension(task(undefined))).toEqual({});
    expect(readStatusExtension(task({ [STATUS_METADATA_KEY]: { sub_state: 'asleep' } }))).toEqual(
      {}
    );
  });
});

describe('states', () => {
  it('names every state as on the wire and back', () => {
    for (const name of TASK_STATE_NAMES) expect(stateName(stateFromName(name))).toBe(name);
  });

  it('treats COMPLETED, FAILED, CANCELED and REJECTED as terminal, nothing else', () => {
    const terminal = TASK_STATE_NAMES.filter((name) => isTerminalState(stateFromName(name)));
    expect(terminal).toEqual([
      'TASK_STATE_COMPLETED',
      'TASK_STATE_FAILED',
      'TASK_STATE_CANCELED',
      'TASK_STATE_REJECTED',
    ]);
  });

  it('reads the authoritative state from Task.status', () => {
    expect(stateOf(task(undefined, TaskState.TASK_STATE_INPUT_REQUIRED))).toBe(
      TaskState.TASK_STATE_INPUT_REQUIRED
    );
    expect(stateOf({ ...task(undefined), status: undefined })).toBe(
      TaskState.TASK_STATE_UNSPECIFIED
    );
  });
});
