import { describe, expect, it } from 'vitest';
import { receiveMessage } from '../../../functions/core/intake/receive-message.js';
import { ALICE, BOB, STRANGER } from '../../support/harness.js';
import { envelopeMessage, textMessage } from '../../support/messages.js';
import { inMemoryRuntime } from '../support.js';

/** A conversation parked on its first reply, its runtime waking the recording executions. */
const parkedConversation = async () => {
  const parts = inMemoryRuntime({ replies: [{ text: 'Hello.' }] });
  const parked = await parts.harness.start(textMessage('hi'), ALICE);
  const taskId = parked.task.id;
  const token = parked.loop.parkToken;
  if (token === null) throw new Error('the conversation did not park');
  const send = (text: string) =>
    receiveMessage(parts.runtime.loop, {
      taskId,
      message: { ...textMessage(text), taskId },
      sender: ALICE,
    });
  return { ...parts, taskId, token, send };
};

describe('the execution waker, after the operation that calls for it', () => {
  it('resumes a parked execution with the token the message claimed, and nothing else', async () => {
    const { executions, token, send } = await parkedConversation();
    await send('more');
    expect(executions.calls).toEqual([{ method: 'resume', token }]);
  });

  it('revives a task whose parked execution is gone: the old generation stopped, the next started', async () => {
    const { runtime, executions, taskId, token, send } = await parkedConversation();
    executions.resume = async (answered) => {
      executions.calls.push({ method: 'resume', token: answered });
      return false;
    };
    executions.running = false;
    await send('anyone there?');
    expect(executions.calls).toEqual([
      { method: 'resume', token },
      { method: 'isRunning', taskId, generation: 1 },
      { method: 'stop', taskId, generation: 1, cause: 'the turn was cut' },
      { method: 'start', ref: { taskId, generation: 2, turn: 0 } },
    ]);
    expect((await runtime.loop.store.get(taskId))?.loop.generation).toBe(2);
  });

  it("wakes nothing for a stranger's message: it is refused, and the task stays parked", async () => {
    const { runtime, executions, taskId, token } = await parkedConversation();
    const receipt = await receiveMessage(runtime.loop, {
      taskId,
      message: { ...textMessage('let me in'), taskId },
      sender: STRANGER,
    });
    expect(receipt.accepted).toBe(false);
    expect(executions.calls).toEqual([]);
    expect((await runtime.loop.store.get(taskId))?.loop.parkToken).toBe(token);
  });

  it("resumes the task for a watcher's message, as for any participant's", async () => {
    const parts = inMemoryRuntime({ replies: [{ text: 'Hello.' }] });
    const parked = await parts.harness.start(
      envelopeMessage(
        'task',
        {
          name: 'Trip',
          goal: 'Plan a trip',
          participants: [
            { id: ALICE, kind: 'human', role: 'reporter' },
            { id: BOB, kind: 'human', role: 'watcher' },
          ],
        },
        { text: 'hi' }
      ),
      ALICE
    );
    const taskId = parked.task.id;
    await receiveMessage(parts.runtime.loop, {
      taskId,
      message: { ...textMessage('I am watching'), taskId },
      sender: BOB,
    });
    expect(parts.executions.calls).toEqual([{ method: 'resume', token: parked.loop.parkToken }]);
  });

  it('leaves a task whose execution still runs to that execution', async () => {
    const { runtime, executions, taskId } = await parkedConversation();
    await runtime.loop.waker.follow({ action: 'ensure-running', taskId, generation: 1 });
    expect(executions.calls).toEqual([{ method: 'isRunning', taskId, generation: 1 }]);
    expect((await runtime.loop.store.get(taskId))?.loop.generation).toBe(1);
  });
});
