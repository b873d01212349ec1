import { type Message, TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_METADATA_KEY, TASK_METADATA_KEY } from '../../functions/core/a2a/identifiers.js';
import { ScriptedModel } from '../../functions/core/testing/scripted-model.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { textOf } from '../../functions/view/task-view.js';
import { asTask, clientFor, startStack } from '../support/local-stack.js';
import { envelopeMessage, textMessage } from '../support/messages.js';

let sent = 0;
const send = (message: Message, task?: { id: string; contextId: string }) => ({
  tenant: '',
  message: {
    ...message,
    messageId: `budget-${Date.now()}-${++sent}`,
    taskId: task?.id ?? '',
    contextId: task?.contextId ?? '',
  },
  configuration: undefined,
  metadata: undefined,
});

/**
 * A deployment whose tasks may make one model call each (TINY_HARNESS_DEFAULT_BUDGET), through
 * the local stack and the real A2A client: the second call is never made until the reporter
 * raises the budget with a set_budget control.
 */
describe('a budget through the local stack', () => {
  const model = new ScriptedModel();
  let stack: LocalStack;

  beforeAll(async () => {
    stack = await startStack({
      model,
      env: { TINY_HARNESS_DEFAULT_BUDGET: JSON.stringify({ '*': { model_calls: 1 } }) },
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('waits in awaiting-budget instead of a call past it, and a raised budget resumes it', async () => {
    model.push({ text: 'First.' }, { text: 'Second.' });
    const alice = await clientFor(stack, 'alice');
    const first = asTask(await alice.sendMessage(send(textMessage('hi'))));
    expect(first.metadata?.[TASK_METADATA_KEY]).toMatchObject({ budget: { model_calls: 1 } });

    const stopped = asTask(await alice.sendMessage(send(textMessage('and then?'), first)));
    expect(stopped.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(stopped.metadata?.[STATUS_METADATA_KEY]).toEqual({ sub_state: 'awaiting-budget' });
    expect(textOf(stopped.status)).toContain('model calls: spent 1 of 1');
    expect(model.requests).toHaveLength(1);

    const raised = asTask(
      await alice.sendMessage(
        send(
          envelopeMessage('control', { action: 'set_budget', budget: { model_calls: 2 } }),
          first
        )
      )
    );
    expect(raised.metadata?.[TASK_METADATA_KEY]).toMatchObject({ budget: { model_calls: 2 } });
    const resumed = await alice.getTask({ tenant: '', id: first.id });
    expect(resumed.metadata?.[STATUS_METADATA_KEY]).toEqual({ sub_state: 'awaiting-next-message' });
    expect(textOf(resumed.status)).toBe('Second.');
    expect(model.requests).toHaveLength(2);
  });

  it("refuses a stranger's budget and a task envelope's, changing nothing", async () => {
    model.push({ text: 'Only.' });
    const alice = await clientFor(stack, 'alice');
    const mallory = await clientFor(stack, 'mallory');
    const task = asTask(await alice.sendMessage(send(textMessage('hello'))));

    await expect(
      mallory.sendMessage(
        send(envelopeMessage('control', { action: 'set_budget', budget: { usd: 100 } }), task)
      )
    ).rejects.toThrow(/not found/i);
    await expect(
      alice.sendMessage(send(envelopeMessage('task', { budget: { model_calls: 50 } }), task))
    ).rejects.toThrow(/budget/);

    const after = await alice.getTask({ tenant: '', id: task.id });
    expect(after.metadata?.[TASK_METADATA_KEY]).toMatchObject({ budget: { model_calls: 1 } });
  });
});
