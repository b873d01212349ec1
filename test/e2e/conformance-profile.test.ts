import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRuntimeConfig } from '../../functions/composition/runtime-config.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { PROFILES, profileOf, withProfile } from '../../functions/local/profiles.js';
import { startKitProxy } from '../../scripts/kit-proxy.js';
import { authorizationFor, bearerTokensFor, tokenFor } from '../support/identity.js';
import { startStack } from '../support/local-stack.js';
import { readSse } from '../support/sse.js';
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

  it('raises the stream cap above the default, which the kit outruns', () => {
    const defaults = readRuntimeConfig({
      TINY_HARNESS_TABLE: 't',
      TINY_HARNESS_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:t',
    });
    expect(stack.runtime.config.TINY_HARNESS_STREAMS_PER_CALLER).toBe(1000);
    expect(defaults.TINY_HARNESS_STREAMS_PER_CALLER).toBe(4);
  });

  it('lets one caller hold more streams at once than the default allows', async () => {
    const headers = { ...authorizationFor('tck-raw'), 'A2A-Version': '1.0' };
    const send = async (messageId: string, taskId?: string) =>
      (await (
        await fetch(`${stack.url}/message:send`, {
          method: 'POST',
          headers: { ...headers, 'Content-Type': 'application/json' },
          body: JSON.stringify({
            message: { messageId, taskId, role: 'ROLE_USER', parts: [{ text: 'hi' }] },
          }),
        })
      ).json()) as { task: { id: string; status: { state: string } } };
    const asking = await send('tck-input-required-cap');
    expect(asking.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');

    // A subscription to a task waiting for input stays open until the task moves on.
    const streams = await Promise.all(
      Array.from({ length: 8 }, () =>
        fetch(`${stack.url}/tasks/${asking.task.id}:subscribe`, {
          headers: { ...headers, Accept: 'text/event-stream' },
        })
      )
    );
    const answered = await send('tck-complete-task-cap', asking.task.id);
    const read = await Promise.all(streams.map((stream) => stream.text()));

    expect(streams.map((stream) => stream.status)).toEqual(Array(8).fill(200));
    expect(answered.task.status.state).toBe('TASK_STATE_COMPLETED');
    for (const text of read) expect(text).toContain('TASK_STATE_COMPLETED');
  });

  describe.each(CLIENTS)('through $label', ({ kind, binding }) => {
    const client = (): Promise<A2aClient> =>
      kind === 'sdk'
        ? sdkClient(stack.url, `tck-${kind}`, binding)
        : Promise.resolve(rawClient(stack.url, `tck-${kind}`, binding));

    it('streams a task from WORKING to COMPLETED, with the scenario’s answer', async () => {
      const tck = await client();

      const events = await rest(
        tck.stream('Stream hello', { messageId: `tck-stream-001-${kind}` })
      );

      // The answer comes as an artifact too, before the end: clients that read results from
      // artifacts (the kit's artifact scenarios) find it there.
      // The creation took the message in: the task is WORKING from its first write.
      expect(shapes(events)).toEqual(['task:WORKING', 'artifactUpdate:', 'statusUpdate:COMPLETED']);
      expect(events.at(-1)?.text).toBe('Stream hello from TCK');
      const done = await tck.getTask(events[0]?.taskId ?? '');
      expect(done.artifacts).toEqual([
        expect.objectContaining({ name: 'answer', text: 'Stream hello from TCK' }),
      ]);
    });

    it('answers the data artifact scenario with the data part first', async () => {
      const tck = await client();
      const done = await tck.send('TCK artifact test', { messageId: `tck-artifact-data-${kind}` });
      expect(done.state).toBe('TASK_STATE_COMPLETED');
      expect(done.artifacts).toEqual([
        expect.objectContaining({
          name: 'answer',
          kinds: ['data', 'text'],
          data: { key: 'value', count: 42 },
        }),
      ]);
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

describe('the kit proxy (npm run kit-proxy)', () => {
  let stack: LocalStack;
  let proxy: Awaited<ReturnType<typeof startKitProxy>>;

  beforeAll(async () => {
    stack = await startStack({
      env: { ...PROFILES.conformance, TINY_HARNESS_BEARER_TOKENS: bearerTokensFor(['kit']) },
    });
    proxy = await startKitProxy({ target: stack.url, token: tokenFor('kit'), port: 0 });
  });
  afterAll(async () => {
    await proxy?.close();
    await stack?.close();
  });

  it('advertises itself in the agent card, so a client that follows the card goes through it', async () => {
    const card = (await (await fetch(`${proxy.url}/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: Array<{ url: string }>;
    };
    expect(card.supportedInterfaces.map((entry) => entry.url)).toEqual([proxy.url, proxy.url]);
  });

  it('adds the bearer token and A2A-Version a client without them does not send, and passes streams through', async () => {
    const send = await fetch(`${proxy.url}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: {
          message: {
            messageId: 'tck-complete-task-proxy',
            role: 'ROLE_USER',
            parts: [{ text: 'hi' }],
          },
        },
      }),
    });
    const answer = (await send.json()) as { result: { task: { status: { state: string } } } };
    expect(answer.result.task.status.state).toBe('TASK_STATE_COMPLETED');

    const stream = await fetch(`${proxy.url}/message:stream`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        message: { messageId: 'tck-stream-003-proxy', role: 'ROLE_USER', parts: [{ text: 'go' }] },
      }),
    });
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const frames: string[] = [];
    for await (const entry of readSse(stream.body as unknown as AsyncIterable<Uint8Array>)) {
      if (entry.kind === 'frame') frames.push(entry.frame.data);
    }
    expect(frames.at(-1)).toContain('TASK_STATE_COMPLETED');
  });

  it('keeps an A2A-Version the client sent', async () => {
    const answer = await fetch(`${proxy.url}/tasks`, { headers: { 'A2A-Version': '0.3' } });
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('VERSION_NOT_SUPPORTED');
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
