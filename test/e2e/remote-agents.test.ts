import { type Message, type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TASK_METADATA_KEY, USAGE_METADATA_KEY } from '../../functions/core/a2a/identifiers.js';
import { userTextMessage } from '../../functions/core/loop/messages.js';
import type { RemoteLink } from '../../functions/core/remote/remote-link.js';
import type { SubTaskRow, TaskExtension } from '../../functions/core/task/extension.schema.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { type CardServer, startCardServer } from '../support/card-server.js';
import { bearerTokensFor, TEST_BEARER_TOKENS, tokenFor } from '../support/identity.js';
import { KeyedModel } from '../support/keyed-model.js';
import { clientFor, eventually, startStack } from '../support/local-stack.js';

/**
 * Two stacks on loopback, one the other's remote agent: `alpha` (tasks from clients are
 * delegated) knows `ledger` by its card, and calls it with the bearer token `ledger` knows as
 * the participant `alpha`. Each stack plays scripts keyed by a marker in each task's text.
 */

let counter = 0;
const message = (text: string, taskId = ''): Message =>
  userTextMessage({ messageId: `remote-${Date.now()}-${++counter}`, text, taskId, contextId: '' });

const send = (client: Client, text: string) =>
  client.sendMessage({
    tenant: '',
    message: message(text),
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      historyLength: 0,
      returnImmediately: true,
    },
    metadata: undefined,
  }) as Promise<Task>;

const extensionOf = (task: Task) => task.metadata?.[TASK_METADATA_KEY] as TaskExtension;
const rowsOf = (task: Task): SubTaskRow[] => extensionOf(task).sub_tasks;

const spawnOn = (agent: string, goal: string, step: string | null = null) => ({
  toolCalls: [
    { name: 'spawn_subtask', arguments: { name: 'Books', goal, agent, ...(step ? { step } : {}) } },
  ],
});

