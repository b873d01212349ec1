import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { receiveMessage } from '../../../functions/core/intake/receive-message.js';
import { startTask } from '../../../functions/core/intake/start-task.js';
import { drain } from '../../../functions/core/loop/drain.js';
import { executeTool } from '../../../functions/core/loop/execute-tool.js';
import { finish } from '../../../functions/core/loop/finish.js';
import { invokeModel } from '../../../functions/core/loop/invoke-model.js';
import { park } from '../../../functions/core/loop/park.js';
import type { TurnRef } from '../../../functions/core/loop/route.schema.js';
import { StaticToolRunner } from '../../../functions/core/testing/static-tool-runner.js';
import { ALICE, harnessWith } from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';

const plan = (...names: string[]) => ({
  name: 'create_plan',
  arguments: { steps: names.map((name) => ({ name, description: name })) },
});

/**
 * An execution may re-enter the loop at a state it has passed already: a restart resumes it from
 * its last checkpoint, a retry re-runs a state. Each state then goes on from where the task
 * stands, and never repeats what it committed.
 */
describe('re-entering the loop at an earlier state', () => {
  it('a model state of a turn already taken calls no model and goes on from the task', async () => {
    const { harness, model } = harnessWith([{ toolCalls: [plan('A')] }, { text: 'Planned.' }]);
    const task = await harness.start(textMessage('go'), ALICE);
    const taskId = task.task.id;
    const calls = model.requests.length;

    const first: TurnRef = { taskId, generation: 1, turn: 0 };
    const replayed = await invokeModel(harness.deps, first);

    expect(model.requests).toHaveLength(calls);
    expect(replayed).toEqual({ ref: { ...first, turn: 2 }, route: { next: 'drain' } });
    expect((await harness.task(taskId)).loop.turn).toBe(2);
  });

  it('a drain re-entered between the calls of a turn runs the calls not applied, folding nothing between', async () => {
    const { harness } = harnessWith([{ toolCalls: [plan('A'), plan('B')] }, { text: 'Planned.' }]);
    const { deps } = harness;
    const { record } = await startTask(deps, { message: textMessage('go'), sender: ALICE });
    const taskId = record.task.id;
    const drained = await drain(deps, { taskId, generation: 1, turn: 0 });
    const called = await invokeModel(deps, drained.ref);
    if (called.route.next !== 'execute_tools') throw new Error('expected calls');
    const [firstCall, secondCall] = called.route.calls;
    await executeTool(deps, firstCall!);
    // A message arrives; then the execution comes back at its drain.
    await receiveMessage(deps, { taskId, message: textMessage('hurry'), sender: ALICE });

    const resumed = await drain(deps, { taskId, generation: 1, turn: 0 });

    expect(resumed).toEqual({
      ref: { taskId, generation: 1, turn: 1 },
      route: { next: 'execute_tools', calls: [secondCall] },
    });
    expect((await deps.store.readInbox(taskId)).map((item) => item.kind)).toEqual(['message']);
  });

  it('a finish re-entered while the turn is not over goes on to the drain, without parking', async () => {
    const { harness } = harnessWith([{ toolCalls: [plan('A')] }]);
    const { deps } = harness;
    const { record } = await startTask(deps, { message: textMessage('go'), sender: ALICE });
    const taskId = record.task.id;
    const drained = await drain(deps, { taskId, generation: 1, turn: 0 });
    const before = await harness.task(taskId);

    const finished = await finish(deps, drained.ref);

    expect(finished.route).toEqual({ next: 'drain' });
    expect(await harness.task(taskId)).toEqual(before);
  });

  it('a park re-entered after its wake was read wakes at once: the turn it woke for is not over', async () => {
    const { harness } = harnessWith([{ text: 'Hello.' }, { text: 'Again.' }]);
    const { deps } = harness;
    const task = await harness.start(textMessage('hi'), ALICE);
    const taskId = task.task.id;
    const parkedAt = (await harness.task(taskId)).loop;
    // The wake's message is taken and read (drained) before the process dies.
    await receiveMessage(deps, { taskId, message: textMessage('more'), sender: ALICE });
    await drain(deps, { taskId, generation: parkedAt.generation, turn: parkedAt.turn });
    expect(await deps.store.readInbox(taskId)).toEqual([]);

    const again = await park(
      deps,
      { taskId, generation: parkedAt.generation, turn: parkedAt.turn },
      'token-again'
    );

    expect(again).toEqual({ wakeNow: true });
    expect((await harness.task(taskId)).loop.parkToken).toBeNull();
  });
});

describe('a tool that may run only once, across a crash', () => {
  it('is not run again by a re-run of its step: the call is recorded as interrupted', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const runner = new StaticToolRunner([
      {
        name: 'send_email',
        description: 'Sends an email (not idempotent)',
        input: z.object({ to: z.string() }),
        idempotent: false,
        run: async () => {
          await held;
          return { output: 'sent', isError: false };
        },
      },
    ]);
    const { harness } = harnessWith(
      [{ toolCalls: [{ name: 'send_email', arguments: { to: 'bob@example.com' } }] }],
      { runner }
    );
    const { deps } = harness;
    const { record } = await startTask(deps, { message: textMessage('mail bob'), sender: ALICE });
    const taskId = record.task.id;
    const drained = await drain(deps, { taskId, generation: 1, turn: 0 });
    const called = await invokeModel(deps, drained.ref);
    if (called.route.next !== 'execute_tools') throw new Error('expected a call');
    const [call] = called.route.calls;

    // The first run of the step is mid-call when its process dies; the step runs again.
    const first = executeTool(deps, call!);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await executeTool(deps, call!);
    release();
    await first;

    expect(runner.calls).toHaveLength(1);
    const results = (await deps.store.readHistory(taskId)).filter(
      (entry) => entry.kind === 'tool_result'
    );
    expect(results).toEqual([
      expect.objectContaining({
        name: 'send_email',
        isError: true,
        output: expect.stringMatching(/^\[tool\.not_retried\] send_email was interrupted/),
      }),
    ]);
  });
});
