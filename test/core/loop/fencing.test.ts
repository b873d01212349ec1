import { describe, expect, it } from 'vitest';
import { cancelTask, requestCompletion } from '../../../functions/core/intake/control.js';
import { startTask } from '../../../functions/core/intake/start-task.js';
import { executeTool } from '../../../functions/core/loop/execute-tool.js';
import type { StepResult, TurnRef } from '../../../functions/core/loop/route.schema.js';
import { takeTurn } from '../../../functions/core/loop/take-turn.js';
import { readUsage } from '../../../functions/core/loop/usage.js';
import { InProcessHarness } from '../../../functions/core/testing/in-process-harness.js';
import { ALICE, STATES, view } from '../../support/harness.js';
import { HeldModel } from '../../support/held-model.js';
import { textMessage } from '../../support/messages.js';

/** A task whose first turn is at its model call, held; what the store held just before. */
const atHeldModelCall = async () => {
  const model = new HeldModel();
  const harness = new InProcessHarness({ model });
  const { deps } = harness;
  const { record } = await startTask(deps, { message: textMessage('go'), sender: ALICE });
  const taskId = record.task.id;
  const ref: TurnRef = { taskId, generation: 1, turn: 0 };
  const call = takeTurn(deps, ref);
  await model.called;
  const before = {
    history: await deps.store.readHistory(taskId),
    events: (await deps.events.read(taskId)).length,
  };
  return { harness, deps, model, taskId, ref, call, before };
};

describe('a cut turn stays cut (fencing)', () => {
  it('cancel during a held model call: the late reply writes nothing (no transcript, usage or event)', async () => {
    const { deps, model, taskId, call, before } = await atHeldModelCall();

    await cancelTask(deps, { taskId, requestedBy: ALICE });
    const canceled = await deps.store.get(taskId);
    const eventsAfterCancel = (await deps.events.read(taskId)).length;
    model.answer({ text: 'Here is my late answer.' });
    const route: StepResult = await call;

    expect(route.route).toEqual({ next: 'end', state: STATES.CANCELED });
    const after = await deps.store.get(taskId);
    expect(after).toEqual(canceled);
    expect(view(after!).state).toBe(STATES.CANCELED);
    expect(after?.loop.turn).toBe(0);
    expect(after?.loop.usage.outputTokens).toBe(0);
    expect(readUsage(after!.task).model_calls).toBe(0);
    expect(await deps.store.readHistory(taskId)).toEqual(before.history);
    expect((await deps.events.read(taskId)).length).toBe(eventsAfterCancel);
    expect(await deps.store.getAudit(taskId, 'response:1:1')).toBeUndefined();
  });

  it('completion during a held model call cuts the turn: the old generation writes nothing', async () => {
    const { deps, model, taskId, call, before } = await atHeldModelCall();

    const wake = await requestCompletion(deps, { taskId, participantId: ALICE, reason: 'enough' });
    expect(wake).toEqual({ action: 'cut', taskId, generation: 2 });
    const cut = await deps.store.get(taskId);
    model.answer({
      text: 'late',
      toolCalls: [{ id: 'c1', name: 'create_plan', arguments: '{}' }],
      finishReason: 'tool_calls',
    });
    const route = await call;

    expect(route.route).toEqual({ next: 'superseded' });
    expect(await deps.store.get(taskId)).toEqual(cut);
    expect(await deps.store.readHistory(taskId)).toEqual(before.history);
    expect(cut?.loop.response).toBeNull();
  });

  it('a tool call of a superseded generation, or of an ended task, applies nothing', async () => {
    const harness = new InProcessHarness();
    const { deps } = harness;
    const { record } = await startTask(deps, { message: textMessage('go'), sender: ALICE });
    const taskId = record.task.id;
    // The model asked for a plan in turn 1 (committed), then the task was canceled.
    const base = (await deps.store.get(taskId))!;
    await deps.store.commit({
      kind: 'update',
      base,
      record: {
        ...base,
        loop: {
          ...base.loop,
          turn: 1,
          response: {
            text: '',
            toolCalls: [
              {
                id: 'c1',
                name: 'create_plan',
                arguments: JSON.stringify({ steps: [{ name: 'A', description: 'a' }] }),
              },
            ],
            usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1 },
            model: 'm',
            finishReason: 'tool_calls',
          },
        },
      },
    });
    await cancelTask(deps, { taskId, requestedBy: ALICE });
    const canceled = await deps.store.get(taskId);

    await executeTool(deps, { ref: { taskId, generation: 1, turn: 1 }, callId: 'c1' });
    await executeTool(deps, { ref: { taskId, generation: 9, turn: 1 }, callId: 'c1' });

    expect(await deps.store.get(taskId)).toEqual(canceled);
    expect(view(canceled!).extension.plan).toBeNull();
  });
});
