import { describe, expect, it } from 'vitest';
import { executionName } from '../../../functions/adapters/stepfunctions/turn-executions.js';
import { receiveMessage } from '../../../functions/core/intake/receive-message.js';
import { reviveTask } from '../../../functions/core/intake/revive.js';
import { startTask } from '../../../functions/core/intake/start-task.js';
import type { TurnRef } from '../../../functions/core/loop/route.schema.js';
import { createReconcileHandler } from '../../../functions/handlers/reconcile.js';
import { createTurnStepHandler } from '../../../functions/handlers/turn-step-handler.js';
import { ALICE, STATES, view } from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';
import { inMemoryRuntime, lambdaContext, STATE_MACHINE_ARN } from '../support.js';

type Status = 'FAILED' | 'TIMED_OUT' | 'ABORTED';

/** The EventBridge event of the rule on the turn state machine, for one execution. */
const statusChange = (
  name: string,
  status: Status,
  failure: { error?: string; cause?: string } = {}
) => ({
  version: '0',
  id: 'e6f0cb1e-5f27-4a4b-9d0e-2b1b5c3f0e11',
  'detail-type': 'Step Functions Execution Status Change',
  source: 'aws.states',
  account: '000000000000',
  time: '2026-12-03T07:00:00Z',
  region: 'us-east-1',
  resources: [`${STATE_MACHINE_ARN.replace(':stateMachine:', ':execution:')}:${name}`],
  detail: {
    executionArn: `${STATE_MACHINE_ARN.replace(':stateMachine:', ':execution:')}:${name}`,
    stateMachineArn: STATE_MACHINE_ARN,
    name,
    status,
    startDate: 1_796_281_200_000,
    stopDate: 1_796_281_260_000,
    input: '{}',
    output: null,
    error: failure.error ?? null,
    cause: failure.cause ?? null,
  },
});

/**
 * A conversation Alice started, whose generation-1 execution has taken its first turn (the model
 * asked for a plan) and is in the middle of it (WORKING, the tool call not run) when the
 * execution ends.
 */
const midTurn = async () => {
  const plan = { steps: [{ name: 'A', description: 'a' }] };
  const parts = inMemoryRuntime({
    replies: [{ toolCalls: [{ name: 'create_plan', arguments: plan }] }, { text: 'Hello Alice.' }],
  });
  const { record } = await startTask(parts.harness.deps, {
    message: textMessage('hi'),
    sender: ALICE,
  });
  const taskId = record.task.id;
  const ref: TurnRef = { taskId, generation: 1, turn: 0 };
  const turnStep = createTurnStepHandler(() => parts.runtime);
  await turnStep({ op: 'turn', ref }, lambdaContext('TurnStepFunction'));
  const reconcile = createReconcileHandler(() => parts.runtime);
  const deliver = (event: unknown) =>
    reconcile(event, lambdaContext('ReconcileFunction')) as Promise<Record<string, unknown>>;
  const load = async () => (await parts.harness.store.get(taskId))!;
  expect(view(await load()).state).toBe(STATES.WORKING);
  return { ...parts, taskId, deliver, load, name: executionName(taskId, 1) };
};

