import { type Message, TaskState } from '@a2a-js/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_METADATA_KEY, TASK_METADATA_KEY } from '../../functions/core/a2a/identifiers.js';
import { userTextMessage } from '../../functions/core/loop/messages.js';
import type { Model, ModelRequest, ModelResponse } from '../../functions/core/ports/model.js';
import { ScriptedModel, scripted } from '../../functions/core/testing/scripted-model.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import {
  asTask,
  clientFor,
  eventually,
  startStack,
  whereTaskStands,
} from '../support/local-stack.js';

let counter = 0;
const userMessage = (text: string, taskId = '', contextId = ''): Message =>
  userTextMessage({ messageId: `e2e-${Date.now()}-${++counter}`, text, taskId, contextId });

const send = (message: Message) => ({
  tenant: '',
  message,
  configuration: undefined,
  metadata: undefined,
});

describe('the local stack, through the real A2A client', () => {
  const model = new ScriptedModel();
  /** While a test sets it, what answers instead of the script. */
  let answering: ((request: ModelRequest) => ModelResponse) | undefined;
  const stackModel: Model = {
    invoke: async (request) => answering?.(request) ?? model.invoke(request),
  };
  let stack: LocalStack;

  beforeAll(async () => {
    stack = await startStack({
      model: stackModel,
      env: { TINY_HARNESS_TURNS_PER_GENERATION: '3' },
    });
  });
  afterAll(async () => {
    await stack?.close();
  });
  afterEach(() => {
    answering = undefined;
  });

  const executionsOf = async (taskId: string) => {
    const { executions } = await stack.engine.listExecutions({
      stateMachineArn: stack.stateMachineArn,
    });
    return (executions ?? []).filter((execution) => execution.name?.startsWith(taskId));
  };

  it('parks a conversation in INPUT_REQUIRED awaiting-next-message, and the next message resumes the same execution', async () => {
    model.push({ text: 'Hello Alice.' }, { text: 'Noted.' });
    const alice = await clientFor(stack, 'alice');

    const parked = asTask(await alice.sendMessage(send(userMessage('hi'))));
    expect(parked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(parked.metadata?.[STATUS_METADATA_KEY]).toEqual({ sub_state: 'awaiting-next-message' });
    expect(parked.status?.message?.parts[0]?.content).toEqual({
      $case: 'text',
      value: 'Hello Alice.',
    });
    const record = await stack.runtime.loop.store.get(parked.id);
    expect(record?.loop.parkToken).toEqual(expect.any(String));

    const resumed = asTask(
      await alice.sendMessage(send(userMessage('one more thing', parked.id, parked.contextId)))
    );
    expect(resumed.id).toBe(parked.id);
    expect(resumed.status?.message?.parts[0]?.content).toEqual({ $case: 'text', value: 'Noted.' });
    const executions = await executionsOf(parked.id);
    expect(executions).toHaveLength(1);
    expect(executions[0]?.status).toBe('RUNNING');
  });

  it('takes the first message again as a duplicate: no second turn, the task as it was', async () => {
    model.push({ text: 'Hello once.' });
    const alice = await clientFor(stack, 'alice');
    const first = userMessage('hello');
    const parked = asTask(await alice.sendMessage(send(first)));
    expect(parked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const calls = model.requests.length;
    const before = await stack.runtime.loop.store.get(parked.id);

    // A client retrying its first message names the task it now knows: the same message id.
    const again = asTask(
      await alice.sendMessage(send({ ...first, taskId: parked.id, contextId: parked.contextId }))
    );
    expect(again.id).toBe(parked.id);
    expect(again.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(model.requests.length).toBe(calls);
    const after = await stack.runtime.loop.store.get(parked.id);
    expect(after?.version).toBe(before?.version);
    expect(after?.loop.parkToken).toBe(before?.loop.parkToken);
  });

  it('leaves a parked task parked with no model call when a stranger writes to it', async () => {
    model.push({ text: 'Hi.' });
    const alice = await clientFor(stack, 'alice');
    const mallory = await clientFor(stack, 'mallory');
    const parked = asTask(await alice.sendMessage(send(userMessage('hi'))));
    const calls = model.requests.length;
    const before = await stack.runtime.loop.store.get(parked.id);

    await expect(mallory.sendMessage(send(userMessage('let me in', parked.id)))).rejects.toThrow(
      /not found/i
    );

    const after = await stack.runtime.loop.store.get(parked.id);
    expect(after?.task).toEqual(before?.task);
    expect(after?.loop.parkToken).toBe(before?.loop.parkToken);
    expect(model.requests.length).toBe(calls);
    await expect(mallory.getTask({ tenant: '', id: parked.id })).rejects.toThrow(/not found/i);
  });

  it('parks with awaiting-answer on ask_participant: GetTask, the store and the event log all show it', async () => {
    model.push({
      toolCalls: [
        {
          name: 'ask_participant',
          arguments: { participant_id: 'alice', question: 'Which city?' },
        },
      ],
    });
    const alice = await clientFor(stack, 'alice');

    const asked = asTask(await alice.sendMessage(send(userMessage('book a trip'))));
    const fetched = await alice.getTask({ tenant: '', id: asked.id });
    expect(fetched.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(fetched.metadata?.[STATUS_METADATA_KEY]).toEqual({ sub_state: 'awaiting-answer' });
    const stored = await stack.runtime.loop.store.get(asked.id);
    expect(stored?.task.metadata?.[STATUS_METADATA_KEY]).toEqual({ sub_state: 'awaiting-answer' });
    const last = (await stack.runtime.loop.events.read(asked.id)).at(-1)?.event;
    expect(
      last?.kind === 'status_update' && last.statusUpdate.metadata?.[STATUS_METADATA_KEY]
    ).toEqual({
      sub_state: 'awaiting-answer',
    });
  });

  it('completes a delegated child, whose end reaches its parent through the stream', async () => {
    // The parent's next turn and the child's first run at once, and the child's end may reach
    // the parent before that turn reads its inbox (one turn fewer): each answer says what its
    // caller is at, whatever the order of the calls.
    let parentKey: string | undefined;
    const calls: string[] = [];
    answering = (request) => {
      parentKey ??= request.cacheKey;
      const read = JSON.stringify(request.input);
      const reply =
        calls.length === 0
          ? {
              toolCalls: [
                { name: 'spawn_subtask', arguments: { name: 'Research', goal: 'Find sources' } },
              ],
            }
          : request.cacheKey !== parentKey
            ? { text: 'Three sources found.' }
            : {
                text: read.includes('Three sources found.')
                  ? 'Report written.'
                  : 'Waiting for research.',
              };
      calls.push(request.cacheKey);
      return scripted(reply, calls.length - 1);
    };
    const alice = await clientFor(stack, 'alice');
    const parent = asTask(await alice.sendMessage(send(userMessage('write a report'))));

    const row = await eventually(async () => {
      const task = await alice.getTask({ tenant: '', id: parent.id });
      const extension = task.metadata?.[TASK_METADATA_KEY] as {
        sub_tasks: Array<{ task_id: string; state: string }>;
      };
      const child = extension.sub_tasks[0];
      return child?.state === 'TASK_STATE_COMPLETED' && task.status?.message !== undefined
        ? child
        : undefined;
    });
    const child = await stack.runtime.loop.store.get(row.task_id);
    expect(child?.task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const woken = await eventually(
      async () => {
        const task = await alice.getTask({ tenant: '', id: parent.id });
        const text = task.status?.message?.parts[0]?.content;
        return text?.$case === 'text' && text.value === 'Report written.' ? task : undefined;
      },
      undefined,
      async () => ({
        parent: await whereTaskStands(stack, parent.id),
        child: await whereTaskStands(stack, row.task_id),
        modelCalls: calls,
        streamRecordsFailed: [...stack.pollers.values()].map((poller) => poller.failed.length),
      })
    );
    expect(woken.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const childExecutions = await executionsOf(row.task_id);
    expect(childExecutions.map((execution) => execution.status)).toEqual(['SUCCEEDED']);
  });

  it('renews into a new generation with a low threshold, losing no message or history entry', async () => {
    const plan = (i: number) => ({
      toolCalls: [
        { name: 'create_plan', arguments: { steps: [{ name: `Step ${i}`, description: 'd' }] } },
      ],
    });
    model.push(plan(1), plan(2), plan(3), plan(4), { text: 'Planned four times.' });
    const alice = await clientFor(stack, 'alice');

    const task = asTask(await alice.sendMessage(send(userMessage('plan it'))));
    expect(task.status?.message?.parts[0]?.content).toEqual({
      $case: 'text',
      value: 'Planned four times.',
    });
    const executions = await executionsOf(task.id);
    expect(executions.length).toBe(2);
    const history = await stack.runtime.loop.store.readHistory(task.id);
    expect(history.map((entry) => entry.seq)).toEqual(history.map((_, index) => index + 1));
    expect(history.filter((entry) => entry.kind === 'tool_result')).toHaveLength(4);
  });

  it('persists and emits a terminal state before the execution ends, and keeps every state payload small', async () => {
    model.push({ text: 'Done here.' });
    const alice = await clientFor(stack, 'alice');
    const task = asTask(await alice.sendMessage(send(userMessage('hi'))));
    const control: Message = {
      ...userMessage('', task.id, task.contextId),
      parts: [
        {
          content: { $case: 'data', value: { kind: 'control', payload: { action: 'complete' } } },
          metadata: undefined,
          filename: '',
          mediaType: 'application/vnd.tiny-harness.event+json',
        },
      ],
    };

    const completed = asTask(await alice.sendMessage(send(control)));
    expect(completed.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const [execution] = await executionsOf(task.id);
    const finished = await eventually(async () => {
      const described = await stack.engine.describeExecution({
        executionArn: execution?.executionArn ?? '',
      });
      return described.status === 'SUCCEEDED' ? described : undefined;
    });
    const events = await stack.runtime.loop.events.read(task.id);
    const last = events.at(-1)?.event;
    expect(last?.kind === 'status_update' && last.statusUpdate.status?.state).toBe(
      TaskState.TASK_STATE_COMPLETED
    );
    expect(finished.stopDate).toBeDefined();

    const { events: history } = await stack.engine.getExecutionHistory({
      executionArn: execution?.executionArn ?? '',
    });
    for (const event of history ?? []) {
      const payloads = [
        event.stateEnteredEventDetails?.input,
        event.stateExitedEventDetails?.output,
        event.lambdaFunctionScheduledEventDetails?.input,
      ];
      for (const payload of payloads) expect((payload ?? '').length).toBeLessThan(8 * 1024);
    }
  });
});
