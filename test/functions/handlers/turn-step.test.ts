import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { executionName } from '../../../functions/adapters/stepfunctions/turn-executions.js';
import type { Runtime } from '../../../functions/composition/runtime.js';
import { ConcurrencyConflictError } from '../../../functions/core/errors.js';
import { receiveMessage } from '../../../functions/core/intake/receive-message.js';
import { startTask } from '../../../functions/core/intake/start-task.js';
import {
  RouteSchema,
  type StepResult,
  type TurnRef,
  TurnRefSchema,
} from '../../../functions/core/loop/route.schema.js';
import type { TaskStore } from '../../../functions/core/ports/task-store.js';
import type { ScriptedReply } from '../../../functions/core/testing/scripted-model.js';
import {
  createTurnStepHandler,
  failureReason,
} from '../../../functions/handlers/turn-step-handler.js';
import { ALICE, STATES, view } from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';
import { inMemoryRuntime, lambdaContext } from '../support.js';

const StepResultSchema = z.strictObject({ ref: TurnRefSchema, route: RouteSchema });

const invoker = (runtime: Runtime) => {
  const handler = createTurnStepHandler(() => runtime);
  return (event: unknown) => handler(event, lambdaContext('TurnStepFunction')) as Promise<unknown>;
};

/** A runtime with one conversation started by Alice ("hi"), its execution not yet run. */
const withTask = async (replies: ScriptedReply[] = [{ text: 'Hello Alice.' }]) => {
  const parts = inMemoryRuntime({ replies });
  const { record } = await startTask(parts.harness.deps, {
    message: textMessage('hi'),
    sender: ALICE,
  });
  const ref: TurnRef = { taskId: record.task.id, generation: 1, turn: 0 };
  return { ...parts, invoke: invoker(parts.runtime), taskId: record.task.id, ref };
};

/** Runs one state and checks its output is the small routing result the state machine expects. */
const step = async (invoke: (event: unknown) => Promise<unknown>, event: unknown) =>
  StepResultSchema.parse(await invoke(event)) satisfies StepResult;

/** Takes the first turn; the conversation is then to park. */
const runToPark = (invoke: (event: unknown) => Promise<unknown>, ref: TurnRef) =>
  step(invoke, { op: 'turn', ref });

const snapshot = async (
  harness: ReturnType<typeof inMemoryRuntime>['harness'],
  taskId: string
) => ({
  record: await harness.store.get(taskId),
  events: await harness.events.read(taskId),
  inbox: await harness.store.readInbox(taskId),
  history: await harness.store.readHistory(taskId),
});

