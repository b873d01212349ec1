import { type Message, type Task, TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userTextMessage } from '../../functions/core/loop/messages.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { authorizationFor, tokenFor } from '../support/identity.js';
import { KeyedModel } from '../support/keyed-model.js';
import { clientFor, eventually, startStack } from '../support/local-stack.js';
import { serveNotesOverHttp } from '../support/mcp-notes-stateless-http.js';
import { envelopeMessage } from '../support/messages.js';
import { startLedger, UNTHROTTLED } from '../support/remote-agent.js';
import { type ReceivedSpan, startOtlpReceiver } from './tracing-otlp-receiver.js';

let counter = 0;
const message = (text: string, taskId = ''): Message =>
  userTextMessage({ messageId: `trace-${Date.now()}-${++counter}`, text, taskId, contextId: '' });
const request = (sent: Message) => ({
  tenant: '',
  message: sent,
  configuration: {
    acceptedOutputModes: [],
    taskPushNotificationConfig: undefined,
    historyLength: 0,
    returnImmediately: true,
  },
  metadata: undefined,
});

/** The collector's credential: sent to it, and never on a span. */
const COLLECTOR_KEY = 'collector-key-9f2d41c7e8';

/**
 * A delegation tree traced through two local stacks into one OTLP receiver: `alpha` runs the
 * parent, a child on itself and a child on `ledger` (a remote agent), and an MCP call that waits
 * for the reporter's approval. The spans come from the SDK's own OTLP/HTTP exporter.
 */
