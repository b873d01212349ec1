import { type Message, TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { executionArn } from '../../functions/adapters/stepfunctions/turn-executions.js';
import { startTask } from '../../functions/core/intake/start-task.js';
import { userTextMessage } from '../../functions/core/loop/messages.js';
import { ScriptedModel } from '../../functions/core/testing/scripted-model.js';
import { createReconcileHandler } from '../../functions/handlers/reconcile.js';
import { pendingStartSweepEvent } from '../../functions/local/execution-status-change.js';
import { localLambdaContext } from '../../functions/local/lambda-context.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { PENDING_START_GRACE_MS } from '../../functions/service/pending-start-schedule.js';
import { asTask, clientFor, eventually, startStack } from '../support/local-stack.js';

let counter = 0;
const userMessage = (text: string): Message =>
  userTextMessage({ messageId: `e2e-reconcile-${Date.now()}-${++counter}`, text, taskId: '' });
const send = (message: Message) => ({
  tenant: '',
  message,
  configuration: undefined,
  metadata: undefined,
});

const statusText = (task: { status?: { message?: { parts?: unknown[] } } }) =>
  JSON.stringify(task.status?.message?.parts ?? []);

/** Starts a conversation and waits until it parks for Alice's next message. */
const parkedConversation = async (stack: LocalStack) => {
  const alice = await clientFor(stack, 'alice');
  const started = asTask(await alice.sendMessage(send(userMessage('hello'))));
  expect(started.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  return { alice, taskId: started.id };
};

describe('the local engine feeds the reconciler, as EventBridge does in the cloud', () => {
  it('a parked task whose execution is stopped from outside fails with a reason naming it', async () => {
    const stack = await startStack({ model: new ScriptedModel([{ text: 'Hi.' }]) });
    try {
      const { alice, taskId } = await parkedConversation(stack);

      stack.engine.stopExecution({
        executionArn: executionArn(stack.stateMachineArn, taskId, 1),
        cause: 'stopped by an operator',
      });

      const failed = await eventually(async () => {
        const task = await alice.getTask({ tenant: '', id: taskId });
        return task.status?.state === TaskState.TASK_STATE_FAILED ? task : undefined;
      });
      expect(statusText(failed)).toContain(`${taskId}-g1 was stopped before the task ended`);
      expect(statusText(failed)).toContain('stopped by an operator');
    } finally {
      await stack.close();
    }
  }, 60_000);

  it('a task with a message waiting is picked up by a fresh generation when its execution dies', async () => {
    const model = new ScriptedModel([{ text: 'Hi.' }, { text: 'Picked up where we left off.' }]);
    const stack = await startStack({ model });
    try {
      const { alice, taskId } = await parkedConversation(stack);
      // A message reached the inbox but its wake was lost (the waker died before SendTaskSuccess).
      await stack.runtime.loop.store.commit({
        kind: 'guarded',
        taskId,
        unparked: false,
        enqueue: [
          {
            kind: 'message',
            id: 'lost-wake-1',
            participantId: 'alice',
            source: 'human',
            text: 'anyone there?',
          },
        ],
      });

      stack.engine.stopExecution({ executionArn: executionArn(stack.stateMachineArn, taskId, 1) });

      const resumed = await eventually(async () => {
        const task = await alice.getTask({ tenant: '', id: taskId });
        return task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED &&
          statusText(task).includes('Picked up where we left off.')
          ? task
          : undefined;
      });
      expect(resumed.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const second = stack.engine.describeExecution({
        executionArn: executionArn(stack.stateMachineArn, taskId, 2),
      });
      expect(second.status).toBe('RUNNING');
      expect(model.requests).toHaveLength(2);
    } finally {
      await stack.close();
    }
  }, 60_000);

  it('a task whose starter died after its commit is started by the schedule, once its grace is over', async () => {
    const model = new ScriptedModel([{ text: 'Started by the sweep.' }]);
    const stack = await startStack({ model });
    try {
      // What a Lambda that died between its commit and StartExecution leaves: the task, no execution.
      const { record } = await startTask(stack.runtime.loop, {
        message: userMessage('hello'),
        sender: 'alice',
      });
      const taskId = record.task.id;
      const since = Date.parse(record.loop.startPendingSince ?? '');
      const reconcile = createReconcileHandler(() => stack.runtime);
      const sweepAt = (ms: number) =>
        reconcile(pendingStartSweepEvent(new Date(ms)), localLambdaContext('ReconcileFunction'));

      expect(await sweepAt(since + PENDING_START_GRACE_MS / 2)).toMatchObject({ started: 0 });
      expect(() =>
        stack.engine.describeExecution({
          executionArn: executionArn(stack.stateMachineArn, taskId, 1),
        })
      ).toThrow(/does not exist/i);

      expect(await sweepAt(since + PENDING_START_GRACE_MS + 1_000)).toMatchObject({ started: 1 });

      const alice = await clientFor(stack, 'alice');
      const parked = await eventually(async () => {
        const task = await alice.getTask({ tenant: '', id: taskId });
        return task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED ? task : undefined;
      });
      expect(statusText(parked)).toContain('Started by the sweep.');
      expect((await stack.runtime.loop.store.get(taskId))?.loop.startPendingSince).toBeNull();
      expect(await sweepAt(since + PENDING_START_GRACE_MS * 3)).toMatchObject({ started: 0 });
      expect(model.requests).toHaveLength(1);
    } finally {
      await stack.close();
    }
  }, 60_000);
});
