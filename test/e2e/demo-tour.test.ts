import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Task, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_JSON_RPC_METHOD } from '../../functions/core/audit/identifiers.js';
import type { Timeline } from '../../functions/core/audit/timeline.schema.js';
import { readExtension, subStateOf } from '../../functions/core/task/a2a-task.js';
import { clientAt, sendRequest, startDemoStack } from '../faults/stack-client.js';
import { freePort, type StackProcess } from '../faults/stack-process.js';
import { envelopeMessage, statusText, textMessage } from '../support/messages.js';

const TOKEN = 'demo-tour-token';

/**
 * `npm start` with no model configured, as a newcomer meets it: the words the banner suggests
 * show a plan, a sub-task meeting its acceptance criterion with evidence, a question, and a
 * notes call that waits for an approval, with the real SDK client and no model key.
 */
describe('the demo model tours the product through npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tiny-harness-demo-tour-'));
  let stack: StackProcess;
  let alice: Client;

  beforeAll(async () => {
    stack = await startDemoStack({ dataDir, port: await freePort(), token: TOKEN });
    alice = await clientAt(stack.url, TOKEN);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const send = async (text: string, taskId = '') =>
    (await alice.sendMessage(sendRequest(textMessage(text), taskId))) as Task;
  const settled = async (taskId: string, subState: string) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const task = await alice.getTask({ tenant: '', id: taskId });
      if (subStateOf(task) === subState) return task;
      if (Date.now() > deadline) {
        throw new Error(`${taskId} is not ${subState}: ${statusText(task)}\n${stack.output()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const timelineOf = async (taskId: string): Promise<Timeline> => {
    const answer = await fetch(stack.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'A2A-Version': '1.0',
        Authorization: `Bearer ${TOKEN}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: AUDIT_JSON_RPC_METHOD,
        params: { id: taskId },
      }),
    });
    return ((await answer.json()) as { result: Timeline }).result;
  };

  it('says in its banner what to type', () => {
    expect(stack.output()).toContain('plan a trip to Lisbon');
    expect(stack.output()).toContain('"delete note n1", which waits');
  });

  it('"plan …": a plan, a sub-task that meets its criterion with evidence, a question, the plan done', async () => {
    const first = await send('plan a trip to Lisbon');

    const asked = await settled(first.id, 'awaiting-answer');
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(statusText(asked)).toBe(
      'Which idea shall I write up?\nOptions: the first, the second, the third'
    );
    const extension = readExtension(asked);
    expect(extension.plan?.steps.map((step) => [step.name, step.state])).toEqual([
      ['Gather ideas', 'done'],
      ['Choose one', 'pending'],
      ['Write it up', 'pending'],
    ]);
    expect(extension.plan?.steps[0]?.output).toContain('Three ideas for a trip to Lisbon');
    expect(extension.sub_tasks).toEqual([
      expect.objectContaining({
        state: 'TASK_STATE_COMPLETED',
        criteria: { met: 1, total: 1 },
      }),
    ]);

    const done = await send('the second', first.id);
    const finished = await settled(done.id, 'awaiting-next-message');
    expect(readExtension(finished).plan?.steps.map((step) => step.state)).toEqual([
      'done',
      'done',
      'done',
    ]);
    expect(readExtension(finished).plan?.steps[1]?.output).toBe('alice chose the second');
    expect(statusText(finished)).toContain('every step of the plan is complete');

    // The sub-task's own account: its criterion met, with the evidence.
    const timeline = await timelineOf(first.id);
    const child = extension.sub_tasks[0]?.task_id;
    const met = timeline.entries.find(
      (entry) => entry.task_id === child && entry.kind === 'task_edited'
    );
    expect(met?.summary).toMatch(/criterion c1 .*met/);
    expect(JSON.stringify(met?.details)).toContain(
      'my answer lists three ideas for a trip to Lisbon'
    );
    const kinds = timeline.entries.filter((e) => e.task_id === first.id).map((e) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['plan_changed', 'child_requested']));
  });

  it('"note …", then "delete note n1": a notes call, then one that waits for an approval', async () => {
    const noted = await send('note buy milk');
    const afterNote = await settled(noted.id, 'awaiting-next-message');
    expect(statusText(afterNote)).toContain('notes__append_note answered');

    const parked = await send('delete note n1', noted.id);
    expect(subStateOf(parked)).toBe('awaiting-approval');
    await alice.sendMessage(
      sendRequest(envelopeMessage('control', { action: 'approve' }), noted.id)
    );
    const deleted = await settled(noted.id, 'awaiting-next-message');
    expect(statusText(deleted)).toContain('notes__delete_note answered');

    const calls = (await timelineOf(noted.id)).entries.filter((e) => e.kind === 'tool_call');
    expect(calls.map((entry) => entry.details.name)).toEqual([
      'notes__append_note',
      'notes__delete_note',
    ]);
  });
});
