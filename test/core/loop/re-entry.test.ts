import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { receiveMessage } from '../../../functions/core/intake/receive-message.js';
import { startTask } from '../../../functions/core/intake/start-task.js';
import { executeTool } from '../../../functions/core/loop/execute-tool.js';
import { park } from '../../../functions/core/loop/park.js';
import type { TurnRef } from '../../../functions/core/loop/route.schema.js';
import { takeTurn } from '../../../functions/core/loop/take-turn.js';
import { InProcessHarness } from '../../../functions/core/testing/in-process-harness.js';
import { StaticToolRunner } from '../../../functions/core/testing/static-tool-runner.js';
import { zodArguments } from '../../../functions/core/tools/registry.js';
import { ALICE, harnessWith, STATES, view } from '../../support/harness.js';
import { HeldModel } from '../../support/held-model.js';
import { envelopeMessage, textMessage } from '../../support/messages.js';

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
  it('a turn state of a turn already taken calls no model and goes on from the task', async () => {
    const { harness, model } = harnessWith([{ toolCalls: [plan('A')] }, { text: 'Planned.' }]);
    const task = await harness.start(textMessage('go'), ALICE);
    const taskId = task.task.id;
    const calls = model.requests.length;
    const parked = await harness.task(taskId);

    const first: TurnRef = { taskId, generation: 1, turn: 0 };
    const replayed = await takeTurn(harness.deps, first);

    expect(model.requests).toHaveLength(calls);
    expect(replayed).toEqual({
      ref: { ...first, turn: 2 },
      route: {
        next: 'park',
        subState: 'awaiting-next-message',
        decidedOn: { version: parked.version, inboxCount: parked.inboxCount },
      },
    });
    expect(await harness.task(taskId)).toEqual(parked);
  });

  it('a turn re-entered between the calls of a turn runs the calls not applied, folding nothing between', async () => {
    const { harness } = harnessWith([{ toolCalls: [plan('A'), plan('B')] }, { text: 'Planned.' }]);
    const { deps } = harness;
    const { record } = await startTask(deps, { message: textMessage('go'), sender: ALICE });
    const taskId = record.task.id;
    const called = await takeTurn(deps, { taskId, generation: 1, turn: 0 });
    if (called.route.next !== 'execute_tools') throw new Error('expected calls');
    const [firstCall, secondCall] = called.route.calls;
    await executeTool(deps, firstCall!);
    // A message arrives; then the execution comes back at its turn state.
    await receiveMessage(deps, { taskId, message: textMessage('hurry'), sender: ALICE });

    const resumed = await takeTurn(deps, { taskId, generation: 1, turn: 0 });

    expect(resumed).toEqual({
      ref: { taskId, generation: 1, turn: 1 },
      route: { next: 'execute_tools', calls: [secondCall] },
    });
    expect((await deps.store.readInbox(taskId)).map((item) => item.kind)).toEqual(['message']);
  });

  it('a park re-entered after its wake was read wakes at once: the turn it woke for is not over', async () => {
    const model = new HeldModel();
    const harness = new InProcessHarness({ model });
    const { deps } = harness;
    const { record } = await startTask(deps, { message: textMessage('hi'), sender: ALICE });
    const taskId = record.task.id;
    const ref: TurnRef = { taskId, generation: 1, turn: 0 };
    // The turn folds the message and is at its model call when the process dies.
    void takeTurn(deps, ref);
    await model.called;
    expect(await deps.store.readInbox(taskId)).toEqual([]);

    const again = await park(deps, ref, 'token-again');

    expect(again).toEqual({ wakeNow: true });
    expect((await harness.task(taskId)).loop.parkToken).toBeNull();
  });
});

describe('a tool that may run only once, across a crash', () => {
  /** A turn whose one call of `send_email` is held mid-call; `release` lets it answer. */
  const heldCall = async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const runner = new StaticToolRunner([
      {
        name: 'send_email',
        description: 'Sends an email (not idempotent)',
        input: zodArguments(z.object({ to: z.string() })),
        idempotent: false,
        approval: null,
        run: async () => {
          // Only the first call hangs: the one whose process dies.
          if (runner.calls.length === 1) await held;
          return { output: 'sent', isError: false };
        },
      },
    ]);
    const { harness } = harnessWith(
      [
        { toolCalls: [{ name: 'send_email', arguments: { to: 'bob@example.com' } }] },
        { text: 'Understood.' },
      ],
      { runner }
    );
    const { deps } = harness;
    const { record } = await startTask(deps, { message: textMessage('mail bob'), sender: ALICE });
    const taskId = record.task.id;
    const called = await takeTurn(deps, { taskId, generation: 1, turn: 0 });
    if (called.route.next !== 'execute_tools') throw new Error('expected a call');
    const [call] = called.route.calls;
    if (call === undefined) throw new Error('expected a call');
    // The first run of the step is mid-call when its process dies; the step runs again.
    const first = executeTool(deps, call);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await executeTool(deps, call);
    return { harness, deps, runner, taskId, call, first, release };
  };

  it('is not run again by a re-run of its step, nor guessed: it goes back to the approvers', async () => {
    const { harness, deps, runner, taskId, call, first, release } = await heldCall();

    expect(runner.calls).toHaveLength(1);
    expect((await harness.task(taskId)).loop.approvals).toEqual([
      expect.objectContaining({
        callId: call.callId,
        fateUnknown: true,
        approvers: ['reporter', 'admin'],
        decision: null,
      }),
    ]);
    const parked = await takeTurn(deps, call.ref);
    expect(parked.route).toMatchObject({ next: 'park', subState: 'awaiting-approval' });
    expect(view(await harness.task(taskId)).statusText).toContain(
      'this call may or may not have run (the harness stopped while it was being sent): approve to send it again, reject to leave it'
    );

    // Alice, the reporter, leaves it: the model reads that it may have run and was not sent again.
    await harness.send(
      taskId,
      envelopeMessage('control', { action: 'reject', reason: 'it went out' }),
      ALICE
    );
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
        output: expect.stringMatching(
          /^\[tool\.rejected\] send_email may or may not have run \(the harness stopped while it was being sent\), and is not sent again: alice rejected it: it went out/
        ),
      }),
    ]);
  });

  it('is sent again, once, when an approver says so', async () => {
    const { harness, deps, runner, taskId, first, release } = await heldCall();
    await harness.send(taskId, envelopeMessage('control', { action: 'approve' }), ALICE);
    release();
    await first;
    expect(runner.calls).toHaveLength(2);
    expect(view(await harness.task(taskId)).state).toBe(STATES.INPUT_REQUIRED);
    const results = (await deps.store.readHistory(taskId)).filter(
      (entry) => entry.kind === 'tool_result'
    );
    expect(results).toEqual([expect.objectContaining({ name: 'send_email', output: 'sent' })]);
  });
});
