import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Message, TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_METADATA_KEY, TASK_METADATA_KEY } from '../../functions/core/a2a/identifiers.js';
import { userTextMessage } from '../../functions/core/loop/messages.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { asTask, clientFor, startStack, temporaryDir } from '../support/local-stack.js';

const userMessage = (text: string): Message =>
  userTextMessage({ messageId: `e2e-script-${Date.now()}`, text });

/** The script format of docs/configuration.md: a create_plan call, then a text reply. */
const SCRIPT = {
  replies: [
    {
      toolCalls: [
        {
          name: 'create_plan',
          arguments: {
            steps: [
              { name: 'Gather facts', description: 'Collect the sources' },
              { name: 'Write it up', description: 'The summary', depends_on: ['Gather facts'] },
            ],
          },
        },
      ],
    },
    { text: 'Plan attached. What should I look at first?' },
  ],
};

describe('npm start with TINY_HARNESS_MODEL_PROVIDER=scripted and a script file', () => {
  const files = temporaryDir();
  const scriptPath = join(files.dir, 'script.json');
  let stack: LocalStack | undefined;

  beforeAll(async () => {
    writeFileSync(scriptPath, JSON.stringify(SCRIPT));
    stack = await startStack({
      env: { TINY_HARNESS_MODEL_PROVIDER: 'scripted', TINY_HARNESS_MODEL_SCRIPT: scriptPath },
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    files.remove();
  });

  it('plays the script: the plan from the create_plan call is in the task extension and the status text is the scripted reply', async () => {
    const alice = await clientFor(stack!, 'alice');

    const task = asTask(
      await alice.sendMessage({
        tenant: '',
        message: userMessage('research the topic'),
        configuration: undefined,
        metadata: undefined,
      })
    );

    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(task.metadata?.[STATUS_METADATA_KEY]).toEqual({ sub_state: 'awaiting-next-message' });
    expect(task.status?.message?.parts[0]?.content).toEqual({
      $case: 'text',
      value: 'Plan attached. What should I look at first?',
    });
    const extension = task.metadata?.[TASK_METADATA_KEY] as {
      plan: { steps: Array<{ id: string; name: string; depends_on: string[] }> } | null;
    };
    expect(extension.plan?.steps).toEqual([
      expect.objectContaining({ name: 'Gather facts', depends_on: [] }),
      expect.objectContaining({ name: 'Write it up', depends_on: [extension.plan?.steps[0]?.id] }),
    ]);
    // GetTask shows the same plan: it is stored, not only in the reply.
    const fetched = await alice.getTask({ tenant: '', id: task.id });
    expect(fetched.metadata?.[TASK_METADATA_KEY]).toEqual(task.metadata?.[TASK_METADATA_KEY]);
  }, 60_000);
});

/** The java processes this test process started (DynamoDB Local) that are still running. */
const javaChildren = (): string[] => {
  try {
    return execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], {
      encoding: 'utf8',
    })
      .split('\n')
      .filter((line) => /\bjava\b/.test(line))
      .map((line) => line.trim());
  } catch {
    return []; // ps exits 1 when there is no child at all
  }
};

describe('npm start with an invalid model script', () => {
  it('fails to start with a message naming the file', async () => {
    const files = temporaryDir();
    const scriptPath = join(files.dir, 'broken-script.json');
    writeFileSync(scriptPath, JSON.stringify({ replies: [{ txet: 'typo' }] }));
    try {
      await expect(
        startStack({
          env: { TINY_HARNESS_MODEL_PROVIDER: 'scripted', TINY_HARNESS_MODEL_SCRIPT: scriptPath },
        })
      ).rejects.toThrow(scriptPath);
      // What it started before reading the script (DynamoDB Local) is stopped again.
      expect(javaChildren()).toEqual([]);
    } finally {
      files.remove();
    }
  }, 120_000);

  it('fails to start with a message naming a script file that does not exist', async () => {
    const files = temporaryDir();
    const scriptPath = join(files.dir, 'missing.json');
    try {
      await expect(
        startStack({
          env: { TINY_HARNESS_MODEL_PROVIDER: 'scripted', TINY_HARNESS_MODEL_SCRIPT: scriptPath },
        })
      ).rejects.toThrow(scriptPath);
    } finally {
      files.remove();
    }
  }, 120_000);
});
