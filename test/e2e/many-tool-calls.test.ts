import { TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TOOL_CALLS_PER_RESPONSE } from '../../functions/core/loop/invoke-model.js';
import { userTextMessage } from '../../functions/core/loop/messages.js';
import { ScriptedModel } from '../../functions/core/testing/scripted-model.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { asTask, clientFor, eventually, startStack } from '../support/local-stack.js';

/**
 * A model response with more tool calls than one transaction could record (100 writes, each call
 * a transcript entry) on the real store: it commits with the first
 * `MAX_TOOL_CALLS_PER_RESPONSE`, the model is told of the rest, and the task goes on.
 */
describe('a response with 150 tool calls, on DynamoDB Local', () => {
  const model = new ScriptedModel([
    {
      toolCalls: Array.from({ length: 150 }, (_, n) => ({
        id: `call-${n + 1}`,
        name: 'no_such_tool',
        arguments: { n },
      })),
    },
    { text: 'I asked for too much at once.' },
  ]);
  let stack: LocalStack;

  beforeAll(async () => {
    stack = await startStack({ model });
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
  });

  it('commits the first calls, answers them, tells the model of the rest, and parks', async () => {
    const client = await clientFor(stack, 'alice');
    const sent = asTask(
      await client.sendMessage({
        tenant: '',
        message: userTextMessage({
          messageId: 'many-calls-1',
          text: 'do it all',
          taskId: '',
          contextId: '',
        }),
        configuration: undefined,
        metadata: undefined,
      })
    );
    const task = await eventually(async () => {
      const read = await client.getTask({ tenant: '', id: sent.id, historyLength: undefined });
      return read.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED ? read : undefined;
    });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const history = await stack.runtime.loop.store.readHistory(sent.id);
    expect(history.filter((entry) => entry.kind === 'tool_result')).toHaveLength(
      MAX_TOOL_CALLS_PER_RESPONSE
    );
    expect(history.find((entry) => entry.kind === 'harness_note')).toMatchObject({
      topic: 'tool_calls_dropped',
    });
    expect(model.requests).toHaveLength(2);
  });
});
