import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { authorizationFor } from '../support/identity.js';
import { eventually, startStack } from '../support/local-stack.js';

const SENDERS = 50;
const MESSAGES_EACH = 8;

type Json = Record<string, unknown>;

/**
 * Fifty senders write to one task at once, eight messages each, one after another (what a
 * sender does): every message is accepted, the task reads each exactly once, and each sender's
 * messages keep their order. Inbox seqs come from an atomic counter, so the senders contend
 * only when the task parks or wakes under them, and then retry after a jittered pause.
 */
describe('one task, many concurrent senders (real DynamoDB Local)', () => {
  let stack: LocalStack;

  beforeAll(async () => {
    stack = await startStack({
      env: {
        // Protection the test is not about: one client sends 400 messages in a burst.
        TINY_HARNESS_THROTTLE_PER_MINUTE: '100000',
        TINY_HARNESS_THROTTLE_BURST: '100000',
        TINY_HARNESS_MAX_TURNS: '1000',
      },
    });
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
  });

  const rpc = async (method: string, params: Json) => {
    const response = await fetch(`${stack.url}/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'a2a-version': '1.0',
        ...authorizationFor('alice'),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return (await response.json()) as { result?: Json; error?: Json };
  };
  const send = (messageId: string, text: string, taskId?: string) =>
    rpc('SendMessage', {
      message: { messageId, role: 'ROLE_USER', parts: [{ text }], ...(taskId ? { taskId } : {}) },
      configuration: { returnImmediately: true },
    });

  it('accepts every message, reads each once, and keeps each sender’s order', async () => {
    const created = await send('open', 'the shared task');
    const taskId = (created.result as { task: { id: string } }).task.id;

    const refusals: Json[] = [];
    await Promise.all(
      Array.from({ length: SENDERS }, async (_, sender) => {
        for (let n = 0; n < MESSAGES_EACH; n++) {
          const answer = await send(`s${sender}-m${n}`, `sender ${sender} message ${n}`, taskId);
          if (answer.error) refusals.push(answer.error);
        }
      })
    );
    expect(refusals).toEqual([]);

    const history = await eventually(async () => {
      const { result } = await rpc('GetTask', { id: taskId, historyLength: 1000 });
      const task = result as {
        status: { state: string };
        history: Array<{ role: string; parts: Array<{ text?: string }> }>;
      };
      const said = task.history
        .filter((message) => message.role === 'ROLE_USER')
        .map((message) => message.parts.map((part) => part.text ?? '').join(''));
      const read = said.filter((text) => text.startsWith('sender '));
      return task.status.state === 'TASK_STATE_INPUT_REQUIRED' &&
        read.length >= SENDERS * MESSAGES_EACH
        ? read
        : undefined;
    }, 120_000);

    expect(history).toHaveLength(SENDERS * MESSAGES_EACH);
    expect(new Set(history).size).toBe(SENDERS * MESSAGES_EACH);
    for (let sender = 0; sender < SENDERS; sender++) {
      const own = history.filter((text) => text.startsWith(`sender ${sender} `));
      expect(own).toEqual(
        Array.from({ length: MESSAGES_EACH }, (_, n) => `sender ${sender} message ${n}`)
      );
    }
  }, 180_000);
});
