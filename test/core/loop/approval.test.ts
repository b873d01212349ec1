import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  ApprovalNotAllowedError,
  ApprovalNotPendingError,
} from '../../../functions/core/errors.js';
import { receiveMessage } from '../../../functions/core/intake/receive-message.js';
import { startTask } from '../../../functions/core/intake/start-task.js';
import { maskedArguments, maskedArgumentsText } from '../../../functions/core/loop/approvals.js';
import { executeTool } from '../../../functions/core/loop/execute-tool.js';
import { park } from '../../../functions/core/loop/park.js';
import { renew } from '../../../functions/core/loop/renew.js';
import { takeTurn } from '../../../functions/core/loop/take-turn.js';
import type { ToolApproval } from '../../../functions/core/ports/tool-runner.js';
import { notificationBody } from '../../../functions/core/push/notification.js';
import { castOf } from '../../../functions/core/testing/in-process-harness.js';
import { StaticToolRunner } from '../../../functions/core/testing/static-tool-runner.js';
import { zodArguments } from '../../../functions/core/tools/registry.js';
import { usageTree } from '../../../functions/service/usage-tree.js';
import { ALICE, BOB, harnessWith, STATES, view } from '../../support/harness.js';
import { envelopeMessage, textMessage } from '../../support/messages.js';

const CAROL = 'carol';

const approval = (overrides: Partial<ToolApproval> = {}): ToolApproval => ({
  approvers: ['admin'],
  timeoutSeconds: 600,
  ...overrides,
});

/** A notes store in code: `delete_note` needs approval, `read_note` does not. */
const notesRunner = (policy: ToolApproval = approval()) =>
  new StaticToolRunner([
    {
      name: 'delete_note',
      description: 'Deletes a note',
      input: zodArguments(z.strictObject({ id: z.string(), api_token: z.string().optional() })),
      idempotent: false,
      approval: policy,
      run: ({ id }: { id: string }) => ({ output: `deleted ${id}`, isError: false }),
    },
    {
      name: 'read_note',
      description: 'Reads a note',
      input: zodArguments(z.strictObject({ id: z.string() })),
      idempotent: true,
      approval: null,
      run: ({ id }: { id: string }) => ({ output: `note ${id}`, isError: false }),
    },
  ]);

/** Alice asks (reporter), Bob watches, Carol administers. */
const brief = (text = 'Tidy my notes') =>
  envelopeMessage(
    'task',
    {
      name: 'Tidy',
      goal: 'Tidy the notes',
      participants: [
        { id: ALICE, kind: 'human', role: 'reporter' },
        { id: BOB, kind: 'human', role: 'watcher' },
        { id: CAROL, kind: 'human', role: 'admin' },
      ],
    },
    { text }
  );

const call = (name: string, args: object) => ({ name, arguments: args });
const approve = (payload: object = {}) =>
  envelopeMessage('control', { action: 'approve', ...payload });
const reject = (payload: object = {}) =>
  envelopeMessage('control', { action: 'reject', ...payload });

const setUp = (replies: Parameters<typeof harnessWith>[0], policy?: ToolApproval) => {
  const runner = notesRunner(policy);
  const made = harnessWith(replies, { runner });
  return { ...made, runner };
};

const toolResults = async (harness: ReturnType<typeof harnessWith>['harness'], taskId: string) =>
  (await harness.store.readHistory(taskId)).flatMap((entry) =>
    entry.kind === 'tool_result' ? [{ name: entry.name, output: entry.output }] : []
  );