describe('OpenTelemetry traces of a delegation tree', () => {
  const alphaModel = new KeyedModel();
  const ledgerModel = new KeyedModel();
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let notes: Awaited<ReturnType<typeof serveNotesOverHttp>>;
  let ledger: LocalStack;
  let alpha: LocalStack;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    notes = await serveNotesOverHttp();
    const tracing = (service: string) => ({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_HEADERS: `x-collector-key=${COLLECTOR_KEY}`,
      OTEL_SERVICE_NAME: service,
    });
    ledger = await startLedger(ledgerModel, tracing('ledger'));
    alpha = await startStack({
      model: alphaModel,
      env: {
        TINY_HARNESS_AGENT_ID: 'alpha',
        TINY_HARNESS_TASK_LIFECYCLE: 'delegated',
        TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS: 'true',
        TINY_HARNESS_MODEL_PRICES: JSON.stringify({
          scripted: { input: 1, output: 2 },
        }),
        ...UNTHROTTLED,
        ...tracing('alpha'),
        LEDGER_TOKEN: tokenFor('alpha'),
        TINY_HARNESS_REMOTE_AGENTS: JSON.stringify({
          ledger: {
            card: `${ledger.url}/.well-known/agent-card.json`,
            description: 'keeps the books',
            auth: { type: 'bearer', token: { env: 'LEDGER_TOKEN' } },
          },
        }),
        TINY_HARNESS_MCP_SERVERS: JSON.stringify({
          notes: {
            url: notes.url,
            tools: ['delete_note'],
            approval: { approvers: ['reporter', 'admin'] },
          },
        }),
      },
    });
  }, 120_000);

  afterAll(async () => {
    await alpha?.close();
    await ledger?.close();
    await notes?.close();
    await receiver?.close();
  });

  it('one connected trace: every model and tool call with the conventions’ attributes, the remote child linked through traceparent, no secret on any span', async () => {
    alphaModel.script(
      '[tree-parent]',
      {
        toolCalls: [
          {
            name: 'spawn_subtask',
            arguments: { name: 'Count', goal: 'Count the stock [tree-local]' },
          },
          {
            name: 'spawn_subtask',
            arguments: { name: 'Books', goal: 'Balance the books [tree-remote]', agent: 'ledger' },
          },
          { name: 'notes__delete_note', arguments: { id: 'stale' } },
        ],
      },
      { text: 'Waiting for the children.' },
      { text: 'All done.' },
      { text: 'All done.' },
      { text: 'All done.' }
    );
    alphaModel.script('[tree-local]', { text: 'Counted: 12.' });
    ledgerModel.script('[tree-remote]', { text: 'Balanced.' });

    const alice = await clientFor(alpha, 'alice');
    const parent = (await alice.sendMessage(
      request(message('Close the quarter [tree-parent]'))
    )) as Task;
    // The delete waits, parked, for the reporter's approval; alice asked, so she may give it.
    await eventually(async () => {
      const record = await alpha.runtime.loop.store.get(parent.id);
      return record?.loop.approvals.length && record.loop.parkToken != null ? record : undefined;
    }, 30_000);
    await alice.sendMessage(
      request({
        ...envelopeMessage('control', { action: 'approve' }),
        messageId: `trace-approve-${Date.now()}`,
        taskId: parent.id,
      })
    );
    await eventually(async () => {
      const task = await alice.getTask({ tenant: '', id: parent.id });
      return task.status?.state === TaskState.TASK_STATE_COMPLETED ? task : undefined;
    }, 60_000);
    expect(notes.calls).toEqual([{ tool: 'delete_note', args: { id: 'stale' } }]);

    // Every function flushes its spans as its invocation ends; the last ones may still be on the way.
    const spansOf = (service: string) => receiver.spans.filter((span) => span.service === service);
    await eventually(
      async () =>
        spansOf('alpha').some(
          (span) =>
            span.name === 'turn' &&
            span.attributes['tiny_harness.task.id'] === parent.id &&
            span.attributes['tiny_harness.route'] === 'end'
        ) &&
        spansOf('alpha').filter((span) => span.attributes['gen_ai.operation.name'] === 'chat')
          .length === alphaModel.requests.length &&
        spansOf('ledger').some((span) => span.attributes['gen_ai.operation.name'] === 'chat')
          ? true
          : undefined,
      20_000
    );
    const alphaSpans = spansOf('alpha');
    const ledgerSpans = spansOf('ledger');

    // The parent's task span roots the trace; the local child's task span hangs under it.
    const taskSpan = (spans: ReceivedSpan[], taskId: string) =>
      spans.find(
        (span) =>
          span.attributes['gen_ai.operation.name'] === 'invoke_agent' &&
          span.attributes['tiny_harness.task.id'] === taskId
      );
    const root = taskSpan(alphaSpans, parent.id);
    expect(root).toBeDefined();
    const trace = root!.traceId;
    const parentRecord = await alpha.runtime.loop.store.get(parent.id);
    const rows = (
      parentRecord!.task.metadata!['io.github.madarauchiha-314.tiny-harness/task'] as {
        sub_tasks: Array<{ task_id: string; agent: { id: string } | null }>;
      }
    ).sub_tasks;
    const localChild = rows.find((row) => row.agent === null)!.task_id;
    const remoteChild = rows.find((row) => row.agent?.id === 'ledger')!.task_id;
    const localTask = taskSpan(alphaSpans, localChild);
    expect(localTask).toMatchObject({ traceId: trace, parentSpanId: root!.spanId });

    // The auditor goes from the timeline to the trace: the parent's timeline, and its local
    // child's read on its own, name the tree's trace.
    for (const taskId of [parent.id, localChild]) {
      const timeline = await fetch(`${alpha.url}/tasks/${taskId}:timeline`, {
        headers: { 'A2A-Version': '1.0', ...authorizationFor('alice') },
      });
      expect(timeline.status).toBe(200);
      expect(((await timeline.json()) as { trace_id: unknown }).trace_id).toBe(trace);
    }

    // One trace on alpha: each span's parent is a span of it.
    const alphaTrace = alphaSpans.filter((span) => span.traceId === trace);
    const ids = new Set(alphaTrace.map((span) => span.spanId));
    for (const span of alphaTrace) {
      if (span !== root) expect(ids, `${span.name} has its parent`).toContain(span.parentSpanId);
    }

    // Every model call: a chat span in the conventions, under a turn of its task.
    const chats = alphaTrace.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
    expect(chats.length).toBe(alphaModel.requests.length);
    for (const chat of chats) {
      expect(chat.name).toMatch(/^chat /);
      expect(chat.attributes).toMatchObject({
        'gen_ai.provider.name': expect.any(String),
        'gen_ai.response.model': expect.any(String),
        'gen_ai.usage.input_tokens': expect.any(Number),
        'gen_ai.usage.output_tokens': expect.any(Number),
        'gen_ai.usage.cache_read.input_tokens': expect.any(Number),
        'gen_ai.response.finish_reasons': [expect.any(String)],
        'tiny_harness.latency_ms': expect.any(Number),
      });
      // Content capture is off: no prompt, no completion.
      expect(chat.attributes['gen_ai.input.messages']).toBeUndefined();
      expect(chat.attributes['gen_ai.output.messages']).toBeUndefined();
      const turn = alphaTrace.find((span) => span.spanId === chat.parentSpanId);
      expect(turn?.name).toBe('turn');
    }
    const turns = alphaTrace.filter((span) => span.name === 'turn');
    expect(turns.map((span) => span.attributes['tiny_harness.task.id'])).toEqual(
      expect.arrayContaining([parent.id, localChild])
    );
    expect(
      turns.find((span) => span.attributes['tiny_harness.task.id'] === localChild)?.attributes
    ).toMatchObject({
      'tiny_harness.task.parent_id': parent.id,
      'tiny_harness.task.root_id': parent.id,
      'tiny_harness.context.id': expect.any(String),
      'tiny_harness.generation': 1,
      'tiny_harness.turn': expect.any(Number),
    });

    // Every tool call: an execute_tool span; the MCP one with its client call, its approval as events.
    const tools = alphaTrace.filter(
      (span) => span.attributes['gen_ai.operation.name'] === 'execute_tool'
    );
    expect(tools.map((span) => span.attributes['gen_ai.tool.name']).sort()).toEqual(
      expect.arrayContaining(['notes__delete_note', 'spawn_subtask', 'spawn_subtask'])
    );
    const deletes = tools.filter(
      (span) => span.attributes['gen_ai.tool.name'] === 'notes__delete_note'
    );
    expect(deletes.flatMap((span) => span.events.map((event) => event.name))).toContain(
      'approval.requested'
    );
    const ran = deletes.find((span) => span.attributes['tiny_harness.tool.outcome'] !== undefined);
    expect(ran?.attributes).toMatchObject({
      'tiny_harness.tool.server': 'notes',
      'tiny_harness.tool.attempt': 1,
    });
    const call = alphaTrace.find((span) => span.name === 'tools/call notes__delete_note');
    expect(call).toMatchObject({ parentSpanId: ran!.spanId, kind: 3 });
    // The approval came in through a request, linked to the parent's task.
    const approval = alphaSpans.find((span) =>
      span.events.some((event) => event.name === 'approval.decided')
    );
    expect(approval?.name).toMatch(/^a2a /);

    // Park, wake and the children's news, in the parent's trace.
    expect(alphaTrace.some((span) => span.name === 'park')).toBe(true);
    const news = alphaTrace.filter((span) => span.name === 'child news');
    expect(news.map((span) => span.attributes['tiny_harness.child.id'])).toContain(localChild);

    // The remote child: ledger's request span is a child of alpha's span that called it
    // (traceparent), and links to the child's own task, whose spans carry on from there.
    const remoteRequest = ledgerSpans.find(
      (span) => span.traceId === trace && span.name === 'a2a SendMessage'
    );
    expect(remoteRequest).toBeDefined();
    expect(alphaTrace.map((span) => span.spanId)).toContain(remoteRequest!.parentSpanId);
    const remoteTask = taskSpan(ledgerSpans, remoteChild);
    expect(remoteTask?.links).toContainEqual({
      traceId: trace,
      spanId: remoteRequest!.spanId,
    });
    const remoteChats = ledgerSpans.filter(
      (span) =>
        span.traceId === remoteTask!.traceId && span.attributes['gen_ai.operation.name'] === 'chat'
    );
    expect(remoteChats).toHaveLength(ledgerModel.requests.length);

    // The collector got its key; no span carries it, or any bearer token.
    expect(receiver.headers.every((each) => each['x-collector-key'] === COLLECTOR_KEY)).toBe(true);
    const secrets = [COLLECTOR_KEY, tokenFor('alpha'), tokenFor('alice')];
    for (const body of receiver.bodies) {
      for (const secret of secrets) expect(body).not.toContain(secret);
    }
  }, 120_000);
});
