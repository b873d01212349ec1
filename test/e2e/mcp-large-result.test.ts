import { join } from 'node:path';
import { TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditOf } from '../../functions/composition/audit.js';
import { userTextMessage } from '../../functions/core/loop/messages.js';
import { ScriptedModel } from '../../functions/core/testing/scripted-model.js';
import type { Invocation } from '../../functions/core/tools/invoker.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { readTimeline } from '../../functions/service/read-timeline.js';
import { asTask, clientFor, startStack } from '../support/local-stack.js';

/** Past one DynamoDB item (100,000 characters a piece): the record is stored in pieces. */
const SIZE = 250_000;

/**
 * A tool result past its bound, through the local stack (DynamoDB Local): the transcript keeps
 * the bound and the size, the call's record keeps the whole, and the timeline names the record.
 */
describe('a large MCP tool result, stored by reference', () => {
  const model = new ScriptedModel();
  let stack: LocalStack;

  beforeAll(async () => {
    stack = await startStack({
      model,
      env: {
        TINY_HARNESS_MCP_SERVERS: JSON.stringify({
          notes: {
            command: process.execPath,
            args: ['--import', 'tsx', join(import.meta.dirname, '../support/mcp-notes-stdio.ts')],
            tools: ['dump'],
            maxResultChars: 2_000,
          },
        }),
      },
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  });

  it('cuts it in the transcript and keeps it whole in the record the timeline references', async () => {
    model.push(
      { toolCalls: [{ id: 'big', name: 'notes__dump', arguments: { size: SIZE } }] },
      { text: 'That was long.' }
    );
    const alice = await clientFor(stack, 'alice');
    const task = asTask(
      await alice.sendMessage({
        tenant: '',
        configuration: undefined,
        metadata: undefined,
        message: userTextMessage({
          messageId: `mcp-large-${Date.now()}`,
          text: 'dump it',
          taskId: '',
          contextId: '',
        }),
      })
    );
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    const { store } = stack.runtime.loop;
    const [result] = (await store.readHistory(task.id)).filter(
      (entry) => entry.kind === 'tool_result'
    );
    expect(result).toMatchObject({
      name: 'notes__dump',
      output: `${'x'.repeat(2_000)}\n[cut: the first 2000 of ${SIZE} characters of this result; the whole is in the call's record]`,
    });
    // What the model read is the cut.
    expect(JSON.stringify(model.requests.at(-1)?.input)).not.toContain('x'.repeat(2_001));

    const timeline = await readTimeline(auditOf(stack.runtime).sources, {
      taskId: task.id,
      participantId: 'alice',
      subTasks: false,
    });
    const call = timeline.entries.find((entry) => entry.kind === 'tool_call');
    expect(call?.details).toMatchObject({
      name: 'notes__dump',
      result: { size: SIZE, truncated: true },
    });
    expect(call?.source).toEqual({ kind: 'record', ref: 'tool:1:1:big' });
    const record = await store.getAudit<Invocation>(task.id, call?.source.ref ?? '');
    expect(record).toMatchObject({ kind: 'output', isError: false, whole: 'x'.repeat(SIZE) });
  }, 60_000);
});
