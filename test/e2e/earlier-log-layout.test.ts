import { join } from 'node:path';
import { type Task, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readExtension, subStateOf } from '../../functions/core/task/a2a-task.js';
import { messageText } from '../../functions/core/task/envelope.js';
import { sendRequest } from '../faults/stack-client.js';
import type { StackProcess } from '../faults/stack-process.js';
import { statusText, textMessage } from '../support/messages.js';
import { FIXTURE_TOKEN, stackOnFixture } from './earlier-data-dir.js';

/**
 * A data directory written by the build before a commit's log item and the inbox held on the
 * record (88854ef): `npm start` with the demo model; "plan a trip to Lisbon", left waiting for the
 * answer to its question; and a conversation of two messages, parked for the next. Every
 * transcript entry, event and audit record in it is an item of its own (`HIST#`, `EVT#`,
 * `ONCE#`), and its records count no inbox items.
 */
const FIXTURE = join(import.meta.dirname, 'fixtures', 'data-dir-88854ef.tar.gz');
const TRIP_ID = 'ba6f1f26-5592-4312-b640-0e328705bd4f';
const CHAT_ID = '76724359-393e-40b6-a940-a2d9353d5fb5';

interface TimelineEntry {
  kind: string;
  task_id: string;
}

describe('npm start on a data directory written before the commit log', () => {
  let stack: StackProcess;
  let you: Client;
  let stop: (() => Promise<void>) | undefined;

  const waitFor = async (id: string, subState: string): Promise<Task> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const task = await you.getTask({ tenant: '', id, historyLength: 50 });
      if (subStateOf(task) === subState) return task;
      if (Date.now() > deadline) throw new Error(`${statusText(task)}\n${stack.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const timeline = async (id: string) => {
    const response = await fetch(`${stack.url}/tasks/${id}:timeline?subTasks=false`, {
      headers: { 'A2A-Version': '1.0', Authorization: `Bearer ${FIXTURE_TOKEN}` },
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { entries: TimelineEntry[] }).entries;
  };
  const said = (task: Task) => task.history.map(messageText);

  beforeAll(async () => {
    // At info, the start says what it migrated.
    ({ stack, you, stop } = await stackOnFixture(FIXTURE, { TINY_HARNESS_LOG_LEVEL: 'info' }));
  }, 120_000);
  afterAll(() => stop?.());

  it('writes each record as this build does before it serves: where its log begins named', () => {
    const migrated = stack
      .output()
      .split('\n')
      .filter((line) => line.includes('"task records migrated"'))
      .map((line) => JSON.parse(line.slice(line.indexOf('{'))) as { found: number; moved: number });
    // The trip, its sub-task and the conversation, each written once.
    expect(migrated).toEqual([{ ...migrated[0], found: 3, moved: 3 }]);
  });

  it('reads the parked conversation whole, and its next turn adds to it', async () => {
    const before = await you.getTask({ tenant: '', id: CHAT_ID, historyLength: 50 });
    expect(subStateOf(before)).toBe('awaiting-next-message');
    expect(before.history.map((message) => message.role)).toEqual([1, 2, 1, 2]);
    const accepted = (await timeline(CHAT_ID)).filter((entry) => entry.kind === 'message_accepted');
    expect(accepted).toHaveLength(2);

    await you.sendMessage(sendRequest(textMessage('and a third'), CHAT_ID));
    const after = await waitFor(CHAT_ID, 'awaiting-next-message');
    expect(after.history.map((message) => message.role)).toEqual([1, 2, 1, 2, 1, 2]);
    expect(said(after).slice(0, 4)).toEqual(said(before));
    expect(said(after)[4]).toBe('and a third');
    // The auditor's timeline reads the earlier build's records and the log item's together.
    const entries = await timeline(CHAT_ID);
    expect(entries.filter((entry) => entry.kind === 'message_accepted')).toHaveLength(3);
  });

  it('resumes the plan parked on its question, and finishes it', async () => {
    const parked = await you.getTask({ tenant: '', id: TRIP_ID, historyLength: 50 });
    expect(parked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(subStateOf(parked)).toBe('awaiting-answer');
    await you.sendMessage(sendRequest(textMessage('the second'), TRIP_ID));
    const done = await waitFor(TRIP_ID, 'awaiting-next-message');
    expect(readExtension(done).plan?.steps.map((step) => step.state)).toEqual([
      'done',
      'done',
      'done',
    ]);
    expect(statusText(done)).toContain('every step of the plan is complete');
    expect(done.history.length).toBeGreaterThan(parked.history.length);
  });
});
