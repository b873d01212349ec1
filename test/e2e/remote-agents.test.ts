import { type Message, type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRemoteAgents } from '../../functions/composition/remote-agents.js';
import { readRuntimeConfig } from '../../functions/composition/runtime-config.js';
import { TASK_METADATA_KEY, USAGE_METADATA_KEY } from '../../functions/core/a2a/identifiers.js';
import { ConcurrencyConflictError } from '../../functions/core/errors.js';
import { childBrief } from '../../functions/core/loop/children.js';
import { userTextMessage } from '../../functions/core/loop/messages.js';
import type { RemoteLink } from '../../functions/core/remote/remote-link.js';
import type { SubTaskRow, TaskExtension } from '../../functions/core/task/extension.schema.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { type CardServer, startCardServer } from '../support/card-server.js';
import { tokenFor } from '../support/identity.js';
import { KeyedModel } from '../support/keyed-model.js';
import { clientFor, eventually, startStack } from '../support/local-stack.js';
import { startLedger, UNTHROTTLED } from '../support/remote-agent.js';

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

/** A reply of ledger's model: a question to alpha, who gave it the task. */
const askAlpha = (question: string) => ({
  toolCalls: [{ name: 'ask_participant', arguments: { participant_id: 'alpha', question } }],
});

/** A model reply attaching a plan of one step. */
const planOf = (step: string) => ({
  toolCalls: [
    { name: 'create_plan', arguments: { steps: [{ name: step, description: `${step}, done` }] } },
  ],
});

const spawnOn = (agent: string, goal: string, step: string | null = null) => ({
  toolCalls: [
    { name: 'spawn_subtask', arguments: { name: 'Books', goal, agent, ...(step ? { step } : {}) } },
  ],
});

