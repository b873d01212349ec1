import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Task, TaskState } from '@a2a-js/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { envelopeMessage, textMessage } from '../support/messages.js';
import { clientAt, sendRequest, startDemoStack } from './stack-client.js';
import { freePort, type StackProcess } from './stack-process.js';

const TOKEN = 'control-crash-token';

/**
 * kill -9 of `npm start` a few milliseconds after a participant's `complete` (or `cancel`) left
 * for a parked conversation: whether the control was taken in before the crash or not, and
 * whether its wake left or not, the restarted stack ends the task as asked once the control is
 * taken in (sent again, it is a duplicate of an accepted one or a first). Nothing is refused as
 * unsupported while the task waits for its participant.
 */
describe('a crash just after a participant ends a parked conversation', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tiny-harness-control-crash-'));
  let stack: StackProcess | undefined;

  afterAll(async () => {
    await stack?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.each([
    ['complete', 'TASK_STATE_COMPLETED', 5],
    ['cancel', 'TASK_STATE_CANCELED', 15],
  ] as const)(
    '%s: the task ends after the restart',
    async (action, ended, killAfterMs) => {
      const port = await freePort();
      const start = () => startDemoStack({ dataDir, port, token: TOKEN });
      stack = await start();
      const alice = await clientAt(stack.url, TOKEN);
      const parked = (await alice.sendMessage(sendRequest(textMessage('hello')))) as Task;
      expect(parked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

      const control = envelopeMessage('control', { action });
      void alice.sendMessage(sendRequest(control, parked.id)).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, killAfterMs));
      await stack.crash();

      stack = await start();
      const again = await clientAt(stack.url, TOKEN);
      // The same message again: taken in now if the crash came first, a duplicate if not.
      await again.sendMessage(sendRequest(control, parked.id)).catch((error: Error) => {
        // Only an ended task may refuse it (the first one took effect).
        expect(error.message).toMatch(/closed|TaskNotCancelable|not cancelable/i);
      });
      const deadline = Date.now() + 60_000;
      let task: Task;
      for (;;) {
        task = await again.getTask({ tenant: '', id: parked.id });
        const state = task.status?.state;
        if (
          state !== TaskState.TASK_STATE_INPUT_REQUIRED &&
          state !== TaskState.TASK_STATE_WORKING
        ) {
          break;
        }
        if (Date.now() > deadline) throw new Error(`not ended: ${stack.output().slice(-3000)}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(TaskState[task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED]).toBe(ended);
      await stack.stop();
      stack = undefined;
    },
    240_000
  );
});
