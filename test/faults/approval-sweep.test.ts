import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message, Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, describe, expect, it } from 'vitest';
import { STATUS_METADATA_KEY } from '../../functions/core/a2a/identifiers.js';
import { FATE_UNKNOWN_TEXT } from '../../functions/core/loop/approvals.js';
import { serveNotesOverHttp } from '../support/mcp-notes-stateless-http.js';
import { envelopeMessage, statusText, textMessage } from '../support/messages.js';
import { clientAt, sendRequest, startNotesStack } from './stack-client.js';
import { freePort, type StackProcess } from './stack-process.js';

/**
 * kill -9 of `npm start` a few milliseconds after an approval and a rejection are answered (with
 * `returnImmediately`, so the answer means the decision is committed), at a sweep of delays, then
 * `npm start` again on the same data directory. After every restart: no task waits on a decision
 * already made, no call reaches the notes server twice, a rejected call never reaches it, and a
 * call whose fate the crash left unknown is back with its approvers. `npm test` runs two kills;
 * `npm run test:faults` fifty (FAULT_APPROVAL_KILLS).
 */
const KILLS = Number(process.env.FAULT_APPROVAL_KILLS ?? 2);
const DELAYS_MS = [1, 2, 3, 5, 8, 10, 12, 15];
const TOKEN = 'approval-sweep-token';

const subStateOf = (task: Task) =>
  (task.metadata?.[STATUS_METADATA_KEY] as { sub_state?: string } | undefined)?.sub_state;

const answeredAtOnce = (message: Message, taskId: string) => ({
  ...sendRequest(message, taskId),
  configuration: {
    acceptedOutputModes: [],
    taskPushNotificationConfig: undefined,
    historyLength: undefined,
    returnImmediately: true,
  },
});

/** Where a task whose decision was committed may rest; anything else is still on its way. */
type Settled = 'ran' | 'left' | 'asked again';

const settledAs = (task: Task, verdict: 'approve' | 'reject'): Settled | undefined => {
  const text = statusText(task);
  const subState = subStateOf(task);
  if (subState === 'awaiting-approval' && text.includes(FATE_UNKNOWN_TEXT)) return 'asked again';
  if (subState !== 'awaiting-next-message') return undefined;
  if (verdict === 'reject' && text.includes('[tool.rejected]')) return 'left';
  if (verdict === 'approve' && /notes__delete_note answered:\n(deleted|no note)/.test(text)) {
    return 'ran';
  }
  throw new Error(`settled on something else after ${verdict}: ${text}`);
};

describe(`kill -9 a few milliseconds after approvals are answered (${KILLS} kills)`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tiny-harness-approval-sweep-'));
  let stack: StackProcess | undefined;
  let notes: Awaited<ReturnType<typeof serveNotesOverHttp>> | undefined;

  afterAll(async () => {
    await stack?.stop();
    await notes?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'leaves no decision undelivered, no call run twice, and every call of unknown fate with its approvers',
    async () => {
      notes = await serveNotesOverHttp();
      const port = await freePort();
      // One client polls every task it decided on: more than the local throttle's 120 a minute.
      const env = { TINY_HARNESS_THROTTLE_PER_MINUTE: '6000', TINY_HARNESS_THROTTLE_BURST: '1000' };
      const start = () =>
        startNotesStack({ dataDir, port, token: TOKEN, notesUrl: notes?.url, env });
      stack = await start();
      let client: Client = await clientAt(stack.url, TOKEN);
      const decided: { taskId: string; note: string; verdict: 'approve' | 'reject' }[] = [];
      const outcomes: Record<Settled, number> = { ran: 0, left: 0, 'asked again': 0 };

      for (let kill = 0; kill < KILLS; kill++) {
        const pair = (['approve', 'reject'] as const).map((verdict) => ({
          verdict,
          note: `n${kill}${verdict[0]}`,
        }));
        const asked = await Promise.all(
          pair.map(async ({ verdict, note }) => {
            notes?.notes.set(note, `note ${note}`);
            const task = (await client.sendMessage(
              sendRequest(textMessage(`delete note ${note}`))
            )) as Task;
            expect(subStateOf(task), statusText(task)).toBe('awaiting-approval');
            return { taskId: task.id, note, verdict };
          })
        );
        await Promise.all(
          asked.map(({ taskId, verdict }) =>
            client.sendMessage(
              answeredAtOnce(envelopeMessage('control', { action: verdict }), taskId)
            )
          )
        );
        decided.push(...asked);
        await new Promise((resolve) => setTimeout(resolve, DELAYS_MS[kill % DELAYS_MS.length]));
        await stack.crash();
        stack = await start();
        client = await clientAt(stack.url, TOKEN);
      }

      const deadline = Date.now() + 90_000;
      for (const { taskId, verdict } of decided) {
        for (;;) {
          const task = await client.getTask({ tenant: '', id: taskId });
          const settled = settledAs(task, verdict);
          if (settled !== undefined) {
            outcomes[settled]++;
            break;
          }
          if (Date.now() > deadline) {
            throw new Error(`${taskId} still waits after its ${verdict}: ${statusText(task)}`);
          }
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
      // Give a second call every chance to arrive before counting.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const deletes = notes.calls.filter((call) => call.tool === 'delete_note');
      for (const { note, verdict } of decided) {
        const calls = deletes.filter((call) => (call.args as { id?: string }).id === note);
        expect(calls.length, `${note} after ${verdict}`).toBeLessThanOrEqual(
          verdict === 'approve' ? 1 : 0
        );
      }
      expect(outcomes.ran + outcomes.left + outcomes['asked again']).toBe(decided.length);
      console.info(`approval sweep: ${KILLS} kills, ${JSON.stringify(outcomes)}`);
    },
    120_000 + KILLS * 40_000
  );
});
