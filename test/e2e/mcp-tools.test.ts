import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_METADATA_KEY } from '../../functions/core/a2a/identifiers.js';
import { userTextMessage } from '../../functions/core/loop/messages.js';
import { ScriptedModel } from '../../functions/core/testing/scripted-model.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { asTask, clientFor, eventually, startStack, temporaryDir } from '../support/local-stack.js';
import { envelopeMessage } from '../support/messages.js';

const send = (text: string) => ({
  tenant: '',
  configuration: undefined,
  metadata: undefined,
  message: userTextMessage({
    messageId: `mcp-${Date.now()}-${text}`,
    text,
    taskId: '',
    contextId: '',
  }),
});

/**
 * The notes server (test/support/mcp-notes-stdio.ts) started by the stack from its configuration,
 * over stdio, its tools offered to the model and called by the turn step.
 */
describe('MCP tools through the local stack', () => {
  const model = new ScriptedModel();
  const dir = temporaryDir();
  const callsFile = join(dir.dir, 'calls.jsonl');
  let stack: LocalStack;

  beforeAll(async () => {
    writeFileSync(callsFile, '');
    stack = await startStack({
      model,
      env: {
        TINY_HARNESS_MCP_SERVERS: JSON.stringify({
          notes: {
            command: process.execPath,
            args: ['--import', 'tsx', join(import.meta.dirname, '../support/mcp-notes-stdio.ts')],
            env: { NOTES_CALLS_FILE: callsFile },
            tools: ['get_note', 'put_note', 'delete_note'],
          },
        }),
      },
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    dir.remove();
  });

  const serverCalls = () =>
    readFileSync(callsFile, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { tool: string; args: unknown });

  it('offers the allow-listed tools and runs the calls the model makes, results back to the model', async () => {
    model.push(
      { toolCalls: [{ name: 'notes__put_note', arguments: { id: 'shop', text: 'milk' } }] },
      { toolCalls: [{ name: 'notes__get_note', arguments: { id: 'shop' } }] },
      { toolCalls: [{ name: 'notes__put_note', arguments: { id: 'shop' } }] },
      { text: 'The note says milk.' }
    );
    const alice = await clientFor(stack, 'alice');

    const task = asTask(await alice.sendMessage(send('what is on my shopping note?')));

    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const offered = model.requests[0]?.tools.map((tool) => tool.name) ?? [];
    expect(offered).toEqual(expect.arrayContaining(['notes__get_note', 'notes__put_note']));
    expect(offered.filter((name) => name.startsWith('notes__'))).toHaveLength(3);
    // The invalid third call never reached the server.
    expect(serverCalls()).toEqual([
      { tool: 'put_note', args: { id: 'shop', text: 'milk' } },
      { tool: 'get_note', args: { id: 'shop' } },
    ]);
    const results = (await stack.runtime.loop.store.readHistory(task.id)).filter(
      (entry) => entry.kind === 'tool_result'
    );
    expect(results).toEqual([
      expect.objectContaining({ name: 'notes__put_note', output: 'saved shop', isError: false }),
      expect.objectContaining({
        name: 'notes__get_note',
        output: expect.stringMatching(/^milk\n/),
        isError: false,
      }),
      expect.objectContaining({
        name: 'notes__put_note',
        output: expect.stringMatching(/^\[tool\.invalid_arguments\]/),
        isError: true,
      }),
    ]);
    // The model reads a tool's result as untrusted data.
    const lastRequest = JSON.stringify(model.requests.at(-1)?.input);
    expect(lastRequest).toMatch(/<untrusted source=\\"tool\\">/);
  }, 60_000);

  it('parks a destructive call for approval, and runs it once when the reporter approves', async () => {
    model.push(
      { toolCalls: [{ name: 'notes__delete_note', arguments: { id: 'shop' } }] },
      { text: 'Deleted.' }
    );
    const alice = await clientFor(stack, 'alice');
    const task = asTask(await alice.sendMessage(send('delete my shopping note')));
    expect(task.metadata?.[STATUS_METADATA_KEY]).toEqual({ sub_state: 'awaiting-approval' });
    const deletions = () => serverCalls().filter((call) => call.tool === 'delete_note');
    expect(deletions()).toEqual([]);

    // The default policy: the task's reporter (or an admin) approves.
    await alice.sendMessage({
      ...send(''),
      message: {
        ...envelopeMessage('control', { action: 'approve' }),
        messageId: `mcp-approve-${Date.now()}`,
        taskId: task.id,
      },
    });

    await eventually(async () => {
      const now = await alice.getTask({ tenant: '', id: task.id });
      const status = now.metadata?.[STATUS_METADATA_KEY] as { sub_state?: string } | undefined;
      return status?.sub_state === 'awaiting-next-message' ? now : undefined;
    });
    expect(deletions()).toEqual([{ tool: 'delete_note', args: { id: 'shop' } }]);
  }, 60_000);
});
