import { type Message, TaskState } from '@a2a-js/sdk';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreAuditSources } from '../../functions/adapters/audit/audit-sources.js';
import { DynamoDbTaskRecords } from '../../functions/adapters/audit/dynamodb-task-records.js';
import { StepFunctionsExecutionHistory } from '../../functions/adapters/audit/step-functions-history.js';
import { executionArn } from '../../functions/adapters/stepfunctions/turn-executions.js';
import { auditOf } from '../../functions/composition/audit.js';
import type {
  ExecutionHistoryArchive,
  LiveExecutionHistory,
} from '../../functions/core/audit/archive.js';
import type { Timeline, TimelineEntry } from '../../functions/core/audit/timeline.schema.js';
import { TimelineSchema } from '../../functions/core/audit/timeline.schema.js';
import { receiveMessage } from '../../functions/core/intake/receive-message.js';
import { userTextMessage } from '../../functions/core/loop/messages.js';
import { createArchiveHandler } from '../../functions/handlers/archive.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { readTimeline } from '../../functions/service/read-timeline.js';
import { authorizationFor } from '../support/identity.js';
import { asTask, clientFor, eventually, startStack } from '../support/local-stack.js';
import { envelopeMessage } from '../support/messages.js';
import { PerTaskModel } from '../support/per-task-model.js';
import { recordPages, serveRecordedHistories } from '../support/recorded-sfn.js';

const send = (message: Message) => ({
  tenant: '',
  message,
  configuration: undefined,
  metadata: undefined,
});

let counter = 0;
const say = (text: string, taskId = '', contextId = '') =>
  userTextMessage({ messageId: `audit-${++counter}`, text, taskId, contextId });

const NO_ARCHIVE: ExecutionHistoryArchive = {
  read: async () => undefined,
  write: async () => undefined,
};

/** What an auditor checks first: the kinds, in order, each with its task and its gist. */
const outline = (timeline: Timeline, roles: Map<string, string>) =>
  timeline.entries.map((entry: TimelineEntry) => {
    const who = roles.get(entry.task_id) ?? entry.task_id;
    const d = entry.details as Record<string, unknown>;
    const gist =
      entry.kind === 'tool_call'
        ? d.name
        : entry.kind === 'state_changed'
          ? `${String(d.to).replace('TASK_STATE_', '')}${d.sub_state ? `/${d.sub_state}` : ''} by ${entry.actor?.kind}:${entry.actor?.id}`
          : entry.kind === 'message_accepted' || entry.kind === 'message_refused'
            ? d.participant_id
            : entry.kind === 'plan_changed'
              ? d.change
              : '';
    return `${who} ${entry.kind}${gist ? ` ${gist}` : ''}`;
  });

/** `sequence` occurs in `list` in this order (other entries may come between). */
const inOrder = (list: readonly string[], sequence: readonly string[]) => {
  let at = 0;
  const missing: string[] = [];
  for (const wanted of sequence) {
    const found = list.indexOf(wanted, at);
    if (found === -1) missing.push(wanted);
    else at = found + 1;
  }
  return missing;
};

