/**
 * The CLI against the per-caller stream cap: a stream one too many is answered 429 with
 * Retry-After (a turn the person stopped waiting for holds its lease until the agent sees the
 * connection close); the CLI waits it out instead of losing the message.
 */
import { type Message, TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userTextMessage } from '../../functions/core/loop/messages.js';
import { ScriptedModel } from '../../functions/core/testing/scripted-model.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { cliEnv, runCli } from '../support/cli.js';
import { asTask, clientFor, startStack } from '../support/local-stack.js';

const send = (message: Message) => ({
  tenant: '',
  message,
  configuration: undefined,
  metadata: undefined,
});

describe('tiny-harness at the stream cap', () => {
  const model = new ScriptedModel();
  let stack: LocalStack;

  beforeAll(async () => {
    stack = await startStack({ model, env: { TINY_HARNESS_STREAMS_PER_CALLER: '1' } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('sends its message once the stream held elsewhere closes, instead of failing on the 429', async () => {
    model.push({ text: 'Started.' });
    const you = await clientFor(stack, 'you');
    const task = asTask(
      await you.sendMessage(
        send(userTextMessage({ messageId: 'streams-1', text: 'hello', taskId: '' }))
      )
    );
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    // The caller's one stream, held open elsewhere, and closed a moment after the chat starts.
    const held = new AbortController();
    const stream = you.resubscribeTask({ tenant: '', id: task.id }, { signal: held.signal });
    const first = await stream[Symbol.asyncIterator]().next();
    expect(first.done).toBe(false);
    setTimeout(() => held.abort(), 1_500);

    model.push({ text: 'Here after the wait.' });
    const ran = await runCli(['chat', '--task', task.id], cliEnv(stack, 'you'), {
      input: 'are you there?\n',
    });
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('agent › Here after the wait.');
  });
});
