import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { PROFILES, profileOf, withProfile } from '../../functions/local/profiles.js';
import { bearerTokensFor } from '../support/identity.js';
import { startStack } from '../support/local-stack.js';
import { type A2aClient, type EventView, rawClient, rest, sdkClient } from './a2a-clients.js';

const CLIENTS = [
  { label: 'the SDK client over JSON-RPC', kind: 'sdk', binding: 'JSONRPC' },
  { label: 'a raw fetch client over HTTP+JSON', kind: 'raw', binding: 'HTTP+JSON' },
] as const;

const shapes = (events: EventView[]) =>
  events.map((event) => `${event.kind}:${event.state.replace('TASK_STATE_', '')}`);

/**
 * `npm start -- --profile conformance` (docs/a2a/conformance.md): the harness plays the agent the
 * A2A conformance kit drives by messageId prefix, through the real stack (the conformance model,
 * delegated client tasks, the synthesized state machine, DynamoDB Local).
 */
describe('the conformance profile', () => {
  let stack: LocalStack;

  beforeAll(async () => {
    stack = await startStack({
      env: {
        ...PROFILES.conformance,
        TINY_HARNESS_BEARER_TOKENS: bearerTokensFor(['tck-sdk', 'tck-raw']),
      },
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  describe.each(CLIENTS)('through $label', ({ kind, binding }) => {
    const client = (): Promise<A2aClient> =>
      kind === 'sdk'
        ? sdkClient(stack.url, `tck-${kind}`, binding)
        : Promise.resolve(rawClient(stack.url, `tck-${kind}`, binding));

    it('streams a task from SUBMITTED through WORKING to COMPLETED, with the scenario’s answer', async () => {
      const tck = await client();

      const events = await rest(
        tck.stream('Stream hello', { messageId: `tck-stream-001-${kind}` })
      );

      expect(shapes(events)).toEqual([
        'task:SUBMITTED',
        'statusUpdate:WORKING',
        'statusUpdate:COMPLETED',
      ]);
      expect(events.at(-1)?.text).toBe('Stream hello from TCK');
    });

    it('asks for input (INPUT_REQUIRED), and completes after the answer', async () => {
      const tck = await client();

      const asking = await tck.send('TCK prerequisite task creation', {
        messageId: `tck-input-required-${kind}`,
      });
      const answered = await tck.send('TCK follow-up', {
        messageId: `tck-complete-task-${kind}`,
        taskId: asking.id,
        contextId: asking.contextId,
      });

      expect(asking.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(answered.state).toBe('TASK_STATE_COMPLETED');
      expect(answered.history.map((message) => message.text)).toEqual([
        'TCK prerequisite task creation',
        expect.stringContaining('TCK follow-up'),
        'Hello from TCK',
      ]);
      const fetched = await tck.getTask(asking.id);
      expect(fetched.state).toBe('TASK_STATE_COMPLETED');
    });

    it('completes a task of any other prefix, saying which one it did not know', async () => {
      const tck = await client();
      const done = await tck.send('hi', { messageId: `unknown-${kind}` });
      expect(done.state).toBe('TASK_STATE_COMPLETED');
      expect(done.history.at(-1)?.text).toBe(`Unhandled messageId prefix: unknown-${kind}`);
    });
  });
});

describe('npm start profiles', () => {
  it('reads --profile NAME and --profile=NAME, and refuses one it does not know', () => {
    expect(profileOf(['--in-memory'])).toBeUndefined();
    expect(profileOf(['--profile', 'conformance'])).toBe('conformance');
    expect(profileOf(['--profile=conformance', '--in-memory'])).toBe('conformance');
    expect(() => profileOf(['--profile', 'fast'])).toThrow(/unknown profile "fast".*conformance/);
    expect(() => profileOf(['--profile'])).toThrow(/unknown profile/);
  });

  it('puts the profile’s defaults under what the environment already sets', () => {
    const env = withProfile(
      { TINY_HARNESS_THROTTLE_BURST: '5', TINY_HARNESS_PORT: undefined },
      'conformance'
    );
    expect(env).toMatchObject({
      TINY_HARNESS_MODEL_PROVIDER: 'conformance',
      TINY_HARNESS_TASK_LIFECYCLE: 'delegated',
      TINY_HARNESS_THROTTLE_BURST: '5',
    });
    expect(withProfile({ A: '1' }, undefined)).toEqual({ A: '1' });
  });
});