describe('the turn-step handler', () => {
  it.each([
    ['an unknown op', { op: 'explode', ref: { taskId: 'x', generation: 1, turn: 0 } }],
    ['an extra key', { op: 'turn', ref: { taskId: 'x', generation: 1, turn: 0 }, extra: 1 }],
    ['a park without a token', { op: 'park', ref: { taskId: 'x', generation: 1, turn: 0 } }],
    ['generation 0', { op: 'turn', ref: { taskId: 'x', generation: 0, turn: 0 } }],
    ['a transcript instead of a reference', { op: 'turn', ref: { history: ['hi'] } }],
  ])('rejects %s before any operation runs, and writes nothing', async (_, event) => {
    const { invoke, harness, taskId, model, executions } = await withTask();
    const before = await snapshot(harness, taskId);
    const bad = JSON.parse(JSON.stringify(event).replaceAll('"x"', JSON.stringify(taskId)));

    await expect(invoke(bad)).rejects.toMatchObject({ name: 'ZodError' });

    expect(await snapshot(harness, taskId)).toEqual(before);
    expect(model.requests).toHaveLength(0);
    expect(executions.calls).toEqual([]);
  });

  it('answers a turn with a { ref, route } result that parses as a route: a reply without tool calls ends the turn', async () => {
    const { invoke, ref, harness, taskId } = await withTask();

    const finished = await step(invoke, { op: 'turn', ref });
    const turned = (await harness.store.get(taskId))!;
    expect(finished).toEqual({
      ref: { ...ref, turn: 1 },
      route: {
        next: 'park',
        subState: 'awaiting-next-message',
        // Nothing waits: the park may commit on the task as the turn left it.
        decidedOn: { version: turned.version, inboxCount: turned.inboxCount },
      },
    });
    // References only: nothing of the transcript travels between states.
    expect(JSON.stringify(finished)).not.toContain('Hello Alice.');
  });

  it('routes a model tool call to execute_tools with one call reference per call', async () => {
    const { invoke, ref } = await withTask([
      {
        toolCalls: [
          {
            id: 'c1',
            name: 'create_plan',
            arguments: { steps: [{ name: 'Step A', description: 'Do A' }] },
          },
        ],
      },
    ]);
    const answered = await step(invoke, { op: 'turn', ref });
    expect(answered.route).toEqual({
      next: 'execute_tools',
      calls: [{ ref: { ...ref, turn: 1 }, callId: 'c1' }],
    });
    expect(await invoke({ op: 'execute_tool', call: { ref: answered.ref, callId: 'c1' } })).toEqual(
      {}
    );
  });

  it('parks: stores the token on the task and resumes nothing when no work raced in', async () => {
    const { invoke, harness, taskId, executions, ref } = await withTask();
    const finished = await runToPark(invoke, ref);

    const parked = await invoke({
      op: 'park',
      ref: finished.ref,
      subState: 'awaiting-next-message',
      token: 'token-park-1',
    });

    expect(parked).toEqual({ wakeNow: false });
    const record = await harness.task(taskId);
    expect(record.loop.parkToken).toBe('token-park-1');
    expect(view(record).state).toBe(STATES.INPUT_REQUIRED);
    expect(executions.calls).toEqual([]);
  });

  it('parks and at once resumes the execution with its own token when a message was enqueued before the park', async () => {
    const { invoke, harness, taskId, executions, ref } = await withTask();
    const finished = await runToPark(invoke, ref);
    // Alice writes while the turn is ending: nobody holds a token yet, so nobody wakes the task;
    // the running execution is to take it.
    const receipt = await receiveMessage(harness.deps, {
      taskId,
      message: textMessage('one more thing'),
      sender: ALICE,
    });
    expect(receipt).toMatchObject({
      accepted: true,
      wake: { action: 'ensure-running', taskId, generation: 1 },
    });

    const parked = await invoke({
      op: 'park',
      ref: finished.ref,
      subState: 'awaiting-next-message',
      token: 'token-park-2',
    });

    expect(parked).toEqual({ wakeNow: true });
    expect(executions.calls).toEqual([{ method: 'resume', token: 'token-park-2' }]);
    // The park claimed its token back: no second waker can resume it again.
    expect((await harness.task(taskId)).loop.parkToken).toBeNull();
  });

  it("renews: starts the next generation's execution (<taskId>-g2) and routes this one to superseded", async () => {
    const { invoke, harness, taskId, executions, ref } = await withTask();

    const renewed = await step(invoke, { op: 'renew', ref });

    expect(renewed).toEqual({
      ref: { taskId, generation: 2, turn: 0 },
      route: { next: 'superseded' },
    });
    expect(executions.started).toEqual([{ taskId, generation: 2, turn: 0 }]);
    const started = executions.started[0]!;
    expect(executionName(started.taskId, started.generation)).toBe(`${taskId}-g2`);
    expect((await harness.task(taskId)).loop.generation).toBe(2);
    // The old generation's next state sees it is superseded.
    expect((await step(invoke, { op: 'turn', ref })).route).toEqual({
      next: 'superseded',
    });
  });

  it('fails the task with the readable reason taken from the Step Functions Cause', async () => {
    const { invoke, harness, taskId, ref } = await withTask();
    const cause = JSON.stringify({
      errorType: 'X',
      errorMessage: 'boom',
      trace: ['X: boom', '    at handler (index.js:1:1)'],
    });

    const failed = await step(invoke, {
      op: 'fail',
      ref,
      error: { Error: 'X', Cause: cause },
    });

    expect(failed.route).toEqual({ next: 'end', state: STATES.FAILED });
    const record = view(await harness.task(taskId));
    expect(record.state).toBe(STATES.FAILED);
    expect(record.statusText).toBe('X: boom');
    expect(record.statusText).not.toContain('errorType');
  });

  it('reads a Cause that is not the Lambda error JSON as it is', () => {
    expect(failureReason({ Error: 'States.Timeout', Cause: 'the task timed out' })).toBe(
      'States.Timeout: the task timed out'
    );
    expect(failureReason({})).toBe('the turn failed');
  });

  it('logs every line as JSON with the task id, the execution name and the op', async () => {
    const { invoke, ref, logs, taskId, lines } = await withTask([
      { toolCalls: [{ id: 'c1', name: 'create_plan', arguments: { steps: [] } }] },
    ]);
    const answered = await step(invoke, { op: 'turn', ref });
    await invoke({ op: 'execute_tool', call: { ref: answered.ref, callId: 'c1' } });

    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(logs()).toEqual([
      expect.objectContaining({
        level: 'info',
        taskId,
        execution: `${taskId}-g1`,
        op: 'turn',
        route: 'execute_tools',
      }),
      expect.objectContaining({
        taskId,
        execution: `${taskId}-g1`,
        turn: 1,
        op: 'execute_tool',
      }),
    ]);
  });

  it("rethrows a core error with its name (ConcurrencyConflictError), so Step Functions' Retry can match it, and logs it", async () => {
    const parts = await withTask();
    const store = parts.harness.store;
    const conflicting = new Proxy(store, {
      get(target, property) {
        if (property === 'commit') {
          return async () => {
            throw new ConcurrencyConflictError('the record moved on');
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as TaskStore;
    const runtime: Runtime = {
      ...parts.runtime,
      loop: { ...parts.runtime.loop, store: conflicting },
    };

    const error = await invoker(runtime)({ op: 'turn', ref: parts.ref }).catch((e) => e);

    expect(error).toBeInstanceOf(ConcurrencyConflictError);
    expect((error as Error).name).toBe('ConcurrencyConflictError');
    expect(parts.logs().at(-1)).toMatchObject({
      level: 'error',
      taskId: parts.taskId,
      execution: `${parts.taskId}-g1`,
      op: 'turn',
      errorName: 'ConcurrencyConflictError',
      code: 'store.conflict',
    });
  });

  it('rethrows a DynamoDB throttle as TransientServiceError (the name the state machine retries), keeping the original as its cause', async () => {
    const parts = await withTask();
    const throttle = new ProvisionedThroughputExceededException({
      $metadata: { httpStatusCode: 400 },
      message: 'The level of configured provisioned throughput for the table was exceeded.',
    });
    const store = new Proxy(parts.harness.store, {
      get(target, property) {
        if (property === 'get') {
          return async () => {
            throw throttle;
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as TaskStore;
    const runtime: Runtime = { ...parts.runtime, loop: { ...parts.runtime.loop, store } };

    const error = (await invoker(runtime)({ op: 'turn', ref: parts.ref }).catch((e) => e)) as Error;

    expect(error.name).toBe('TransientServiceError');
    expect(error.message).toContain('ProvisionedThroughputExceededException');
    expect(error.cause).toBe(throttle);
    expect(parts.logs().at(-1)).toMatchObject({
      level: 'error',
      errorName: 'ProvisionedThroughputExceededException',
    });
  });

  it('reports each model call it makes to the metrics (tokens and cost), and nothing for a re-run turn state that finds the turn taken', async () => {
    const parts = inMemoryRuntime({ replies: [{ text: 'Hello Alice.' }] });
    parts.runtime.loop.config = {
      ...parts.runtime.loop.config,
      prices: { scripted: { input: 2, cachedInput: 0.5, output: 10 } },
    };
    const { record } = await startTask(parts.harness.deps, {
      message: textMessage('hi'),
      sender: ALICE,
    });
    const calls: unknown[] = [];
    const handler = createTurnStepHandler(
      () => parts.runtime,
      () => ({ modelCall: (call) => calls.push(call) })
    );
    const invoke = (event: unknown) =>
      handler(event, lambdaContext('TurnStepFunction')) as Promise<StepResult>;
    const ref: TurnRef = { taskId: record.task.id, generation: 1, turn: 0 };

    await invoke({ op: 'turn', ref });
    await invoke({ op: 'turn', ref });

    expect(parts.model.requests).toHaveLength(1);
    // The scripted model reports 100 tokens in and 10 out, as model "scripted".
    expect(calls).toEqual([
      {
        usage: { inputTokens: 100, cachedInputTokens: 0, outputTokens: 10 },
        costUsd: (100 * 2 + 10 * 10) / 1_000_000,
      },
    ]);
  });
});