describe('children on another A2A agent: two local stacks', () => {
  const alphaModel = new KeyedModel();
  const ledgerModel = new KeyedModel();
  let ledger: LocalStack;
  let ledgerStopped = false;
  let alpha: LocalStack;
  let cards: CardServer;
  let alice: Client;
  let ledgerAsAlpha: Client;

  beforeAll(async () => {
    ledger = await startLedger(ledgerModel);
    const ledgerCard = `${ledger.url}/.well-known/agent-card.json`;
    const card = (await (await fetch(ledgerCard)).json()) as Record<string, unknown>;
    cards = await startCardServer(
      {
        // The same agent, its card saying it sends no push notifications, reached through this
        // server (an endpoint is called at its card's origin only).
        '/polled.json': () => ({
          ...card,
          supportedInterfaces: (card.supportedInterfaces as Array<{ url: string }>).map(
            (entry) => ({ ...entry, url: entry.url.replace(ledger.url, cards.url) })
          ),
          capabilities: { ...(card.capabilities as object), pushNotifications: false },
        }),
        // An agent that speaks A2A 0.3 only.
        '/v03.json': () => ({
          name: 'old-ledger',
          description: 'an A2A 0.3 agent',
          protocolVersion: '0.3.0',
          url: ledger.url,
          preferredTransport: 'JSONRPC',
          version: '1.0.0',
          capabilities: { streaming: false, pushNotifications: false },
          defaultInputModes: ['text/plain'],
          defaultOutputModes: ['text/plain'],
          skills: [],
        }),
      },
      { upstream: ledger.url }
    );
    const auth = { type: 'bearer', token: { env: 'LEDGER_TOKEN' } };
    alpha = await startStack({
      model: alphaModel,
      env: {
        TINY_HARNESS_AGENT_ID: 'alpha',
        TINY_HARNESS_LOG_LEVEL: process.env.DEBUG_LOG ?? 'error',
        TINY_HARNESS_TASK_LIFECYCLE: 'delegated',
        // It calls ledger over http on loopback.
        TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS: 'true',
        ...UNTHROTTLED,
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
    if (!ledgerStopped) await ledger?.close();
    await cards?.close();
  });

  const linkOf = async (parentId: string): Promise<RemoteLink> => {
    const [link] = await alpha.runtime.remote.links.list(parentId);
    if (link === undefined) throw new Error(`no remote link under ${parentId}`);
    return link;
  };

  /**
   * Stops the link's follower executions still running (one sleeping until its next poll would
   * otherwise wake and write the link under a test that rewrites it).
   */
  const stopFollowers = async (link: RemoteLink): Promise<void> => {
    const { executions } = await alpha.engine.listExecutions({
      stateMachineArn: alpha.followStateMachineArn,
      statusFilter: 'RUNNING',
    });
    // A follower's execution is named by its link (and run).
    for (const execution of executions ?? []) {
      if (execution.name?.includes(link.linkId) && execution.executionArn !== undefined) {
        await alpha.engine.stopExecution({ executionArn: execution.executionArn });
      }
    }
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
      planOf('Books'),
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

  it('the same by polling, when the card offers no push notifications; the card is revalidated by its ETag', async () => {
    alphaModel.script(
      '[poll-parent]',
      spawnOn('ledger-polled', 'Count the receipts [poll-child]'),
      { text: 'Waiting for the count.' },
      { text: 'Counted.' }
    );
    ledgerModel.script('[poll-child]', { text: '17 receipts.' });

    const parent = await send(alice, 'Count the receipts [poll-parent]');
    const done = await settled(parent.id, TaskState.TASK_STATE_COMPLETED);
    const [row] = rowsOf(done);
    expect(row).toMatchObject({
      agent: { kind: 'agent', id: 'ledger-polled', version: null },
      state: 'TASK_STATE_COMPLETED',
    });
    const link = await linkOf(parent.id);
    expect(link).toMatchObject({
      delivery: 'poll',
      tokenHash: null,
      state: 'TASK_STATE_COMPLETED',
    });
    const { configs } = await ledgerAsAlpha.listTaskPushNotificationConfig({
      tenant: '',
      taskId: row?.task_id ?? '',
      pageSize: 10,
      pageToken: '',
    });
    expect(configs).toEqual([]);
    const note = alphaModel
      .requestsOf('[poll-parent]')
      .at(-1)
      ?.input.find((item) => item.type === 'message' && item.text.includes('17 receipts.'));
    expect(note).toBeDefined();
    // Asked again with If-None-Match, and answered 304: the card was not read twice.
    const asked = cards.requests.filter((request) => request.path === '/polled.json');
    expect(asked.some((request) => request.status === 304 && request.ifNoneMatch)).toBe(true);
  });

  it("a remote child's question is news: the parent's model reads it; cancelling the parent cancels the child on its agent", async () => {
    alphaModel.script(
      '[ask-parent]',
      spawnOn('ledger', 'Reconcile the invoices [ask-child]'),
      { text: 'Waiting for the invoices.' },
      { text: 'The ledger needs a currency; waiting.' }
    );
    ledgerModel.script('[ask-child]', askAlpha('Which currency, EUR or USD?'));
    const parent = await send(alice, 'Reconcile [ask-parent]');
    await eventually(async () =>
      alphaModel.requestsOf('[ask-parent]').length === 3 ? true : undefined
    );
    const question = alphaModel
      .requestsOf('[ask-parent]')[2]
      ?.input.find((item) => item.type === 'message' && item.text.includes('asks: Which'));
    expect(question?.type === 'message' && question.text).toMatch(
      /Sub-task \S+ \(on agent ledger\) asks: Which currency, EUR or USD\?/
    );
    const asked = await eventually(async () => {
      const task = await alice.getTask({ tenant: '', id: parent.id });
      return rowsOf(task)[0]?.sub_state === 'awaiting-answer' ? task : undefined;
    });
    const childId = rowsOf(asked)[0]?.task_id ?? '';

    const canceled = await alice.cancelTask({ tenant: '', id: parent.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const child = await eventually(async () => {
      const task = await ledgerAsAlpha.getTask({ tenant: '', id: childId });
      return task.status?.state === TaskState.TASK_STATE_CANCELED ? task : undefined;
    });
    expect(child.id).toBe(childId);
    // The parent's row follows the child to its end, and the cancel is recorded as sent.
    await eventually(async () => {
      const task = await alice.getTask({ tenant: '', id: parent.id });
      return rowsOf(task)[0]?.state === 'TASK_STATE_CANCELED' ? task : undefined;
    });
    const link = await linkOf(parent.id);
    expect(link.cancel).toMatchObject({ done: true, attempts: 1, lastError: null });
  });

  it('a retried creation finds the child the first one made, and never makes a second', async () => {
    alphaModel.script(
      '[retry-parent]',
      {
        toolCalls: [
          { name: 'ask_participant', arguments: { participant_id: 'alice', question: 'Go on?' } },
        ],
      },
      { text: 'Noted.' },
      { text: 'Noted again.' }
    );
    ledgerModel.script('[retry-child]', { text: 'Done, once.' });
    const parent = await send(alice, 'Wait for me [retry-parent]');
    const record = await eventually(async () => {
      const stored = await alpha.runtime.loop.store.get(parent.id);
      return stored?.loop.parkToken != null ? stored : undefined;
    });
    const request = childBrief({
      parent: record,
      command: {
        kind: 'spawn_subtask',
        name: 'Once',
        goal: 'Do it once [retry-child]',
        acceptanceCriteria: [],
        agent: 'ledger',
        stepId: null,
        budget: null,
      },
      messageId: `${parent.id}:1:1:call-once`,
      agentId: 'alpha',
    });
    const { agents } = alpha.runtime.loop;
    const first = await agents.createChild(request);
    // The step retried after its commit failed: the link names the child.
    const second = await agents.createChild(request);
    expect(second.taskId).toBe(first.taskId);
    // Once its follower is done with it (the child ended and its parent took the ending) ...
    const ended = await eventually(async () => {
      const current = await linkOf(parent.id);
      return current.phase === 'ended' && current.delivered === current.seq ? current : undefined;
    });
    // ... and stopped (one waiting for its next poll would read the link we rewrite) ...
    await stopFollowers(ended);
    // ... the step retried after a crash between the agent's answer and the link's write: the
    // link still says `creating`, and the agent is asked for the task its message made. A late
    // write to the link (a push that was on its way) refuses the step, as the state's retry
    // would be: the link is set back to `creating` and the step runs again.
    const retriedStep = async (attempt = 1): Promise<{ taskId: string }> => {
      try {
        const link = await linkOf(parent.id);
        await alpha.runtime.remote.links.update({
          ...link,
          phase: 'creating',
          remoteTaskId: null,
          seq: 0,
          delivered: 0,
          version: link.version + 1,
        });
        return await agents.createChild(request);
      } catch (error) {
        if (!(error instanceof ConcurrencyConflictError) || attempt >= 3) throw error;
        return retriedStep(attempt + 1);
      }
    };
    const third = await retriedStep();
    expect(third.taskId).toBe(first.taskId);

    const { tasks } = await ledgerAsAlpha.listTasks({
      tenant: '',
      contextId: '',
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageSize: 100,
      pageToken: '',
      historyLength: 10,
      statusTimestampAfter: undefined,
      includeArtifacts: false,
    });
    const made = tasks.filter((task) =>
      task.history.some((entry) => entry.messageId === request.message.messageId)
    );
    expect(made.map((task) => task.id)).toEqual([first.taskId]);
  });

  it('refuses, when registered, an agent whose card offers A2A 0.3 only: the stack does not start', async () => {
    const directory = JSON.stringify({ 'old-ledger': { card: `${cards.url}/v03.json` } });
    const agents = buildRemoteAgents(
      readRuntimeConfig({
        TINY_HARNESS_TABLE: 'unused',
        TINY_HARNESS_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:x',
        TINY_HARNESS_REMOTE_AGENTS: directory,
      })
    );
    const expected =
      /remote agent old-ledger is refused: its card offers A2A 0\.3\.0 over JSONRPC at http:\/\/127\.0\.0\.1:\d+; tiny-harness calls A2A 1\.0 over JSONRPC or HTTP\+JSON/;
    const [registration] = await agents.register();
    expect(registration?.outcome).toBe('refused');
    expect(registration?.outcome === 'refused' && registration.reason).toMatch(expected);
    await expect(startStack({ env: { TINY_HARNESS_REMOTE_AGENTS: directory } })).rejects.toThrow(
      expected
    );
  }, 60_000);

  it('a remote agent stopped mid-task: the child FAILED with the reason on its row and in the note, its step failed, the parent went on', async () => {
    alphaModel.script(
      '[down-parent]',
      planOf('Audit'),
      spawnOn('ledger-polled', 'Audit the accounts [down-child]', 'Audit'),
      { text: 'Waiting for the audit.' },
      { text: 'The auditor has a question; waiting.' },
      { text: 'The audit could not be done: the ledger went away.' }
    );
    ledgerModel.script('[down-child]', askAlpha('Which year?'));
    const parent = await send(alice, 'Audit [down-parent]');
    await eventually(async () => {
      const task = await alice.getTask({ tenant: '', id: parent.id });
      return rowsOf(task)[0]?.sub_state === 'awaiting-answer' ? task : undefined;
    });

    ledgerStopped = true;
    await ledger.close();
    const done = await settled(parent.id, TaskState.TASK_STATE_COMPLETED);
    const [row] = rowsOf(done);
    expect(row?.state).toBe('TASK_STATE_FAILED');
    expect(row?.reason).toMatch(
      /^agent ledger-polled has not answered for \d+ s \(the limit is 3 s\): GetTask on ledger-polled: it answered HTTP 502/
    );
    expect(extensionOf(done).plan?.steps[0]?.state).toBe('failed');
    const note = alphaModel
      .requestsOf('[down-parent]')
      .at(-1)
      ?.input.find((item) => item.type === 'message' && item.text.includes('has not answered'));
    expect(note?.type === 'message' && note.text).toMatch(
      /^<untrusted source="agent">[\s\S]*\(on agent ledger-polled\) is TASK_STATE_FAILED: agent ledger-polled has not answered for/
    );
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  }, 60_000);
});