describe('children on another A2A agent: two local stacks', () => {
  const alphaModel = new KeyedModel();
  const ledgerModel = new KeyedModel();
  let ledger: LocalStack;
  let alpha: LocalStack;
  let cards: CardServer;
  let alice: Client;
  let ledgerAsAlpha: Client;

  beforeAll(async () => {
    ledger = await startStack({
      model: ledgerModel,
      env: {
        TINY_HARNESS_AGENT_ID: 'ledger',
        TINY_HARNESS_BEARER_TOKENS: `${TEST_BEARER_TOKENS},${bearerTokensFor(['alpha'])}`,
        // Its pushes go to alpha's webhook on loopback.
        TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS: 'true',
      },
    });
    const ledgerCard = `${ledger.url}/.well-known/agent-card.json`;
    cards = await startCardServer({
      // The same agent, its card saying it sends no push notifications.
      '/polled.json': async () => {
        const card = (await (await fetch(ledgerCard)).json()) as Record<string, unknown>;
        return {
          ...card,
          capabilities: { ...(card.capabilities as object), pushNotifications: false },
        };
      },
    });
    const auth = { type: 'bearer', token: { env: 'LEDGER_TOKEN' } };
    alpha = await startStack({
      model: alphaModel,
      env: {
        TINY_HARNESS_AGENT_ID: 'alpha',
        TINY_HARNESS_LOG_LEVEL: process.env.DEBUG_LOG ?? 'error',
        TINY_HARNESS_TASK_LIFECYCLE: 'delegated',
        LEDGER_TOKEN: tokenFor('alpha'),
        TINY_HARNESS_REMOTE_AGENTS: JSON.stringify({
          // Pushed: a poll only every minute, so a change seen sooner came by push.
          ledger: { card: ledgerCard, description: 'keeps the books', auth, maxPollSeconds: 60 },
          'ledger-polled': {
            card: `${cards.url}/polled.json`,
            auth,
            pollSeconds: 1,
            maxPollSeconds: 1,
            unreachableSeconds: 3,
          },
        }),
      },
    });
    alice = await clientFor(alpha, 'alice');
    ledgerAsAlpha = await clientFor(ledger, 'alpha');
  }, 120_000);

  afterAll(async () => {
    await alpha?.close();
    await ledger?.close();
    await cards?.close();
  });

  const linkOf = async (parentId: string): Promise<RemoteLink> => {
    const [link] = await alpha.runtime.remote.links.list(parentId);
    if (link === undefined) throw new Error(`no remote link under ${parentId}`);
    return link;
  };

  const settled = (taskId: string, state: TaskState, timeoutMs = 30_000) =>
    eventually(async () => {
      const task = await alice.getTask({ tenant: '', id: taskId });
      return task.status?.state === state ? task : undefined;
    }, timeoutMs);

  it('a delegated parent spawns a child on ledger, parks, sees the row change on its stream by push, reads the result and completes; the usage tree sums both stacks', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    alphaModel.script(
      '[push-parent]',
      {
        toolCalls: [
          {
            name: 'create_plan',
            arguments: { steps: [{ name: 'Books', description: 'Have the books balanced' }] },
          },
        ],
      },
      spawnOn('ledger', 'Balance the books [push-child]', 'Books'),
      { text: 'Waiting for the ledger.' },
      { text: 'The books balance: done.' }
    );
    ledgerModel.script('[push-child]', { text: 'Balanced: 42 entries, no difference.' });
    ledgerModel.hold('[push-child]', 0, gate);

    const parent = await send(alice, 'Close the quarter [push-parent]');
    // Parked on its token, waiting for its child.
    const waiting = await eventually(async () => {
      const record = await alpha.runtime.loop.store.get(parent.id);
      return record?.loop.parkToken != null ? record : undefined;
    });
    const [row] = rowsOf(waiting.task);
    expect(row?.agent).toEqual({ kind: 'agent', id: 'ledger', version: null });
    // The row names the child's own task, on ledger.
    const child = await ledgerAsAlpha.getTask({ tenant: '', id: row?.task_id ?? '' });
    expect(child.id).toBe(row?.task_id);
    expect(extensionOf(child).parent_tasks).toEqual([
      { task_id: parent.id, agent: { kind: 'agent', id: 'alpha', version: null } },
    ]);
    expect(extensionOf(child).lifecycle).toBe('delegated');
    const link = await linkOf(parent.id);
    expect(link.delivery).toBe('push');
    const [push] = (
      await ledgerAsAlpha.listTaskPushNotificationConfig({
        tenant: '',
        taskId: child.id,
        pageSize: 10,
        pageToken: '',
      })
    ).configs;
    expect(push?.url).toBe(`${alpha.url}/remote-agents/push/${parent.id}/${link.linkId}`);

    const stream = alice.resubscribeTask({ tenant: '', id: parent.id });
    const seen: StreamResponse[] = [];
    const started = Date.now();
    const followed = (async () => {
      for await (const event of stream) seen.push(event);
    })();
    release();
    await followed;
    const done = await settled(parent.id, TaskState.TASK_STATE_COMPLETED);
    // Seen by push: the follower polls only once a minute.
    expect(Date.now() - started).toBeLessThan(30_000);

    const rowStates = seen.flatMap((event) =>
      event.payload?.$case === 'task' ? [rowsOf(event.payload.value)[0]?.state] : []
    );
    expect(rowStates).toContain('TASK_STATE_COMPLETED');
    expect(rowsOf(done)[0]?.state).toBe('TASK_STATE_COMPLETED');
    expect(extensionOf(done).plan?.steps[0]?.linked_tasks).toEqual([
      { task_id: child.id, agent: { kind: 'agent', id: 'ledger', version: null } },
    ]);
    // The parent's last turn read the child's result, framed as another agent's words.
    const lastRequest = alphaModel.requestsOf('[push-parent]').at(-1);
    const note = lastRequest?.input.find(
      (item) => item.type === 'message' && item.text.includes('on agent ledger')
    );
    expect(note?.type === 'message' && note.text).toMatch(
      /<untrusted source="agent">[\s\S]*is TASK_STATE_COMPLETED: Balanced: 42 entries, no difference\./
    );

    // The usage tree: the parent's 4 model calls here, the child's 1 on ledger.
    const usage = done.metadata?.[USAGE_METADATA_KEY] as {
      model_calls: number;
      tree: { model_calls: number; unknown: string[] };
    };
    expect(usage.model_calls).toBe(4);
    expect(usage.tree).toMatchObject({ model_calls: 5, unknown: [] });
  });
});
