import { join } from 'node:path';
import { TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readExtension, subStateOf } from '../../functions/core/task/a2a-task.js';
import { sendRequest } from '../faults/stack-client.js';
import type { StackProcess } from '../faults/stack-process.js';
import { statusText, textMessage } from '../support/messages.js';
import { stackOnFixture } from './earlier-data-dir.js';

/**
 * A data directory written by the build before the plan and the rows moved out of the task record
 * (6b57228): `npm start` with the demo model, "plan a trip to Lisbon", stopped with Ctrl-C while
 * the task waited for the answer to its question. Its record holds the plan and the row whole.
 */
const FIXTURE = join(import.meta.dirname, 'fixtures', 'data-dir-6b57228.tar.gz');
const TASK_ID = '5365a9c4-5573-4455-8226-c8d16a457ca9';

describe('npm start on a data directory an earlier build wrote', () => {
  let stack: StackProcess;
  let you: Client;
  let stop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    // Logged at info: the migration's line is read.
    ({ stack, you, stop } = await stackOnFixture(FIXTURE, { TINY_HARNESS_LOG_LEVEL: 'info' }));
  }, 120_000);
  afterAll(() => stop?.());

  it('moves the records apart before serving, and the parked task reads as it was, its history whole', async () => {
    // The parent's record held its plan and its row; neither named where its log begins.
    expect(stack.output()).toMatch(/"message":"task records migrated",.*"found":2,"moved":2/);

    const task = await you.getTask({ tenant: '', id: TASK_ID, historyLength: 50 });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(subStateOf(task)).toBe('awaiting-answer');
    const extension = readExtension(task);
    expect(extension.plan?.steps.map((step) => [step.name, step.state])).toEqual([
      ['Gather ideas', 'done'],
      ['Choose one', 'pending'],
      ['Write it up', 'pending'],
    ]);
    expect(extension.sub_tasks).toEqual([
      expect.objectContaining({ state: 'TASK_STATE_COMPLETED', criteria: { met: 1, total: 1 } }),
    ]);
    expect(task.history.map((message) => message.role)).toEqual([1, 2]);
  });

  it('resumes the execution parked by the earlier build on the answer, and finishes the plan', async () => {
    await you.sendMessage(sendRequest(textMessage('the second'), TASK_ID));
    const deadline = Date.now() + 30_000;
    let task = await you.getTask({ tenant: '', id: TASK_ID });
    while (subStateOf(task) !== 'awaiting-next-message') {
      if (Date.now() > deadline) throw new Error(`${statusText(task)}\n${stack.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      task = await you.getTask({ tenant: '', id: TASK_ID });
    }
    expect(readExtension(task).plan?.steps.map((step) => step.state)).toEqual([
      'done',
      'done',
      'done',
    ]);
    expect(statusText(task)).toContain('every step of the plan is complete');
  });
});
