import { TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { decideToolCall } from '../../../functions/core/loop/execute-tool.js';
import { decideFailure } from '../../../functions/core/loop/fail-task.js';
import { decidePark } from '../../../functions/core/loop/park.js';
import { decideRenewal } from '../../../functions/core/loop/renew.js';
import type { TaskRecord } from '../../../functions/core/ports/task-store.js';
import { stateName, stateOf } from '../../../functions/core/task/a2a-task.js';
import { ToolRegistry, zodArguments } from '../../../functions/core/tools/registry.js';
import type { Facts, Wants } from '../../../functions/core/unit-of-work/operation.js';
import { summary, written } from './outcome-summary.js';
import { message, NOW, plainRecord, response, TASK_ID } from './plain-records.js';

const REF = { taskId: TASK_ID, generation: 1, turn: 1 };

const facts = <W extends Wants, C>(
  record: TaskRecord,
  observed: Facts<W, C>['observed'] = {},
  reached?: C
): Facts<W, C> => ({ record, observed, reached, conflicts: 0, refusedForIds: 0, now: NOW });

const tools = new ToolRegistry([
  {
    name: 'send_refund',
    description: 'Pays a refund',
    input: zodArguments(z.strictObject({ amount: z.number() })),
    idempotent: false,
    approval: null,
  },
  {
    name: 'delete_note',
    description: 'Deletes a note',
    input: zodArguments(z.strictObject({ id: z.string() })),
    idempotent: false,
    approval: { approvers: ['reporter'], timeoutSeconds: 600 },
  },
]);

/** A task whose turn 1 asked for one call of `name` with `args`. */
const calling = (name: string, args: string, loop: Partial<TaskRecord['loop']> = {}) =>
  plainRecord({
    loop: { turn: 1, response: response('', [{ id: 'c1', name, arguments: args }]), ...loop },
  });

describe('a tool call step decides from the task and what the call produced', () => {
  const decide = decideToolCall(
    { ref: REF, callId: 'c1' },
    { tools, agentId: 'tiny-harness', agentIds: [] }
  );
  const rows: [
    string,
    Facts<{ invocation: 'invoke_tool'; child: 'create_child' }, 'attempt_marked'>,
    unknown,
  ][] = [
    [
      'asks to invoke an intrinsic tool',
      facts(calling('ask', '{"question":"Which?"}')),
      { needs: ['invocation:invoke_tool'] },
    ],
    [
      'commits the result the invocation produced',
      facts(calling('ask', '{"question":"Which?"}'), {
        invocation: { kind: 'output', text: 'ok', isError: false },
      }),
      { answer: undefined, commit: 'update' },
    ],
    [
      'marks a once-only call attempted before it runs',
      facts(calling('send_refund', '{"amount":5}')),
      { reached: 'attempt_marked', commit: 'update' },
    ],
    [
      'runs it once its own mark is committed',
      facts(
        calling('send_refund', '{"amount":5}', { attemptedCalls: ['c1'] }),
        {},
        'attempt_marked'
      ),
      { needs: ['invocation:invoke_tool'] },
    ],
    [
      'never runs again a call some earlier run marked, but asks its approvers',
      facts(calling('send_refund', '{"amount":5}', { attemptedCalls: ['c1'] })),
      { answer: undefined, commit: 'update' },
    ],
    [
      'sends it again once an approver said so',
      facts(
        calling('send_refund', '{"amount":5}', {
          approvals: [
            {
              callId: 'c1',
              tool: 'send_refund',
              arguments: '{"amount":5}',
              approvers: ['reporter', 'admin'],
              requestedAt: NOW,
              deadline: NOW,
              timeoutSeconds: 60,
              decision: { verdict: 'approved', by: 'alice', reason: null, at: NOW },
              fateUnknown: true,
            },
          ],
        })
      ),
      { reached: 'attempt_marked', commit: 'update' },
    ],
    [
      'asks for approval instead of running a gated call',
      facts(calling('delete_note', '{"id":"n1"}')),
      { answer: undefined, commit: 'update' },
    ],
    [
      'does nothing for a call already applied',
      facts(calling('ask', '{}', { appliedCalls: ['c1'] })),
      { answer: undefined, commit: null },
    ],
    [
      'does nothing for a cut turn',
      facts(calling('ask', '{}', { generation: 2 })),
      { answer: undefined, commit: null },
    ],
  ];
  for (const [name, given, expected] of rows) {
    it(name, () => expect(summary(decide(given), given.record)).toEqual(expected));
  }

  it('puts a call whose fate is unknown back with its approvers, its attempt cleared', () => {
    const given = facts<{ invocation: 'invoke_tool'; child: 'create_child' }, 'attempt_marked'>(
      calling('send_refund', '{"amount":5}', { attemptedCalls: ['c1'] })
    );
    const { loop } = written(decide(given));
    expect(loop.appliedCalls).toEqual([]);
    expect(loop.attemptedCalls).toEqual([]);
    expect(loop.approvals).toEqual([
      expect.objectContaining({
        callId: 'c1',
        approvers: ['reporter', 'admin'],
        decision: null,
        fateUnknown: true,
      }),
    ]);
  });

  it('records the approval asked for, on the task waiting for it', () => {
    const result = written(decide(facts(calling('delete_note', '{"id":"n1"}'))));
    expect(result.loop.approvals.map((entry) => entry.callId)).toEqual(['c1']);
  });
});

describe('a park decides from the task and the inbox read after its token is stored', () => {
  const decide = decidePark(REF, 'token-1');
  const parked = plainRecord({ loop: { turn: 1, parkToken: 'token-1' } });
  const rows: [string, Facts<{ inbox: 'read_inbox' }, 'token_stored'>, unknown][] = [
    [
      'stores its token first',
      facts(plainRecord({ loop: { turn: 1 } })),
      { reached: 'token_stored', commit: 'update' },
    ],
    ['then reads the inbox', facts(parked, {}, 'token_stored'), { needs: ['inbox:read_inbox'] }],
    [
      'stays parked when nothing waits',
      facts(parked, { inbox: [] }, 'token_stored'),
      { answer: { wakeNow: false }, commit: null },
    ],
    [
      'claims its own token back when a message raced in',
      facts(parked, { inbox: [message(1, 'hi')] }, 'token_stored'),
      { answer: { wakeNow: true }, commit: 'update' },
    ],
    [
      'leaves the wake to whoever claimed the token first',
      facts(
        plainRecord({ loop: { turn: 1, parkToken: null } }),
        { inbox: [message(1, 'hi')] },
        'token_stored'
      ),
      { answer: { wakeNow: false }, commit: null },
    ],
    [
      'finds its token stored on a retried park state and only looks for work',
      facts(parked),
      { needs: ['inbox:read_inbox'] },
    ],
    [
      'resumes at once for a task that ended meanwhile',
      facts(plainRecord({ state: TaskState.TASK_STATE_CANCELED })),
      { answer: { wakeNow: true }, commit: null },
    ],
  ];
  for (const [name, given, expected] of rows) {
    it(name, () => expect(summary(decide(given), given.record)).toEqual(expected));
  }
});

describe('a renewal and a failure decide from the task alone', () => {
  it.each([
    [
      'hands the task to the next generation',
      plainRecord({ loop: { turn: 3 } }),
      { answer: { taskId: TASK_ID, generation: 2, turn: 3 }, commit: 'update' },
    ],
    [
      'answers the generation that already took over',
      plainRecord({ loop: { generation: 2, turn: 4 } }),
      { answer: { taskId: TASK_ID, generation: 2, turn: 4 }, commit: null },
    ],
  ])('renewal %s', (_, record, expected) => {
    expect(summary(decideRenewal(REF)(facts(record)), record)).toEqual(expected);
  });

  it.each([
    [
      'fails a working task with the reason',
      plainRecord(),
      {
        answer: { ref: REF, route: { next: 'end', state: 'TASK_STATE_FAILED' } },
        commit: 'update',
      },
    ],
    [
      'leaves an ended task as it is',
      plainRecord({ state: TaskState.TASK_STATE_COMPLETED }),
      { answer: { ref: REF, route: { next: 'end', state: 'TASK_STATE_COMPLETED' } }, commit: null },
    ],
    [
      'is not the task’s when its generation was superseded',
      plainRecord({ loop: { generation: 3 } }),
      { answer: { ref: REF, route: { next: 'superseded' } }, commit: null },
    ],
  ])('failure %s', (_, record, expected) => {
    expect(summary(decideFailure(REF, 'the model failed')(facts(record)), record)).toEqual(
      expected
    );
  });

  it('writes the failure reason as the status', () => {
    const failed = written(decideFailure(REF, 'the model failed')(facts(plainRecord())));
    expect(stateName(stateOf(failed.task))).toBe('TASK_STATE_FAILED');
    expect(JSON.stringify(failed.task.status?.message)).toContain('the model failed');
  });
});