describe('a call that needs approval', () => {
  it('is not run: the task parks awaiting-approval with the tool, its masked arguments and the options', async () => {
    const { harness, runner, model } = setUp([
      {
        toolCalls: [
          call('read_note', { id: 'a' }),
          call('delete_note', { id: 'a', api_token: 'abc' }),
          call('read_note', { id: 'b' }),
        ],
      },
    ]);

    const task = await harness.start(brief(), ALICE);

    expect(runner.calls).toEqual([{ name: 'read_note', args: { id: 'a' } }]);
    const parked = view(task);
    expect(parked.state).toBe(STATES.INPUT_REQUIRED);
    expect(parked.subState).toBe('awaiting-approval');
    expect(parked.statusText).toContain('Approval needed before this tool call can run:');
    expect(parked.statusText).toContain(
      'delete_note {"id":"a","api_token":"[redacted]"} (approvers: admin)'
    );
    expect(parked.statusText).toMatch(/\nOptions: approve, reject$/);
    expect(parked.statusText).not.toContain('abc');
    // The call after it waits too (calls apply in order); the model was called once.
    expect(model.requests).toHaveLength(1);
    expect((await toolResults(harness, task.task.id)).map((r) => r.output)).toEqual(['note a']);
    expect(task.loop.approvals).toEqual([
      expect.objectContaining({
        tool: 'delete_note',
        approvers: ['admin'],
        timeoutSeconds: 600,
        decision: null,
      }),
    ]);
    const [outcome] = harness.outcomes.filter((o) => o.taskId === task.task.id);
    expect(outcome?.outcome).toMatchObject({ kind: 'parked', subState: 'awaiting-approval' });
    expect(
      await harness.store.getAudit(
        task.task.id,
        `approval:1:${task.loop.approvals[0]?.callId}:requested`
      )
    ).toMatchObject({
      tool: 'delete_note',
      arguments: '{"id":"a","api_token":"[redacted]"}',
      approvers: ['admin'],
    });
  });

  it("a secret in a call's arguments reaches no push payload and no usage tree, before or after the approval", async () => {
    const token = `ghp_${'s'.repeat(36)}`;
    const { harness } = setUp([
      { toolCalls: [call('delete_note', { id: `a ${token}`, api_token: token })] },
      { text: 'Deleted.' },
    ]);
    const task = await harness.start(brief(), ALICE);
    await harness.send(task.task.id, approve(), CAROL);

    const events = await harness.events.read(task.task.id);
    expect(events.length).toBeGreaterThan(3);
    const payloads = events.map((logged) => notificationBody(logged.event)).join('\n');
    expect(payloads).toContain('delete_note');
    expect(payloads).not.toContain(token);
    const after = await harness.task(task.task.id);
    expect(JSON.stringify(await usageTree(harness.store, after))).not.toContain(token);
  });

  it('approved by an admin runs exactly once, then the calls behind it, and the turn goes on', async () => {
    const { harness, runner, model } = setUp([
      { toolCalls: [call('delete_note', { id: 'a' }), call('read_note', { id: 'b' })] },
      { text: 'Deleted a, read b.' },
    ]);
    const task = await harness.start(brief(), ALICE);

    const receipt = await harness.send(task.task.id, approve({ reason: 'fine' }), CAROL);

    expect(receipt).toMatchObject({ accepted: true, wake: { action: 'resume' } });
    expect(runner.calls).toEqual([
      { name: 'delete_note', args: { id: 'a' } },
      { name: 'read_note', args: { id: 'b' } },
    ]);
    expect(await toolResults(harness, task.task.id)).toEqual([
      { name: 'delete_note', output: 'deleted a' },
      { name: 'read_note', output: 'note b' },
    ]);
    const after = await harness.task(task.task.id);
    expect(view(after)).toMatchObject({
      state: STATES.INPUT_REQUIRED,
      subState: 'awaiting-next-message',
    });
    expect(model.requests).toHaveLength(2);
    const callId = task.loop.approvals[0]?.callId;
    expect(
      await harness.store.getAudit(task.task.id, `approval:1:${callId}:decided`)
    ).toMatchObject({
      verdict: 'approved',
      by: CAROL,
      reason: 'fine',
    });
  });

  it('rejected: never runs, and the model reads a typed tool.rejected result with the reason', async () => {
    const { harness, runner, model } = setUp(
      [{ toolCalls: [call('delete_note', { id: 'a' })] }, { text: 'Understood.' }],
      approval({ approvers: ['reporter', 'admin'] })
    );
    const task = await harness.start(brief(), ALICE);

    await harness.send(task.task.id, reject({ reason: 'keep it' }), ALICE);

    expect(runner.calls).toEqual([]);
    expect(await toolResults(harness, task.task.id)).toEqual([
      {
        name: 'delete_note',
        output: `[tool.rejected] delete_note did not run: ${ALICE} rejected it: keep it`,
      },
    ]);
    expect(model.requests).toHaveLength(2);
    expect(view(await harness.task(task.task.id)).subState).toBe('awaiting-next-message');
  });

  it('refuses a watcher, and a reporter when only admins approve: typed, nothing written, the task stays parked', async () => {
    const { harness, runner, model } = setUp([{ toolCalls: [call('delete_note', { id: 'a' })] }]);
    const task = await harness.start(brief(), ALICE);
    const before = await harness.task(task.task.id);

    const fromWatcher = harness.send(task.task.id, approve(), BOB);
    await expect(fromWatcher).rejects.toBeInstanceOf(ApprovalNotAllowedError);
    await expect(fromWatcher).rejects.toThrow(
      `${BOB} is a watcher: delete_note (${before.loop.approvals[0]?.callId}) may be approved or rejected by its admin`
    );
    await expect(harness.send(task.task.id, reject(), ALICE)).rejects.toBeInstanceOf(
      ApprovalNotAllowedError
    );

    const after = await harness.task(task.task.id);
    expect(after.version).toBe(before.version);
    expect(after.loop.parkToken).toBe(before.loop.parkToken);
    expect(runner.calls).toEqual([]);
    expect(model.requests).toHaveLength(1);
  });

  it('refuses an answer when no call waits, or naming a call that does not', async () => {
    const { harness } = setUp([
      { toolCalls: [call('delete_note', { id: 'a' })] },
      { text: 'Deleted.' },
    ]);
    const task = await harness.start(brief(), ALICE);

    await expect(
      harness.send(task.task.id, approve({ calls: ['call-nope'] }), CAROL)
    ).rejects.toBeInstanceOf(ApprovalNotPendingError);
    await harness.send(task.task.id, approve(), CAROL);
    await expect(harness.send(task.task.id, approve(), CAROL)).rejects.toThrow(
      /no tool call of .* waits for approval/
    );
  });

  it('several in one turn: asked together, answered one by one; the task wakes only for the last', async () => {
    const { harness, runner, model } = setUp([
      { toolCalls: [call('delete_note', { id: 'a' }), call('delete_note', { id: 'b' })] },
      { text: 'Done.' },
    ]);
    const task = await harness.start(brief(), ALICE);
    const [first, second] = task.loop.approvals.map((entry) => entry.callId);
    expect(view(task).statusText).toContain('Approval needed before these 2 tool calls can run:');

    const one = await harness.send(task.task.id, reject({ calls: [first], reason: 'no' }), CAROL);

    expect(one).toMatchObject({ accepted: true, wake: { action: 'none' } });
    expect(view(await harness.task(task.task.id)).subState).toBe('awaiting-approval');
    expect(model.requests).toHaveLength(1);

    await harness.send(task.task.id, approve({ calls: [second] }), CAROL);

    expect(runner.calls).toEqual([{ name: 'delete_note', args: { id: 'b' } }]);
    expect((await toolResults(harness, task.task.id)).map((r) => r.output)).toEqual([
      `[tool.rejected] delete_note did not run: ${CAROL} rejected it: no`,
      'deleted b',
    ]);
    expect(model.requests).toHaveLength(2);
  });

  it('times out to a rejection: the park waits until the deadline, then the call gets tool.rejected', async () => {
    const { harness, runner, model } = setUp(
      [{ toolCalls: [call('delete_note', { id: 'a' })] }, { text: 'Nobody answered.' }],
      approval({ timeoutSeconds: 30 })
    );
    const { deps } = harness;
    const { record } = await startTask(deps, {
      ...castOf(brief(), ALICE, deps.config.agentId),
      sender: ALICE,
    });
    const taskId = record.task.id;
    let step = await takeTurn(deps, { taskId, generation: 1, turn: 0 });
    if (step.route.next !== 'execute_tools') throw new Error('expected a call');
    for (const c of step.route.calls) await executeTool(deps, c);
    step = await takeTurn(deps, step.ref);
    const { route } = step;
    if (route.next !== 'park') throw new Error(`expected a park, got ${route.next}`);
    // The fixed clock moved a few seconds since the request: the park times out at the deadline.
    expect(route.subState).toBe('awaiting-approval');
    expect(route.timeoutSeconds).toBeGreaterThan(25);
    expect(route.timeoutSeconds).toBeLessThanOrEqual(30);
    expect(await park(deps, step.ref, 'token-a')).toEqual({ wakeNow: false });

    // A message does not settle it: the task parks again, with the deadline unchanged.
    await receiveMessage(deps, { taskId, message: textMessage('any news?'), sender: ALICE });
    const again = await takeTurn(deps, step.ref);
    expect(again.route).toMatchObject({ next: 'park', subState: 'awaiting-approval' });
    expect(model.requests).toHaveLength(1);

    // The park's timeout renews the execution; its first turn finds the deadline passed.
    for (let i = 0; i < 40; i++) deps.clock.now();
    // An answer after the deadline is refused: the timeout answers it.
    await expect(
      receiveMessage(deps, { taskId, message: approve(), sender: CAROL })
    ).rejects.toThrow(/timed out at .*: it is rejected/);
    const next = await renew(deps, step.ref);
    let after = await takeTurn(deps, next);
    if (after.route.next !== 'execute_tools')
      throw new Error(`expected the calls, got ${after.route.next}`);
    for (const c of after.route.calls) await executeTool(deps, c);
    after = await takeTurn(deps, after.ref);

    expect(runner.calls).toEqual([]);
    expect(await toolResults(harness, taskId)).toEqual([
      {
        name: 'delete_note',
        output: '[tool.rejected] delete_note did not run: no approver answered within 30 s',
      },
    ]);
    expect(model.requests).toHaveLength(2);
    const history = await harness.store.readHistory(taskId);
    const callId = history.find((entry) => entry.kind === 'tool_call')?.callId;
    expect(await harness.store.getAudit(taskId, `approval:1:${callId}:decided`)).toMatchObject({
      verdict: 'expired',
      by: null,
      reason: 'no approver answered within 30 s',
    });
  });

  it('an assignee approves only when human; an agent assignee never does', async () => {
    const { harness, runner } = setUp(
      [{ toolCalls: [call('delete_note', { id: 'a' })] }, { text: 'ok' }],
      approval({ approvers: ['assignee'] })
    );
    // The agent is the task's assignee (an agent): its own "approval" is refused.
    const task = await harness.start(brief(), ALICE);
    await expect(
      harness.send(task.task.id, approve(), harness.deps.config.agentId)
    ).rejects.toBeInstanceOf(ApprovalNotAllowedError);
    expect(runner.calls).toEqual([]);
  });

  it('invalid arguments are refused by the invoker: nobody is asked', async () => {
    const { harness, runner } = setUp([
      { toolCalls: [call('delete_note', { nope: 1 })] },
      { text: 'Oops.' },
    ]);
    const task = await harness.start(brief(), ALICE);

    expect(view(task).subState).toBe('awaiting-next-message');
    expect(task.loop.approvals).toEqual([]);
    expect(runner.calls).toEqual([]);
    expect((await toolResults(harness, task.task.id))[0]?.output).toMatch(
      /^\[tool\.invalid_arguments\]/
    );
  });

  it("a participant's completion rejects what still waits, and the task completes", async () => {
    const { harness, runner } = setUp([{ toolCalls: [call('delete_note', { id: 'a' })] }]);
    const task = await harness.start(brief(), ALICE);

    await harness.complete(task.task.id, ALICE, 'never mind');

    expect(runner.calls).toEqual([]);
    expect(view(await harness.task(task.task.id)).state).toBe(STATES.COMPLETED);
    expect((await toolResults(harness, task.task.id))[0]?.output).toBe(
      `[tool.rejected] delete_note did not run: ${ALICE} rejected it: the task was completed before the call was approved`
    );
  });
});

