import { get, type IncomingHttpHeaders } from 'node:http';
import { type Message, TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { userTextMessage } from '../../functions/core/loop/messages.js';
import { ScriptedModel } from '../../functions/core/testing/scripted-model.js';
import { authorizationFor } from '../support/identity.js';
import { asTask, clientFor, eventually, startStack } from '../support/local-stack.js';

const send = (message: Message) => ({
  tenant: '',
  message,
  configuration: undefined,
  metadata: undefined,
});

/**
 * SubscribeToTask over HTTP+JSON on its own connection, as any client would open it; `close`
 * destroys the connection, as a client going away does.
 */
const subscribe = (url: string, taskId: string, participantId: string) =>
  new Promise<{
    status: number;
    headers: IncomingHttpHeaders;
    text: () => Promise<string>;
    close: () => void;
  }>((resolve, reject) => {
    const request = get(
      `${url}/tasks/${taskId}:subscribe`,
      {
        headers: {
          ...authorizationFor(participantId),
          'A2A-Version': '1.0',
          Accept: 'text/event-stream',
        },
        agent: false,
      },
      (response) => {
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: async () => {
            let text = '';
            for await (const chunk of response) text += String(chunk);
            return text;
          },
          close: () => request.destroy(),
        });
      }
    );
    request.on('error', (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(error);
    });
  });

describe('a cap on the streams one caller holds open', () => {
  it('refuses one stream more than TINY_HARNESS_STREAMS_PER_CALLER with 429 and Retry-After, and takes it once one closes', async () => {
    const stack = await startStack({
      model: new ScriptedModel([{ text: 'Hi.' }]),
      env: { TINY_HARNESS_STREAMS_PER_CALLER: '2' },
    });
    const open: Array<{ close: () => void }> = [];
    try {
      const alice = await clientFor(stack, 'alice');
      const task = asTask(
        await alice.sendMessage(
          send(userTextMessage({ messageId: `cap-${Date.now()}`, text: 'hello', taskId: '' }))
        )
      );
      expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

      // A parked task's subscription stays open until its next pause.
      for (let i = 0; i < 2; i++) {
        const stream = await subscribe(stack.url, task.id, 'alice');
        expect(stream.status).toBe(200);
        open.push(stream);
      }
      const third = await subscribe(stack.url, task.id, 'alice');
      expect(third.status).toBe(429);
      expect(third.headers['retry-after']).toBe('30');
      expect(JSON.parse(await third.text())).toMatchObject({
        error: {
          code: 429,
          status: 'RESOURCE_EXHAUSTED',
          message: 'too many open streams: at most 2 per caller; close one, or retry later',
        },
      });
      // Calls that do not stream are not capped.
      expect((await alice.getTask({ tenant: '', id: task.id })).id).toBe(task.id);

      open.shift()!.close();

      const again = await eventually(async () => {
        const stream = await subscribe(stack.url, task.id, 'alice');
        if (stream.status === 200) return stream;
        stream.close();
        return undefined;
      });
      open.push(again);
    } finally {
      for (const stream of open) stream.close();
      await stack.close();
    }
  }, 60_000);
});
