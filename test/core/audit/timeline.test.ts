import { Role, type Task, TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { STATUS_METADATA_KEY, TASK_METADATA_KEY } from '../../../functions/core/a2a/identifiers.js';
import type { HistoryEventLike } from '../../../functions/core/audit/execution-history.js';
import { buildTimeline, type TaskPart } from '../../../functions/core/audit/timeline.js';
import { textMessageFrom } from '../../../functions/core/loop/messages.js';
import type { LoggedEvent } from '../../../functions/core/ports/event-log.js';

const extension = (more: Record<string, unknown> = {}) => ({
  name: 'Report',
  goal: 'Write a report',
  participants: [
    { id: 'alice', kind: 'human', role: 'reporter' },
    { id: 'tiny-harness', kind: 'agent', role: 'assignee' },
  ],
  lifecycle: 'conversation',
  ...more,
});

const task = (state: TaskState, at: string, more: Record<string, unknown> = {}): Task => ({
  id: 't-1',
  contextId: 'c-1',
  status: { state, message: undefined, timestamp: at },
  artifacts: [],
  history: [],
  metadata: { [TASK_METADATA_KEY]: extension(more) },
});

const status = (
  state: TaskState,
  at: string,
  text = '',
  subState?: string
): LoggedEvent['event'] => ({
  kind: 'status_update',
  statusUpdate: {
    taskId: 't-1',
    contextId: 'c-1',
    status: {
      state,
      timestamp: at,
      message:
        text === ''
          ? undefined
          : textMessageFrom(Role.ROLE_AGENT, {
              messageId: `m-${at}`,
              contextId: 'c-1',
              taskId: 't-1',
              text,
            }),
    },
    metadata: subState === undefined ? {} : { [STATUS_METADATA_KEY]: { sub_state: subState } },
  },
});

const t = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`;
const ref = (turn: number) => ({ taskId: 't-1', generation: 1, turn });
const lambda = (id: number, prev: number, at: number, payload: unknown): HistoryEventLike => ({
  id,
  previousEventId: prev,
  timestamp: t(at),
  type: 'LambdaFunctionScheduled',
  lambdaFunctionScheduledEventDetails: { input: JSON.stringify(payload) },
});
const ended = (
  id: number,
  prev: number,
  at: number,
  type: string,
  details: object = {}
): HistoryEventLike => ({
  id,
  previousEventId: prev,
  timestamp: t(at),
  type,
  [`${type[0]?.toLowerCase()}${type.slice(1)}EventDetails`]: details,
});

const row = (state: string) => ({
  task_id: 'remote-9',
  agent: { kind: 'agent', id: 'billing', version: null },
  state,
  sub_state: null,
});

const part: TaskPart = {
  taskId: 't-1',
  depth: 0,
  task: {
    parent_id: null,
    name: 'Report',
    state: 'TASK_STATE_CANCELED',
    agent: null,
    generations: 1,
  },
  log: [
    { seq: 1, event: { kind: 'task', task: task(TaskState.TASK_STATE_SUBMITTED, t(0)) } },
    { seq: 2, event: status(TaskState.TASK_STATE_WORKING, t(1)) },
    { seq: 3, event: status(TaskState.TASK_STATE_WORKING, t(2), 'calling gpt-x') },
    {
      seq: 4,
      event: {
        kind: 'task',
        task: task(TaskState.TASK_STATE_WORKING, t(1), { sub_tasks: [row('TASK_STATE_WORKING')] }),
      },
    },
    {
      seq: 5,
      event: status(TaskState.TASK_STATE_INPUT_REQUIRED, t(6), 'Done?', 'awaiting-next-message'),
    },
    {
      seq: 6,
      event: {
        kind: 'task',
        task: task(TaskState.TASK_STATE_INPUT_REQUIRED, t(6), {
          sub_tasks: [row('TASK_STATE_COMPLETED')],
          acceptance_criteria: [{ text: 'cited', met: false }],
        }),
      },
    },
    { seq: 7, event: status(TaskState.TASK_STATE_CANCELED, t(9)) },
  ],
  executions: [
    {
      name: 't-1-g1',
      generation: 1,
      events: [
        { id: 1, previousEventId: 0, timestamp: t(1), type: 'ExecutionStarted' },
        lambda(2, 1, 2, { op: 'turn', ref: ref(0) }),
        ended(3, 2, 3, 'LambdaFunctionFailed', {
          error: 'ModelRetryableError',
          cause: 'throttled',
        }),
        lambda(4, 3, 4, { op: 'turn', ref: ref(0) }),
        ended(5, 4, 5, 'LambdaFunctionSucceeded'),
        ended(6, 5, 9, 'ExecutionAborted', { cause: 'canceled' }),
      ],
    },
  ],
  records: new Map<string, unknown>([
    [
      'response:1:1',
      {
        text: 'Done?',
        toolCalls: [],
        usage: { inputTokens: 1000, cachedInputTokens: 400, outputTokens: 50 },
        model: 'gpt-x',
        finishReason: 'stop',
        latency_ms: 700,
        at: '2026-01-01T00:00:04.700Z',
      },
    ],
    [
      'audit:m-2',
      {
        message_id: 'm-2',
        participant_id: 'mallory',
        accepted: false,
        reason: 'not a participant',
        at: t(7),
      },
    ],
    [
      'audit:m-3',
      { message_id: 'm-3', participant_id: 'alice', accepted: true, reason: null, at: t(8) },
    ],
  ]),
  messageTexts: new Map([['m-3', 'stop it']]),
  prices: { 'gpt-x': { input: 2, cachedInput: 0.5, output: 8 } },
};

describe('a budget on the timeline', () => {
  it('shows each budget set, with what it was, and the stop it caused as the state change', () => {
    const log: LoggedEvent[] = [
      {
        seq: 1,
        event: {
          kind: 'task',
          task: task(TaskState.TASK_STATE_SUBMITTED, t(0), { budget: { model_calls: 1 } }),
        },
      },
      {
        seq: 2,
        event: status(
          TaskState.TASK_STATE_INPUT_REQUIRED,
          t(2),
          'The budget is reached',
          'awaiting-budget'
        ),
      },
      {
        seq: 3,
        event: {
          kind: 'task',
          task: task(TaskState.TASK_STATE_INPUT_REQUIRED, t(3), {
            budget: { model_calls: 3, usd: 2 },
          }),
        },
      },
    ];
    const budgeted = { ...part, log, executions: [], records: new Map(), messageTexts: new Map() };
    const summaries = buildTimeline('t-1', [budgeted], []).entries.map((entry) => entry.summary);
    expect(summaries).toEqual([
      'task "Report" created',
      'SUBMITTED → INPUT_REQUIRED (awaiting-budget): The budget is reached',
      'budget set: usd 2, model_calls 3 (was model_calls 1)',
    ]);
  });
});

describe('the timeline of one task, from synthetic sources', () => {
  const timeline = buildTimeline('t-1', [part], []);
  const lines = timeline.entries.map(
    (entry) =>
      `${entry.at.slice(17, 19)} ${entry.kind} ${entry.actor?.kind ?? '-'}:${entry.actor?.id ?? '-'} ${entry.summary}`
  );

  it('names the trace of the task tree when the deployment traces, and none when it does not', () => {
    expect(timeline.trace_id).toBeNull();
    const traced = buildTimeline('t-1', [part], [], 'a3f1c0de'.repeat(4));
    expect(traced.trace_id).toBe('a3f1c0de'.repeat(4));
    expect(traced.entries).toEqual(timeline.entries);
  });

  it('orders every source by time, attributing each state change', () => {
    expect(lines).toEqual([
      '00 task_created participant:alice task "Report" created',
      // Same millisecond: the log comes before the execution history.
      '01 state_changed participant:alice SUBMITTED → WORKING',
      '01 execution_started -:- execution t-1-g1 started',
      '02 progress -:- calling gpt-x',
      // A Task event has no time: it takes the last timed event's before it in the log.
      '02 child_changed child:remote-9 remote sub-task billing/remote-9 linked WORKING',
      '03 retry harness:- turn attempt 1 failed (ModelRetryableError): retrying',
      // Stamped when the call that answered began (its answer's time less its latency).
      '04 model_call model:gpt-x gpt-x turn 1: 1000 in (400 cached) / 50 out, $0.001800: Done?',
      '06 state_changed agent:- WORKING → INPUT_REQUIRED (awaiting-next-message): Done?',
      '06 task_edited -:- task edited: acceptance_criteria',
      '06 child_changed child:remote-9 remote sub-task billing/remote-9 is COMPLETED',
      '07 message_refused participant:mallory message from mallory refused: not a participant',
      '08 message_accepted participant:alice message from alice: stop it',
      '09 state_changed participant:alice INPUT_REQUIRED → CANCELED',
      '09 execution_ended harness:- execution t-1-g1 aborted: canceled',
    ]);
  });

  it('prices a model call from its model, and keeps the retried attempt apart', () => {
    const call = timeline.entries.find((entry) => entry.kind === 'model_call');
    expect(call?.details).toMatchObject({
      cost_usd: 0.0018,
      // The model's own latency, not the turn state's (which folds the inbox first).
      latency_ms: 700,
      cached_input_tokens: 400,
    });
    expect(call?.at).toBe(t(4));
  });
});

describe('a turn taken within one millisecond (a scripted model)', () => {
  const instant = {
    ...part,
    log: [
      {
        seq: 1,
        event: { kind: 'task' as const, task: task(TaskState.TASK_STATE_SUBMITTED, t(1)) },
      },
      { seq: 2, event: status(TaskState.TASK_STATE_WORKING, t(1)) },
      {
        seq: 3,
        event: status(TaskState.TASK_STATE_INPUT_REQUIRED, t(1), 'Done?', 'awaiting-next-message'),
      },
    ],
    executions: [
      {
        name: 't-1-g1',
        generation: 1,
        events: [
          { id: 1, previousEventId: 0, timestamp: t(1), type: 'ExecutionStarted' },
          lambda(2, 1, 1, { op: 'turn', ref: ref(0) }),
          ended(3, 2, 1, 'LambdaFunctionSucceeded'),
        ],
      },
    ],
    records: new Map<string, unknown>([
      [
        'response:1:1',
        {
          text: 'Done?',
          toolCalls: [],
          usage: { inputTokens: 10, cachedInputTokens: 0, outputTokens: 1 },
          model: 'scripted',
          finishReason: 'stop',
          latency_ms: 0,
          at: t(1),
          after_event_seq: 2,
        },
      ],
    ]),
  };

  it('places the model call between the state change that started the turn and the one it caused', () => {
    const kinds = buildTimeline('t-1', [instant], []).entries.map((entry) =>
      `${entry.kind} ${entry.details.to ?? ''}`.trim()
    );
    expect(
      kinds.filter((kind) => kind.startsWith('state_changed') || kind === 'model_call')
    ).toEqual([
      'state_changed TASK_STATE_WORKING',
      'model_call',
      'state_changed TASK_STATE_INPUT_REQUIRED',
    ]);
  });
});

describe('acceptance criteria on the timeline', () => {
  it('shows a criterion met by the agent and rejected by a reviewer, each by who did it, not as an edit', () => {
    const criterion = (more: Record<string, unknown>) => ({
      acceptance_criteria: [{ id: 'c1', text: 'cited', ...more }],
    });
    const met = {
      met: true,
      evidence: { text: 'three sources' },
      met_by: 'tiny-harness',
      met_at: t(2),
    };
    const rejected = { met: false, rejection: { by: 'alice', reason: 'one is a blog', at: t(3) } };
    const log: LoggedEvent[] = [
      {
        seq: 1,
        event: { kind: 'task', task: task(TaskState.TASK_STATE_WORKING, t(1), criterion({})) },
      },
      { seq: 2, event: status(TaskState.TASK_STATE_WORKING, t(2)) },
      {
        seq: 3,
        event: { kind: 'task', task: task(TaskState.TASK_STATE_WORKING, t(2), criterion(met)) },
      },
      { seq: 4, event: status(TaskState.TASK_STATE_WORKING, t(3)) },
      {
        seq: 5,
        event: {
          kind: 'task',
          task: task(TaskState.TASK_STATE_WORKING, t(3), criterion(rejected)),
        },
      },
    ];
    const timeline = buildTimeline(
      't-1',
      [
        {
          taskId: 't-1',
          depth: 0,
          task: { parent_id: null, name: 'Report', state: 'TASK_STATE_WORKING' },
          executions: [],
          log,
          records: new Map(),
          messageTexts: new Map(),
        } as unknown as TaskPart,
      ],
      []
    );
    const edits = timeline.entries
      .filter((entry) => entry.kind === 'task_edited')
      .map((entry) => `${entry.actor?.kind}:${entry.actor?.id} ${entry.summary}`);
    expect(edits).toEqual([
      'agent:null criterion c1 met: three sources',
      'participant:alice criterion c1 rejected: one is a blog',
    ]);
  });
});

describe('approvals in the timeline', () => {
  it('shows each approval asked for and answered, by whom (or the timeout)', () => {
    const asked = (callId: string, at: string) => ({
      call_id: callId,
      tool: 'notes__delete_note',
      arguments: '{"id":"n1"}',
      approvers: ['reporter', 'admin'],
      deadline: '2026-01-01T01:00:00.000Z',
      at,
    });
    const answered = (
      callId: string,
      verdict: string,
      by: string | null,
      reason: string,
      at: string
    ) => ({
      ...asked(callId, at),
      verdict,
      by,
      reason,
    });
    const timeline = buildTimeline(
      't-1',
      [
        {
          taskId: 't-1',
          depth: 0,
          task: { parent_id: null, name: 'Tidy', state: 'TASK_STATE_WORKING' },
          executions: [],
          log: [],
          records: new Map<string, unknown>([
            ['approval:1:c1:requested', asked('c1', t(1))],
            ['approval:1:c1:decided', answered('c1', 'approved', 'carol', 'fine', t(2))],
            ['approval:1:c2:requested', asked('c2', t(1))],
            ['approval:1:c2:decided', answered('c2', 'rejected', 'alice', 'keep it', t(3))],
            ['approval:3:c9:requested', asked('c9', t(4))],
            [
              'approval:3:c9:decided',
              answered('c9', 'expired', null, 'no approver answered within 60 s', t(5)),
            ],
          ]),
          messageTexts: new Map(),
        } as unknown as TaskPart,
      ],
      []
    );
    expect(
      timeline.entries.map(
        (entry) => `${entry.kind} ${entry.actor?.kind}:${entry.actor?.id} ${entry.summary}`
      )
    ).toEqual([
      'approval_requested tool:notes__delete_note approval requested: notes__delete_note({"id":"n1"}), from reporter or admin, until 2026-01-01T01:00:00.000Z',
      'approval_requested tool:notes__delete_note approval requested: notes__delete_note({"id":"n1"}), from reporter or admin, until 2026-01-01T01:00:00.000Z',
      'approval_granted participant:carol approved: notes__delete_note({"id":"n1"}): fine',
      'approval_rejected participant:alice rejected: notes__delete_note({"id":"n1"}): keep it',
      'approval_requested tool:notes__delete_note approval requested: notes__delete_note({"id":"n1"}), from reporter or admin, until 2026-01-01T01:00:00.000Z',
      'approval_expired timeout:null approval expired: notes__delete_note({"id":"n1"}): no approver answered within 60 s',
    ]);
    expect(timeline.entries[2]?.details).toMatchObject({
      call_id: 'c1',
      verdict: 'approved',
      by: 'carol',
    });
  });
});
