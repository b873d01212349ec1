import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message, Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import type { Model } from '../../functions/core/ports/model.js';
import { type LocalStack, startLocalStack } from '../../functions/local/local-stack.js';
import { WEB_DIST } from '../../functions/local/web-site.js';
import { TEST_BEARER_TOKENS, tokenFor } from './identity.js';

/** A fetch that asserts the participant, as a client of the interim identity does. */
export const fetchAs =
  (participantId: string): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${tokenFor(participantId)}`);
    return fetch(input, { ...init, headers });
  };

/** The real @a2a-js/sdk client, over HTTP, for one participant. */
export const clientFor = async (stack: LocalStack, participantId: string): Promise<Client> =>
  new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl: fetchAs(participantId) })],
  }).createFromUrl(stack.url);

export const startStack = async (options: {
  model?: Model;
  env?: Record<string, string>;
  dataDir?: string;
  /** Serve the web renderer (web/dist) at `/`, acting as this participant. */
  webAs?: string;
}): Promise<LocalStack> =>
  startLocalStack({
    port: 0,
    dataDir: options.dataDir,
    model: options.model,
    web:
      options.webAs === undefined
        ? undefined
        : {
            dir: WEB_DIST,
            identity: { token: tokenFor(options.webAs), participant: options.webAs },
          },
    env: {
      TINY_HARNESS_LOG_LEVEL: 'error',
      TINY_HARNESS_BEARER_TOKENS: TEST_BEARER_TOKENS,
      ...options.env,
    },
  });

export const temporaryDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'tiny-harness-e2e-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
};

export const asTask = (result: Message | Task): Task => {
  if (!('status' in result)) throw new Error('expected a Task, got a Message');
  return result;
};

/**
 * Polls until `check` returns a value (not undefined), or fails after `timeoutMs`; the failure
 * says what `explain` finds then (the state a rare timeout on a loaded machine was stuck in).
 */
export const eventually = async <T>(
  check: () => Promise<T | undefined>,
  // A loaded CI machine took more than 15 s for a child's end to reach its parent (alone: 0.4 s).
  timeoutMs = 25_000,
  explain?: () => Promise<unknown>
): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  // Quick at first, then no faster than the local throttle refills (120 a minute, so 500 ms):
  // a slow machine polling every 50 ms spent the burst of 30 and was refused with a 429.
  for (let pause = 50; ; pause = Math.min(pause * 1.5, 500)) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      const found = explain === undefined ? undefined : await explain().catch(String);
      throw new Error(
        found === undefined
          ? 'condition not met in time'
          : `condition not met in time; found: ${JSON.stringify(found, null, 1)}`
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
};

/**
 * Where a task on the stack stands, for a failure message: its state, its loop's park and claimed
 * tokens and inbox, and the last events of each of its executions.
 */
export const whereTaskStands = async (stack: LocalStack, taskId: string) => {
  const record = await stack.runtime.loop.store.get(taskId);
  const inbox = await stack.runtime.loop.store.readInbox(taskId);
  const { executions } = await stack.engine.listExecutions({
    stateMachineArn: stack.stateMachineArn,
  });
  const ours = (executions ?? []).filter((execution) => execution.name?.startsWith(taskId));
  return {
    state: record?.task.status?.state,
    version: record?.version,
    loop: {
      generation: record?.loop.generation,
      parked: record?.loop.parkToken != null,
      claimed: record?.loop.claimedToken != null,
    },
    inbox: inbox.map((item) => item.kind),
    executions: ours.map((execution) => {
      const { events } = stack.engine.getExecutionHistory({
        executionArn: execution.executionArn ?? '',
        reverseOrder: true,
        maxResults: 6,
        includeExecutionData: false,
      });
      return {
        name: execution.name,
        status: execution.status,
        last: (events ?? []).map((event) => event.type),
      };
    }),
  };
};
