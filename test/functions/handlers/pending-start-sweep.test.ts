import { describe, expect, it } from 'vitest';
import { cancelTask } from '../../../functions/core/intake/control.js';
import { startTask } from '../../../functions/core/intake/start-task.js';
import type { TurnRef } from '../../../functions/core/loop/route.schema.js';
import { createReconcileHandler } from '../../../functions/handlers/reconcile.js';
import { createTurnStepHandler } from '../../../functions/handlers/turn-step-handler.js';
import { PENDING_START_GRACE_MS } from '../../../functions/service/pending-start-schedule.js';
import { ALICE } from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';
import { inMemoryRuntime, lambdaContext } from '../support.js';

/** The EventBridge schedule's event, at `time`. */
const scheduled = (time: Date) => ({
  version: '0',
  id: '0d9b5a1e-7f3c-4d1e-9b1a-3c2d1e0f9a8b',
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: '000000000000',
  time: time.toISOString(),
  region: 'us-east-1',
  resources: ['arn:aws:events:us-east-1:000000000000:rule/PendingStartSweep'],
  detail: {},
});

/**
 * A conversation Alice started whose starter died after its commit: the task is in the store,
 * pending its generation-1 start, and nothing started it.
 */
const lostStart = async () => {
  const parts = inMemoryRuntime({ replies: [{ text: 'Hello Alice.' }] });
  const { record } = await startTask(parts.harness.deps, {
    message: textMessage('hi'),
    sender: ALICE,
  });
  const taskId = record.task.id;
  const since = new Date(record.loop.startPendingSince ?? Number.NaN);
  const reconcile = createReconcileHandler(() => parts.runtime);
  const sweepAt = (offsetMs: number) =>
    reconcile(
      scheduled(new Date(since.getTime() + offsetMs)),
      lambdaContext('ReconcileFunction')
    ) as Promise<Record<string, unknown>>;
  const load = async () => (await parts.harness.store.get(taskId))!;
  return { ...parts, taskId, since, sweepAt, load };
};

describe('the pending-start sweep', () => {
  it('a new task is pending its start from its creation until its first turn writes', async () => {
    const { since, load, taskId, runtime } = await lostStart();
    expect(Number.isNaN(since.getTime())).toBe(false);

    const ref: TurnRef = { taskId, generation: 1, turn: 0 };
    await createTurnStepHandler(() => runtime)(
      { op: 'turn', ref },
      lambdaContext('TurnStepFunction')
    );

    expect((await load()).loop.startPendingSince).toBeNull();
  });

  it('starts a generation pending past its grace, once, and leaves one within it alone', async () => {
    const { sweepAt, load, taskId, executions, logs } = await lostStart();
    executions.running = false;

    expect(await sweepAt(PENDING_START_GRACE_MS - 1_000)).toEqual({
      action: 'swept',
      started: 0,
      running: 0,
    });
    expect(executions.started).toEqual([]);

    expect(await sweepAt(PENDING_START_GRACE_MS + 1_000)).toEqual({
      action: 'swept',
      started: 1,
      running: 0,
    });
    expect(executions.started).toEqual([{ taskId, generation: 1, turn: 0 }]);
    expect((await load()).loop.startPendingSince).toBeNull();
    expect(logs()).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: 'pending generation started by the sweep',
        taskId,
        generation: 1,
      })
    );

    await sweepAt(PENDING_START_GRACE_MS * 3);
    expect(executions.started).toHaveLength(1);
  });

  it('leaves a running execution alone and clears its pending start', async () => {
    const { sweepAt, load, executions } = await lostStart();
    executions.running = true;

    expect(await sweepAt(PENDING_START_GRACE_MS * 2)).toEqual({
      action: 'swept',
      started: 0,
      running: 1,
    });

    expect(executions.started).toEqual([]);
    expect((await load()).loop.startPendingSince).toBeNull();
  });

  it('does not start an ended task', async () => {
    const { sweepAt, taskId, harness, executions } = await lostStart();
    executions.running = false;
    await cancelTask(harness.deps, { taskId, requestedBy: ALICE });

    expect(await sweepAt(PENDING_START_GRACE_MS * 2)).toMatchObject({ started: 0, running: 0 });
    expect(executions.started).toEqual([]);
  });

  it('refuses an event that is neither an execution end nor the schedule, starting nothing', async () => {
    const { since, runtime, executions } = await lostStart();
    executions.running = false;
    const reconcile = createReconcileHandler(() => runtime);
    const late = new Date(since.getTime() + PENDING_START_GRACE_MS * 2);

    await expect(
      reconcile({ ...scheduled(late), time: 'yesterday' }, lambdaContext('ReconcileFunction'))
    ).rejects.toThrow();
    await expect(
      reconcile({ ...scheduled(late), source: 'aws.states' }, lambdaContext('ReconcileFunction'))
    ).rejects.toThrow();
    expect(executions.started).toEqual([]);
  });
});
