import { describe, expect, it } from 'vitest';
import type { HistoryEventLike } from '../../../functions/core/audit/execution-history.js';
import { buildTimeline, type TaskPart } from '../../../functions/core/audit/timeline.js';
import { timelineTotals } from '../../../functions/view/timeline.js';

const t = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();

/** One execute_tool step of `callId` in turn 1, scheduled at `at`, that succeeded. */
const toolStep = (id: number, at: number, generation: number, callId: string) => [
  {
    id,
    previousEventId: id - 1,
    timestamp: t(at),
    type: 'LambdaFunctionScheduled',
    lambdaFunctionScheduledEventDetails: {
      input: JSON.stringify({
        op: 'execute_tool',
        call: { ref: { taskId: 't-1', generation, turn: 1 }, callId },
      }),
    },
  },
  {
    id: id + 1,
    previousEventId: id,
    timestamp: t(at),
    type: 'LambdaFunctionSucceeded',
    lambdaFunctionSucceededEventDetails: {},
  },
];

const execution = (generation: number, events: HistoryEventLike[]) => ({
  name: `t-1-g${generation}`,
  generation,
  events: [{ id: 1, previousEventId: 0, timestamp: t(0), type: 'ExecutionStarted' }, ...events],
});

const response = {
  text: '',
  toolCalls: [{ id: 'c1', name: 'notes__delete_note', arguments: '{"id":"n1","token":"s3cr3t"}' }],
  usage: { inputTokens: 10, cachedInputTokens: 0, outputTokens: 5 },
  model: 'demo',
  finishReason: 'tool_calls',
  latency_ms: 1,
  at: t(1),
};

const requested = {
  call_id: 'c1',
  tool: 'notes__delete_note',
  arguments: '{"id":"n1","token":"[redacted]"}',
  approvers: ['reporter', 'admin'],
  deadline: t(59),
  at: t(2),
};

const decided = (verdict: string, by: string | null, reason: string | null, at: number) => ({
  ...requested,
  verdict,
  by,
  reason,
  at: t(at),
});

const part = (executions: TaskPart['executions'], records: [string, unknown][]): TaskPart => ({
  taskId: 't-1',
  depth: 0,
  task: { parent_id: null, name: 'Tidy', state: 'TASK_STATE_WORKING', agent: null, generations: 1 },
  executions,
  log: [],
  records: new Map<string, unknown>([['response:1:1', response], ...records]),
  messageTexts: new Map(),
});

const lines = (timelinePart: TaskPart) =>
  buildTimeline('t-1', [timelinePart], [])
    .entries.filter((entry) => entry.kind === 'tool_call' || entry.kind.startsWith('approval_'))
    .map((entry) => `${entry.at.slice(17, 19)} ${entry.kind} ${entry.summary}`);

describe('a tool call that waited for approval, in the timeline', () => {
  it('shows the call once, when it ran after the approval, with the masked arguments', () => {
    const approved = part(
      [execution(1, [...toolStep(2, 2, 1, 'c1'), ...toolStep(4, 5, 1, 'c1')])],
      [
        ['approval:1:c1:requested', requested],
        ['approval:1:c1:decided', decided('approved', 'carol', null, 4)],
        ['tool:1:1:c1', { kind: 'output', text: 'deleted n1', isError: false }],
      ]
    );
    expect(lines(approved)).toEqual([
      expect.stringMatching(/^02 approval_requested /),
      '04 approval_granted approved: notes__delete_note({"id":"n1","token":"[redacted]"})',
      '05 tool_call notes__delete_note({"id":"n1","token":"[redacted]"}) → deleted n1',
    ]);
    const entries = buildTimeline('t-1', [approved], []).entries;
    expect(timelineTotals(entries).tool_calls).toBe(1);
  });

  it('says a rejected call never ran, by whom and why, after the rejection', () => {
    const rejected = part(
      [execution(1, [...toolStep(2, 2, 1, 'c1'), ...toolStep(4, 6, 1, 'c1')])],
      [
        ['approval:1:c1:requested', requested],
        ['approval:1:c1:decided', decided('rejected', 'alice', 'keep it', 5)],
        [
          'tool:1:1:c1',
          { kind: 'error', code: 'tool.rejected', text: '[tool.rejected] did not run' },
        ],
      ]
    );
    expect(lines(rejected)).toEqual([
      expect.stringMatching(/^02 approval_requested /),
      expect.stringMatching(/^05 approval_rejected /),
      '06 tool_call notes__delete_note({"id":"n1","token":"[redacted]"}) never ran: rejected by alice: keep it',
    ]);
  });

  it('shows a call asked again after a crash, and left, as one that may have run', () => {
    const askedAgain = part(
      [
        execution(1, [
          ...toolStep(2, 2, 1, 'c1'),
          ...toolStep(4, 5, 1, 'c1'),
          ...toolStep(6, 7, 1, 'c1'),
          ...toolStep(8, 10, 1, 'c1'),
        ]),
      ],
      [
        ['approval:1:c1:requested', requested],
        ['approval:1:c1:decided', decided('approved', 'carol', null, 4)],
        ['approval:1:c1:asked_again', { ...requested, fate_unknown: true, at: t(7) }],
        ['approval:1:c1:decided_again', decided('rejected', 'alice', 'it went', 9)],
        [
          'tool:1:1:c1',
          { kind: 'error', code: 'tool.rejected', text: '[tool.rejected] not sent again' },
        ],
      ]
    );
    expect(lines(askedAgain)).toEqual([
      expect.stringMatching(/^02 approval_requested approval requested: /),
      expect.stringMatching(/^04 approval_granted /),
      expect.stringMatching(
        /^07 approval_requested approval asked again \(it may or may not have run: the harness stopped while sending it\): /
      ),
      expect.stringMatching(/^09 approval_rejected /),
      '10 tool_call notes__delete_note({"id":"n1","token":"[redacted]"}) may have run before the harness stopped, not sent again: rejected by alice: it went',
    ]);
  });

  it('names the call a later generation settled (its approval expired across a renewal)', () => {
    const expired = part(
      [execution(1, toolStep(2, 2, 1, 'c1')), execution(2, toolStep(2, 61, 2, 'c1'))],
      [
        ['approval:1:c1:requested', requested],
        ['approval:1:c1:decided', decided('expired', null, 'no approver answered within 57 s', 60)],
        [
          'tool:2:1:c1',
          { kind: 'error', code: 'tool.rejected', text: '[tool.rejected] did not run' },
        ],
      ]
    );
    const entries = buildTimeline('t-1', [expired], []).entries;
    const call = entries.find((entry) => entry.kind === 'tool_call');
    expect(call?.summary).toBe(
      'notes__delete_note({"id":"n1","token":"[redacted]"}) never ran: expired by the deadline: no approver answered within 57 s'
    );
    expect(call?.details).toMatchObject({ generation: 2, name: 'notes__delete_note', ran: false });
  });

  it('masks the arguments of a call that needed no approval by name and shape', () => {
    const plain = part(
      [execution(1, toolStep(2, 2, 1, 'c1'))],
      [['tool:1:1:c1', { kind: 'output', text: 'deleted n1', isError: false }]]
    );
    expect(lines(plain)).toEqual([
      '02 tool_call notes__delete_note({"id":"n1","token":"[redacted]"}) → deleted n1',
    ]);
  });
});