describe('approval: one read, one decision, one commit per step', () => {
  it('the request, the park, a refused answer (nothing), the answer and the approved call', async () => {
    const { harness } = setUp([{ toolCalls: [call('delete_note', { id: 'a' })] }, { text: 'ok' }]);
    const { deps, store } = harness;
    const reads = () => [...store.recordReads.values()].reduce((sum, n) => sum + n, 0);
    const counted = async <T>(operation: () => Promise<T>) => {
      const [before, commits] = [reads(), store.commits.length];
      const result = await operation();
      return { result, reads: reads() - before, commits: store.commits.length - commits };
    };
    const one = { reads: 1, commits: 1 };
    const { record } = await startTask(deps, {
      ...castOf(brief(), ALICE, deps.config.agentId),
      sender: ALICE,
    });
    const taskId = record.task.id;
    const called = await takeTurn(deps, { taskId, generation: 1, turn: 0 });
    if (called.route.next !== 'execute_tools') throw new Error('expected a call');
    const [deleteCall] = called.route.calls;

    expect(await counted(() => executeTool(deps, deleteCall!))).toMatchObject(one);
    const parking = await counted(() => takeTurn(deps, called.ref));
    expect(parking).toMatchObject(one);
    expect(parking.result.route).toMatchObject({ next: 'park', subState: 'awaiting-approval' });
    expect(await counted(() => park(deps, parking.result.ref, 'token-1'))).toMatchObject(one);
    // A step of the held call, re-run while it waits, writes nothing.
    expect(await counted(() => executeTool(deps, deleteCall!))).toMatchObject({ commits: 0 });

    const refused = await counted(() =>
      receiveMessage(deps, { taskId, message: approve(), sender: BOB }).catch((error) => error)
    );
    expect(refused).toMatchObject({ reads: 1, commits: 0 });
    expect(refused.result).toBeInstanceOf(ApprovalNotAllowedError);

    const answered = await counted(() =>
      receiveMessage(deps, { taskId, message: approve(), sender: CAROL })
    );
    expect(answered).toMatchObject(one);
    expect(answered.result).toMatchObject({ wake: { action: 'resume', token: 'token-1' } });

    const resumed = await counted(() => takeTurn(deps, parking.result.ref));
    expect(resumed).toMatchObject(one);
    expect(resumed.result.route).toMatchObject({ next: 'execute_tools' });
    // The approved call: its attempt, then its result (it may run only once).
    expect(await counted(() => executeTool(deps, deleteCall!))).toMatchObject({ commits: 2 });
  });
});