describe('the reconciler handler', () => {
  it.each<[Status, { error?: string; cause?: string }, RegExp]>([
    [
      'FAILED',
      { error: 'States.Runtime', cause: "The JSONPath '$.route.next' could not be found" },
      /-g1 failed before the task ended \(States\.Runtime: The JSONPath/,
    ],
    ['TIMED_OUT', {}, /-g1 timed out before the task ended\.$/],
    [
      'ABORTED',
      { cause: 'stopped from the console' },
      /-g1 was stopped before the task ended \(stopped from the console\)/,
    ],
  ])(
    '%s with nothing waiting: fails the task with a readable reason, persisted and emitted',
    async (status, failure, reason) => {
      const { deliver, load, name, taskId, harness, executions } = await midTurn();

      const result = await deliver(statusChange(name, status, failure));

      expect(result).toMatchObject({ action: 'failed' });
      const after = view(await load());
      expect(after.state).toBe(STATES.FAILED);
      expect(after.statusText).toMatch(reason);
      expect(after.statusText).toContain(name);
      const events = await harness.events.read(taskId);
      expect(events.at(-1)?.event).toMatchObject({ kind: 'status_update' });
      expect(executions.started).toEqual([]);
    }
  );

  it.each<Status>(['FAILED', 'TIMED_OUT', 'ABORTED'])(
    '%s with a message waiting: a fresh generation picks the task up',
    async (status) => {
      const { deliver, load, name, taskId, harness, executions } = await midTurn();
      await receiveMessage(harness.deps, {
        taskId,
        message: textMessage('are you there?'),
        sender: ALICE,
      });

      const result = await deliver(statusChange(name, status));

      const record = await load();
      expect(record.loop.generation).toBe(2);
      expect(view(record).state).toBe(STATES.WORKING);
      expect(executions.started).toEqual([{ taskId, generation: 2, turn: 0 }]);
      expect(result).toEqual({ action: 'restarted', ref: { taskId, generation: 2, turn: 0 } });
    }
  );

  it("a child's note waiting restarts the task too", async () => {
    const { deliver, load, name, taskId, harness, executions } = await midTurn();
    // A child's news that reached the inbox (what the stand-in commits).
    await harness.store.commit({
      kind: 'guarded',
      taskId,
      unparked: false,
      enqueue: [
        {
          kind: 'note',
          id: 'note-child-1',
          fromTaskId: 'child-1',
          text: 'Sub-task child-1 is COMPLETED: done',
          result: true,
        },
      ],
    });

    await deliver(statusChange(name, 'FAILED'));

    expect((await load()).loop.generation).toBe(2);
    expect(executions.started).toEqual([{ taskId, generation: 2, turn: 0 }]);
  });

  it('is idempotent: a redelivered failure changes nothing more', async () => {
    const { deliver, load, name, taskId, harness } = await midTurn();
    await deliver(statusChange(name, 'FAILED'));
    const record = await load();
    const events = await harness.events.read(taskId);

    const again = await deliver(statusChange(name, 'FAILED'));

    expect(again).toEqual({ action: 'ignored', why: 'task ended' });
    expect(await load()).toEqual(record);
    expect(await harness.events.read(taskId)).toEqual(events);
  });

  it('is idempotent: a redelivered restart starts the same generation again (a no-op for Step Functions), never a third one', async () => {
    const { deliver, load, name, taskId, harness, executions } = await midTurn();
    await receiveMessage(harness.deps, {
      taskId,
      message: textMessage('still there?'),
      sender: ALICE,
    });
    await deliver(statusChange(name, 'TIMED_OUT'));
    const record = await load();

    await deliver(statusChange(name, 'TIMED_OUT'));

    expect(await load()).toEqual(record);
    expect(executions.started).toEqual([
      { taskId, generation: 2, turn: 0 },
      { taskId, generation: 2, turn: 0 },
    ]);
  });

  it('leaves a task alone whose generation has moved on past the one after the ended one', async () => {
    const { deliver, load, name, taskId, harness, executions } = await midTurn();
    // Taken over twice: generation 3 owns the task now.
    await reviveTask(harness.deps, taskId, 1);
    await reviveTask(harness.deps, taskId, 2);
    const before = await load();
    expect(before.loop.generation).toBe(3);

    const result = await deliver(statusChange(name, 'ABORTED'));

    expect(result).toEqual({ action: 'ignored', why: 'superseded' });
    expect(await load()).toEqual(before);
    expect(executions.calls).toEqual([]);
  });

  it('leaves an ended task alone', async () => {
    const { deliver, load, name } = await midTurn();
    expect(await deliver(statusChange(name, 'FAILED'))).toMatchObject({ action: 'failed' });
    const before = await load();

    expect(await deliver(statusChange(name, 'ABORTED'))).toEqual({
      action: 'ignored',
      why: 'task ended',
    });
    expect(await load()).toEqual(before);
  });

  it('ignores an unknown task and an execution name that is not <taskId>-g<generation>', async () => {
    const { deliver, executions } = await midTurn();

    expect(await deliver(statusChange('task-nobody-g3', 'FAILED'))).toEqual({
      action: 'ignored',
      why: 'unknown task',
    });
    expect(await deliver(statusChange('some-other-execution', 'FAILED'))).toEqual({
      action: 'ignored',
      why: 'not a turn execution',
    });
    expect(executions.calls).toEqual([]);
  });

  it('refuses an event that is not an execution status change it handles, before reading anything', async () => {
    const { deliver, name } = await midTurn();
    const succeeded = statusChange(name, 'FAILED');
    (succeeded.detail as { status: string }).status = 'SUCCEEDED';

    await expect(deliver(succeeded)).rejects.toMatchObject({ name: 'ZodError' });
    await expect(
      deliver({ ...statusChange(name, 'FAILED'), source: 'aws.lambda' })
    ).rejects.toMatchObject({
      name: 'ZodError',
    });
  });
});
