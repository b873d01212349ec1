import { type Message, TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { userTextMessage } from '../../functions/core/loop/messages.js';
import type { Model, ModelRequest, ModelResponse } from '../../functions/core/ports/model.js';
import { ScriptedModel } from '../../functions/core/testing/scripted-model.js';
import { asTask, clientFor, eventually, startStack, temporaryDir } from '../support/local-stack.js';
import { opened, rawClient, rest } from './a2a-clients.js';

let counter = 0;
const userMessage = (text: string, taskId = ''): Message =>
  userTextMessage({ messageId: `e2e-rc-${Date.now()}-${++counter}`, text, taskId });
const send = (message: Message, returnImmediately = false) => ({
  tenant: '',
  message,
  configuration: returnImmediately
    ? { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true }
    : undefined,
  metadata: undefined,
});

/** A model that holds each call until the test lets it answer: a turn that is still running. */
class GatedModel implements Model {
  readonly inner = new ScriptedModel();
  #arrived: Array<() => void> = [];
  #release: Array<() => void> = [];
  calls = 0;

  arrived(): Promise<void> {
    return this.calls > 0
      ? Promise.resolve()
      : new Promise((resolve) => this.#arrived.push(resolve));
  }
  release(): void {
    for (const release of this.#release.splice(0)) release();
  }
  async invoke(request: ModelRequest): Promise<ModelResponse> {
    this.calls += 1;
    for (const arrived of this.#arrived.splice(0)) arrived();
    await new Promise<void>((resolve) => this.#release.push(resolve));
    return this.inner.invoke(request);
  }
}

describe('the local stack across a restart, and a cancel during a turn', () => {
  it('resumes a task parked before a restart of the local stack with the next message', async () => {
    const data = temporaryDir();
    try {
      const first = await startStack({
        dataDir: data.dir,
        model: new ScriptedModel([{ text: 'Before the restart.' }]),
      });
      let taskId: string;
      let executionName: string | undefined;
      try {
        const alice = await clientFor(first, 'alice');
        const parked = asTask(await alice.sendMessage(send(userMessage('hi'))));
        expect(parked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
        taskId = parked.id;
        const { executions } = await first.engine.listExecutions({
          stateMachineArn: first.stateMachineArn,
        });
        executionName = executions?.find((execution) => execution.name?.startsWith(taskId))?.name;
      } finally {
        await first.close();
      }

      const second = await startStack({
        dataDir: data.dir,
        model: new ScriptedModel([{ text: 'After the restart.' }]),
      });
      try {
        // Nothing of the task is in memory: a subscriber gets the log, replayed from the start.
        const watching = rawClient(second.url, 'alice', 'HTTP+JSON').subscribe(taskId);
        const snapshot = await opened(watching);
        const alice = await clientFor(second, 'alice');
        const resumed = asTask(await alice.sendMessage(send(userMessage('still there?', taskId))));
        const watched = await rest(watching);
        expect(snapshot).toMatchObject({ kind: 'task', state: 'TASK_STATE_INPUT_REQUIRED' });
        expect(watched.map((event) => [event.id, event.kind, event.state, event.text])).toEqual([
          ['1', 'task', 'TASK_STATE_SUBMITTED', ''],
          ['2', 'statusUpdate', 'TASK_STATE_WORKING', ''],
          ['3', 'statusUpdate', 'TASK_STATE_INPUT_REQUIRED', 'Before the restart.'],
          ['4', 'statusUpdate', 'TASK_STATE_WORKING', ''],
          ['5', 'statusUpdate', 'TASK_STATE_INPUT_REQUIRED', 'After the restart.'],
        ]);
        expect(resumed.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
        expect(resumed.status?.message?.parts[0]?.content).toEqual({
          $case: 'text',
          value: 'After the restart.',
        });
        const { executions } = await second.engine.listExecutions({
          stateMachineArn: second.stateMachineArn,
        });
        const mine = executions?.filter((execution) => execution.name?.startsWith(taskId)) ?? [];
        expect(mine.map((execution) => execution.name)).toEqual([executionName]);
        const history = await second.runtime.loop.store.readHistory(taskId);
        expect(history.map((entry) => entry.kind)).toEqual([
          'participant_message',
          'assistant_message',
          'participant_message',
          'assistant_message',
        ]);
      } finally {
        await second.close();
      }
    } finally {
      data.remove();
    }
  }, 120_000); // two stack starts with DynamoDB Local on disk: slow on a loaded 2-core box

  it('cuts a running turn on cancel: CANCELED at once, the execution stopped, no further model call', async () => {
    const model = new GatedModel();
    model.inner.push({ text: 'too late' });
    const stack = await startStack({ model });
    try {
      const alice = await clientFor(stack, 'alice');
      const started = asTask(await alice.sendMessage(send(userMessage('take your time'), true)));
      await model.arrived();

      const canceled = await alice.cancelTask({ tenant: '', id: started.id, metadata: undefined });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      const { executions } = await stack.engine.listExecutions({
        stateMachineArn: stack.stateMachineArn,
      });
      const execution = executions?.find((candidate) => candidate.name?.startsWith(started.id));
      const stopped = await eventually(async () => {
        const described = await stack.engine.describeExecution({
          executionArn: execution?.executionArn ?? '',
        });
        return described.status === 'ABORTED' ? described : undefined;
      });
      expect(stopped.status).toBe('ABORTED');

      model.release();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const after = await alice.getTask({ tenant: '', id: started.id });
      expect(after.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect(model.calls).toBe(1);
      // §3.1.5: a canceled task is not cancelable again, and nothing moves.
      await expect(
        alice.cancelTask({ tenant: '', id: started.id, metadata: undefined })
      ).rejects.toMatchObject({ name: 'TaskNotCancelableError' });
      expect(model.calls).toBe(1);
    } finally {
      model.release();
      await stack.close();
    }
  }, 60_000);
});