describe('masking arguments for approvers', () => {
  it('masks credentials by name, by the schema (writeOnly, format password) and by shape', () => {
    const parameters = {
      type: 'object',
      properties: {
        pin: { type: 'string', writeOnly: true },
        login: {
          type: 'object',
          properties: { code: { type: 'string', format: 'password' }, user: { type: 'string' } },
        },
      },
    };
    const masked = maskedArguments(
      {
        pin: '1234',
        password: 'hunter2',
        login: { code: '9999', user: 'ann' },
        note: 'key sk-abcdefghijklmnopqrstuvwxyz0123',
      },
      parameters
    );
    expect(JSON.parse(masked)).toEqual({
      pin: '[redacted]',
      password: '[redacted]',
      login: { code: '[redacted]', user: 'ann' },
      note: 'key [redacted]',
    });
  });

  it('masks a call as the model wrote it (the timeline has no schema): by name and by shape', () => {
    const token = `ghp_${'a'.repeat(36)}`;
    expect(
      JSON.parse(maskedArgumentsText(JSON.stringify({ api_token: 'x', body: `use ${token}` })))
    ).toEqual({ api_token: '[redacted]', body: 'use [redacted]' });
    expect(maskedArgumentsText(`not json ${token}`)).toBe('not json [redacted]');
  });
});
