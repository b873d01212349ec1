import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_EXTENSION_CHARACTERS } from '../../functions/core/task/envelope.js';
import { MAX_ID_LENGTH } from '../../functions/handlers/a2a/request-params.js';
import { MAX_REQUEST_BYTES } from '../../functions/handlers/body-limit.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { authorizationFor } from '../support/identity.js';
import { eventually, startStack } from '../support/local-stack.js';

type Json = Record<string, unknown>;
type Binding = 'JSON-RPC' | 'HTTP+JSON';

const ENVELOPE_MEDIA_TYPE = 'application/vnd.tiny-harness.event+json';

/**
 * Every size edge, just under and just over each limit, on both bindings and the real store
 * (DynamoDB Local: 400 KB items, 4 MB transactions): what fits works whole, what does not is
 * refused with a clear error before anything is stored. Never an InternalError for size.
 */
describe('size limits, on both bindings (real DynamoDB Local)', () => {
  let stack: LocalStack;
  let counter = 0;

  beforeAll(async () => {
    stack = await startStack({
      env: { TINY_HARNESS_THROTTLE_PER_MINUTE: '100000', TINY_HARNESS_THROTTLE_BURST: '100000' },
    });
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
  });

  const call = async (binding: Binding, params: Json): Promise<{ status: number; body: Json }> => {
    const headers = {
      'content-type': 'application/json',
      'a2a-version': '1.0',
      ...authorizationFor('alice'),
    };
    const response =
      binding === 'JSON-RPC'
        ? await fetch(`${stack.url}/`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params }),
          })
        : await fetch(`${stack.url}/message:send`, {
            method: 'POST',
            headers,
            body: JSON.stringify(params),
          });
    return { status: response.status, body: (await response.json()) as Json };
  };
  /** The task of an answer, or the error as the binding spells it (code, message). */
  const outcome = (binding: Binding, answer: { status: number; body: Json }) => {
    if (binding === 'JSON-RPC') {
      const { result, error } = answer.body as { result?: { task: Json }; error?: Json };
      return error === undefined
        ? { task: result?.task }
        : { code: error.code, message: error.message as string };
    }
    const error = answer.body.error as Json | undefined;
    return error === undefined
      ? { task: answer.body.task as Json }
      : { code: answer.status, message: error.message as string };
  };
  const invalidParams = (binding: Binding) => (binding === 'JSON-RPC' ? -32602 : 400);
  const message = (fields: Json) => ({
    message: {
      messageId: `size-${++counter}`,
      role: 'ROLE_USER',
      parts: [{ text: 'hello' }],
      ...fields,
    },
    configuration: { returnImmediately: true },
  });
  const tasksOfAlice = async () => {
    const response = await fetch(`${stack.url}/tasks?pageSize=100`, {
      headers: { 'a2a-version': '1.0', ...authorizationFor('alice') },
    });
    return ((await response.json()) as { tasks: Json[] }).tasks.map((task) => task.id).sort();
  };

  for (const binding of ['JSON-RPC', 'HTTP+JSON'] as const) {
    it(`${binding}: a text part that fills the 1 MiB body is taken whole, and read back whole`, async () => {
      const overhead = JSON.stringify(message({ parts: [{ text: '' }] })).length + 200;
      const text = `start ${'é'.repeat(100_000)}${'x'.repeat(MAX_REQUEST_BYTES - overhead - 200_006)}`;
      const params = message({ parts: [{ text }] });
      expect(Buffer.byteLength(JSON.stringify(params))).toBeLessThan(MAX_REQUEST_BYTES);

      const answer = outcome(binding, await call(binding, params));
      const taskId = (answer.task as { id: string }).id;

      const task = await eventually(async () => {
        const response = await fetch(`${stack.url}/tasks/${taskId}?historyLength=10`, {
          headers: { 'a2a-version': '1.0', ...authorizationFor('alice') },
        });
        const read = (await response.json()) as {
          status: { state: string };
          history: Array<{ role: string; parts: Array<{ text?: string }> }>;
        };
        return read.status.state === 'TASK_STATE_INPUT_REQUIRED' ? read : undefined;
      }, 60_000);
      const said = task.history.find((entry) => entry.role === 'ROLE_USER');
      expect(said?.parts[0]?.text).toBe(text);
    }, 90_000);

    it(`${binding}: ids up to ${MAX_ID_LENGTH} characters work; one longer is refused by name, storing nothing`, async () => {
      const fits = outcome(
        binding,
        await call(
          binding,
          message({ messageId: 'm'.repeat(MAX_ID_LENGTH), contextId: 'c'.repeat(MAX_ID_LENGTH) })
        )
      );
      expect(fits.task).toBeDefined();
      const before = await tasksOfAlice();
      for (const [field, fields] of [
        ['messageId', { messageId: 'm'.repeat(MAX_ID_LENGTH + 1) }],
        ['contextId', { contextId: 'c'.repeat(300_000) }],
        ['taskId', { taskId: 't'.repeat(MAX_ID_LENGTH + 1) }],
        ['referenceTaskIds', { referenceTaskIds: ['r'.repeat(MAX_ID_LENGTH + 1)] }],
      ] as const) {
        const refused = outcome(binding, await call(binding, message(fields)));
        expect(refused.code, field).toBe(invalidParams(binding));
        expect(refused.message, field).toMatch(
          new RegExp(`${field}.*longer than ${MAX_ID_LENGTH}`)
        );
      }
      expect(await tasksOfAlice()).toEqual(before);
    });

    it(`${binding}: a task envelope over ${MAX_EXTENSION_CHARACTERS} characters is refused, storing nothing`, async () => {
      const envelope = (description: string) =>
        message({
          parts: [
            {
              data: { kind: 'task', payload: { name: 'Big', goal: 'g', description } },
              mediaType: ENVELOPE_MEDIA_TYPE,
            },
          ],
        });
      const fits = outcome(
        binding,
        await call(binding, envelope('d'.repeat(MAX_EXTENSION_CHARACTERS - 1_000)))
      );
      expect(fits.task).toBeDefined();
      const before = await tasksOfAlice();
      const refused = outcome(binding, await call(binding, envelope('d'.repeat(500_000))));
      expect(refused.code).toBe(invalidParams(binding));
      expect(refused.message).toMatch(/task extension would be \d+ characters as JSON; at most/);
      expect(await tasksOfAlice()).toEqual(before);
    });
  }
});
