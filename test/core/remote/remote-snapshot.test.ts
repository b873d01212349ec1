import { type Message, Role, type Task, TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import {
  STATUS_METADATA_KEY,
  USAGE_METADATA_KEY,
} from '../../../functions/core/a2a/identifiers.js';
import { RemoteCallError } from '../../../functions/core/errors.js';
import { snapshotOf, snapshotOfMessage } from '../../../functions/core/remote/remote-snapshot.js';

const text = (value: string) => ({
  content: { $case: 'text' as const, value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

const agentMessage = (messageId: string, value: string): Message => ({
  messageId,
  contextId: 'c',
  taskId: 't',
  role: Role.ROLE_AGENT,
  parts: [text(value)],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

const task = (overrides: Partial<Task> = {}, state = TaskState.TASK_STATE_WORKING): Task => ({
  id: 't',
  contextId: 'c',
  status: { state, message: undefined, timestamp: '2026-01-01T00:00:00.000Z' },
  artifacts: [],
  history: [],
  metadata: undefined,
  ...overrides,
});

const usage = {
  model_calls: 2,
  input_tokens: 200,
  cached_input_tokens: 0,
  output_tokens: 20,
  cost_usd: 0.5,
};

describe('a remote task as its stand-in reads it', () => {
  it('refuses an answer about another task, or without a state, as garbage', () => {
    expect(() => snapshotOf(task(), 'other')).toThrow(RemoteCallError);
    expect(() => snapshotOf(task({}, TaskState.TASK_STATE_UNSPECIFIED), 't')).toThrow(
      /has no A2A state/
    );
  });

  it("reads the status extension's sub-state, and a foreign agent's input-required as a question", () => {
    const parked = task(
      { metadata: { [STATUS_METADATA_KEY]: { sub_state: 'awaiting-next-message' } } },
      TaskState.TASK_STATE_INPUT_REQUIRED
    );
    expect(snapshotOf(parked, 't').subState).toBe('awaiting-next-message');
    expect(snapshotOf(task({}, TaskState.TASK_STATE_INPUT_REQUIRED), 't').subState).toBe(
      'awaiting-answer'
    );
    expect(snapshotOf(task(), 't').subState).toBeNull();
  });

  it("takes the agent's latest message as its turn: the status message, else the last in history", () => {
    const withHistory = task({
      history: [agentMessage('m-1', 'first'), agentMessage('m-2', 'second')],
    });
    expect(snapshotOf(withHistory, 't').turn).toEqual({ id: 'm-2', text: 'second' });
    const withStatus = task({
      ...withHistory,
      status: {
        state: TaskState.TASK_STATE_INPUT_REQUIRED,
        message: agentMessage('m-3', 'Which year?'),
        timestamp: '',
      },
    });
    expect(snapshotOf(withStatus, 't')).toMatchObject({
      turn: { id: 'm-3', text: 'Which year?' },
      result: 'Which year?',
    });
  });

  it('makes the final message and the artifacts the result of an ending', () => {
    const done = task(
      {
        status: {
          state: TaskState.TASK_STATE_COMPLETED,
          message: agentMessage('m', 'Done.'),
          timestamp: '',
        },
        artifacts: [
          {
            artifactId: 'a-1',
            name: 'totals',
            description: '',
            parts: [text('EUR 42'), { ...text(''), content: { $case: 'data', value: { n: 1 } } }],
            metadata: undefined,
            extensions: [],
          },
        ],
      },
      TaskState.TASK_STATE_COMPLETED
    );
    expect(snapshotOf(done, 't').result).toBe('Done.\n\n[artifact totals]\nEUR 42\n{"n":1}');
  });

  it("reads a remote tiny-harness's tree total, another agent's own usage, and nothing as unknown", () => {
    const tree = task({
      metadata: {
        [USAGE_METADATA_KEY]: { ...usage, tree: { ...usage, model_calls: 5, unknown: ['x'] } },
      },
    });
    expect(snapshotOf(tree, 't').usage).toEqual({
      usage: { ...usage, model_calls: 5 },
      unknown: ['x'],
    });
    expect(snapshotOf(task({ metadata: { [USAGE_METADATA_KEY]: usage } }), 't').usage).toEqual({
      usage,
      unknown: [],
    });
    expect(snapshotOf(task(), 't').usage).toBeNull();
    expect(
      snapshotOf(task({ metadata: { [USAGE_METADATA_KEY]: { model_calls: -1 } } }), 't').usage
    ).toBeNull();
  });

  it('takes a message answering the brief as the whole, completed result', () => {
    expect(snapshotOfMessage(agentMessage('m-9', 'It is 42.'))).toEqual({
      state: 'TASK_STATE_COMPLETED',
      subState: null,
      turn: { id: 'm-9', text: 'It is 42.' },
      result: 'It is 42.',
      usage: null,
    });
  });
});