describe("the auditor's timeline of a scripted task, from the local stack", () => {
  let releaseChild: () => void = () => undefined;
  const childGate = new Promise<void>((done) => {
    releaseChild = done;
  });
  const model = new PerTaskModel([
    {
      replies: [
        {
          toolCalls: [
            {
              name: 'create_plan',
              arguments: {
                steps: [
                  { name: 'Research', description: 'find sources' },
                  { name: 'Write', description: 'write it', depends_on: ['Research'] },
                ],
              },
            },
          ],
        },
        {
          toolCalls: [
            {
              name: 'spawn_subtask',
              arguments: { name: 'Research', goal: 'Find three sources', step: 'research' },
            },
          ],
        },
        {
          toolCalls: [
            {
              name: 'ask_participant',
              arguments: {
                participant_id: 'alice',
                question: 'Which format?',
                options: ['pdf', 'md'],
              },
            },
          ],
        },
        {
          toolCalls: [
            { name: 'complete_step', arguments: { step: 'Research', output: 'three sources' } },
          ],
        },
        { text: 'The report is ready, in md.' },
        { text: 'Anything else?' },
      ],
    },
    { replies: [{ text: 'Three sources found.' }], gate: childGate },
  ]);
  let stack: LocalStack;
  let taskId = '';
  let childId = '';
  let timeline: Timeline;
  const roles = new Map<string, string>();

  beforeAll(async () => {
    stack = await startStack({ model });
    const alice = await clientFor(stack, 'alice');
    const asked = asTask(await alice.sendMessage(send(say('Write a report on tides'))));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    taskId = asked.id;
    roles.set(taskId, 'parent');

    // A stranger is refused. Over A2A the service answers "not found" before intake; intake's
    // own refusal is what leaves the record an auditor reads.
    const refused = await receiveMessage(stack.runtime.loop, {
      taskId,
      message: say('let me in', taskId, asked.contextId),
      sender: 'mallory',
    });
    expect(refused).toEqual({ accepted: false, reason: 'not a participant' });

    releaseChild();
    childId = await eventually(async () => {
      const record = await stack.runtime.loop.store.get(taskId);
      const extension = record?.task.metadata?.['io.github.madarauchiha-314.tiny-harness/task'] as
        | { sub_tasks: Array<{ task_id: string; state: string }> }
        | undefined;
      const row = extension?.sub_tasks[0];
      return row?.state === 'TASK_STATE_COMPLETED' ? row.task_id : undefined;
    });
    roles.set(childId, 'child');

    const answered = asTask(await alice.sendMessage(send(say('md', taskId, asked.contextId))));
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const done = asTask(
      await alice.sendMessage(
        send({
          ...envelopeMessage('control', { action: 'complete', reason: 'good enough' }),
          taskId,
          contextId: asked.contextId,
        })
      )
    );
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // The execution closes just after the terminal state is stored.
    await eventually(async () => {
      const { status } = await stack.engine.describeExecution({
        executionArn: executionArn(stack.stateMachineArn, taskId, 1),
      });
      return status === 'SUCCEEDED' ? status : undefined;
    });
    timeline = await readTimeline(auditOf(stack.runtime).sources, {
      taskId,
      participantId: 'alice',
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('has every step of the story, in order, with who caused each state change', () => {
    expect(TimelineSchema.parse(timeline)).toEqual(timeline);
    expect(timeline.tasks.map((task) => [task.task_id, task.parent_id, task.state])).toEqual([
      [taskId, null, 'TASK_STATE_COMPLETED'],
      [childId, taskId, 'TASK_STATE_COMPLETED'],
    ]);
    const lines = outline(timeline, roles).map((line) => line.replace(taskId, 'PARENT'));
    expect(
      inOrder(lines, [
        'parent task_created',
        'parent state_changed WORKING by participant:alice',
        'parent model_call',
        'parent tool_call create_plan',
        'parent plan_changed attached',
        'parent model_call',
        'parent tool_call spawn_subtask',
        'parent child_requested',
        'child task_created',
        'child state_changed WORKING by parent:PARENT',
        'parent model_call',
        'parent tool_call ask_participant',
        'parent state_changed INPUT_REQUIRED/awaiting-answer by tool:ask_participant',
        'parent message_refused mallory',
        'child state_changed COMPLETED by agent:null',
        'parent message_accepted alice',
        'parent state_changed WORKING by participant:alice',
        'parent tool_call complete_step',
        'parent plan_changed step_done',
        'parent model_call',
        'parent state_changed INPUT_REQUIRED/awaiting-next-message by agent:null',
        'parent message_accepted alice',
        'parent state_changed COMPLETED by participant:alice',
        'parent execution_ended',
      ]),
      lines.join('\n')
    ).toEqual([]);
    // The child's model call starts as soon as it runs (the test's gate holds its answer back).
    expect(
      inOrder(
        lines.filter((line) => line.startsWith('child')),
        [
          'child task_created',
          'child state_changed WORKING by parent:PARENT',
          'child model_call',
          'child state_changed COMPLETED by agent:null',
          'child execution_ended',
        ]
      )
    ).toEqual([]);
    const times = timeline.entries.map((entry) => Date.parse(entry.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(timeline.gaps).toEqual([]);
  });

  it('says what each model call cost and what each tool call was given and returned', () => {
    const calls = timeline.entries.filter((entry) => entry.kind === 'model_call');
    expect(calls).toHaveLength(6);
    expect(calls[0]?.details).toMatchObject({
      model: 'scripted',
      input_tokens: 100,
      output_tokens: 10,
      cached_input_tokens: 0,
      latency_ms: expect.any(Number),
      tool_calls: ['create_plan'],
    });
    const ask = timeline.entries.find(
      (entry) => entry.kind === 'tool_call' && entry.details.name === 'ask_participant'
    );
    expect(ask?.details).toMatchObject({
      verdict: 'ok',
      arguments: { text: expect.stringContaining('Which format?') },
      result: { text: expect.stringMatching(/alice/), truncated: false },
    });
    const refusal = timeline.entries.find((entry) => entry.kind === 'message_refused');
    expect(refusal?.details).toMatchObject({
      participant_id: 'mallory',
      reason: 'not a participant',
    });
  });

  it('reads the same from a recorded cloud-shaped GetExecutionHistory page set', async () => {
    const audit = auditOf(stack.runtime);
    const recorded = new Map<string, ReturnType<typeof recordPages>>();
    for (const [id, generations] of [
      [taskId, 1],
      [childId, 1],
    ] as const) {
      for (let generation = 1; generation <= generations; generation++) {
        const live = await audit.live.read(id, generation);
        if (live === undefined) throw new Error(`no history for ${id}`);
        recorded.set(live.executionArn, recordPages(live.events, 25));
      }
    }
    expect([...recorded.values()].some((pages) => pages.length > 2)).toBe(true);
    const cloud = await serveRecordedHistories(recorded);
    try {
      const sourcesWith = (live: LiveExecutionHistory) =>
        new StoreAuditSources({
          store: stack.runtime.loop.store,
          events: stack.runtime.loop.events,
          records: new DynamoDbTaskRecords({
            client: stackClient(),
            tableName: stack.runtime.config.TINY_HARNESS_TABLE,
          }),
          live,
          archive: NO_ARCHIVE,
        });
      const fromCloud = await readTimeline(
        sourcesWith(
          new StepFunctionsExecutionHistory({
            client: new SFNClient({
              region: 'us-east-1',
              endpoint: cloud.endpoint,
              credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
            }),
            stateMachineArn: stack.stateMachineArn,
          })
        ),
        { taskId, participantId: 'alice' }
      );
      const fromLocal = await readTimeline(sourcesWith(audit.live), {
        taskId,
        participantId: 'alice',
      });
      expect(cloud.requests).toBeGreaterThan(recorded.size);
      expect(fromCloud).toEqual(fromLocal);
      expect(fromLocal).toEqual(timeline);
    } finally {
      await cloud.close();
    }
  });

  it('is the participants\' read over A2A (JSON-RPC and HTTP+JSON), "not found" to anyone else', async () => {
    const rpc = async (participant: string) => {
      const response = await fetch(`${stack.url}/`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'A2A-Version': '1.0',
          ...authorizationFor(participant),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tiny-harness/GetTaskTimeline',
          params: { id: taskId },
        }),
      });
      return (await response.json()) as { result?: Timeline; error?: { code: number } };
    };
    expect((await rpc('alice')).result).toEqual(timeline);
    expect((await rpc('mallory')).error?.code).toBe(-32001);

    const rest = await fetch(`${stack.url}/tasks/${taskId}:timeline?subTasks=false`, {
      headers: { 'A2A-Version': '1.0', ...authorizationFor('alice') },
    });
    expect(rest.status).toBe(200);
    const own = (await rest.json()) as Timeline;
    expect(own.tasks.map((task) => task.task_id)).toEqual([taskId]);
    expect(own.entries.every((entry) => entry.task_id === taskId)).toBe(true);
    const stranger = await fetch(`${stack.url}/tasks/${taskId}:timeline`, {
      headers: { 'A2A-Version': '1.0', ...authorizationFor('mallory') },
    });
    expect(stranger.status).toBe(404);
  });

  it('archives a closed execution: the timeline is whole when the service has forgotten it', async () => {
    const audit = auditOf(stack.runtime);
    const archived = await eventually(() => audit.archive.read(taskId, 1));
    const live = await audit.live.read(taskId, 1);
    expect(archived.status).toBe('SUCCEEDED');
    expect(archived.events.map((event) => [event.id, event.type])).toEqual(
      live?.events.map((event) => [event.id, event.type])
    );
    await eventually(() => audit.archive.read(childId, 1));
    const forgotten = new StoreAuditSources({
      store: stack.runtime.loop.store,
      events: stack.runtime.loop.events,
      records: new DynamoDbTaskRecords({
        client: stackClient(),
        tableName: stack.runtime.config.TINY_HARNESS_TABLE,
      }),
      live: { read: async () => undefined },
      archive: audit.archive,
    });
    expect(await readTimeline(forgotten, { taskId, participantId: 'alice' })).toEqual(timeline);
  });

  it("takes the cloud's trigger: an EventBridge execution status change", async () => {
    const histories = auditOf(stack.runtime);
    const handler = createArchiveHandler(() => ({ logger: stack.runtime.logger, histories }));
    const change = (status: string) => ({
      version: '0',
      id: 'e-1',
      'detail-type': 'Step Functions Execution Status Change',
      source: 'aws.states',
      account: '000000000000',
      time: new Date().toISOString(),
      region: 'us-east-1',
      resources: [executionArn(stack.stateMachineArn, taskId, 1)],
      detail: {
        executionArn: executionArn(stack.stateMachineArn, taskId, 1),
        stateMachineArn: stack.stateMachineArn,
        name: `${taskId}-g1`,
        status,
      },
    });
    const context = {} as never;
    expect(await handler(change('SUCCEEDED'), context)).toEqual({ outcome: 'already archived' });
    expect(await handler(change('RUNNING'), context)).toEqual({ outcome: 'not closed' });
    expect(await handler({ 'detail-type': 'Something else' }, context)).toEqual({
      outcome: 'ignored',
    });
    const unknown = {
      ...change('FAILED'),
      detail: { ...change('FAILED').detail, executionArn: `${stack.stateMachineArn}:other` },
    };
    expect(await handler(unknown, context)).toEqual({ outcome: 'not ours' });
  });

  const stackClient = () =>
    new DynamoDBClient({
      region: 'us-east-1',
      endpoint: stack.runtime.config.TINY_HARNESS_DYNAMODB_ENDPOINT,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
});
