import { type Message, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_METADATA_KEY } from '../../functions/core/a2a/identifiers.js';
import { AUDIT_JSON_RPC_METHOD } from '../../functions/core/audit/identifiers.js';
import type { Timeline } from '../../functions/core/audit/timeline.schema.js';
import { ScriptedModel } from '../../functions/core/testing/scripted-model.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { authorizationFor } from '../support/identity.js';
import { asTask, clientFor, eventually, startStack } from '../support/local-stack.js';
import { serveNotesOverHttp } from '../support/mcp-notes-stateless-http.js';
import { envelopeMessage, textMessage } from '../support/messages.js';

let sent = 0;
const send = (message: Message, taskId = '') => ({
  tenant: '',
  message: { ...message, messageId: `approval-${Date.now()}-${++sent}`, taskId },
  configuration: undefined,
  metadata: undefined,
});

/**
 * Alice asks (reporter), Bob watches, Carol administers, built as a client must build it: a new
 * task names others only as watchers, so Alice opens it as its admin (no text: it parks without a
 * model call), hands the roles out with a task envelope, and then asks.
 */
const castTask = async (alice: Client, text: string) => {
  const opened = asTask(
    await alice.sendMessage(
      send(
        envelopeMessage('task', {
          name: text,
          goal: text,
          participants: [
            { id: 'alice', kind: 'human', role: 'admin' },
            { id: 'bob', kind: 'human', role: 'watcher' },
            { id: 'carol', kind: 'human', role: 'watcher' },
          ],
        })
      )
    )
  );
  await alice.sendMessage(
    send(
      envelopeMessage('task', {
        participants: [
          { id: 'alice', kind: 'human', role: 'reporter' },
          { id: 'bob', kind: 'human', role: 'watcher' },
          { id: 'carol', kind: 'human', role: 'admin' },
          { id: 'tiny-harness', kind: 'agent', role: 'assignee' },
        ],
      }),
      opened.id
    )
  );
  return asTask(await alice.sendMessage(send(textMessage(text), opened.id)));
};

const control = (payload: object) => envelopeMessage('control', payload);

const statusText = (task: { status?: { message?: { parts: Array<{ content?: unknown }> } } }) =>
  (task.status?.message?.parts ?? [])
    .map((part) => {
      const content = part.content as { $case?: string; value?: string } | undefined;
      return content?.$case === 'text' ? content.value : '';
    })
    .join('');

/**
 * A participant's approval before an MCP call that can do harm, through the local stack (the
 * synthesized state machine, DynamoDB Local, the real A2A client over HTTP) against the notes
 * server over Streamable HTTP on loopback, which counts the calls it runs. Three servers on it, by
 * policy: `notes` (reporters and admins approve), `strict` (admins only), `quick` (2 s to answer).
 */
describe('approval of an MCP call through the local stack', () => {
  const model = new ScriptedModel();
  let notes: Awaited<ReturnType<typeof serveNotesOverHttp>>;
  let stack: LocalStack;
  const deletions = () => notes.calls.filter((call) => call.tool === 'delete_note');

  beforeAll(async () => {
    notes = await serveNotesOverHttp();
    const server = (tools: string[], approval: object) => ({ url: notes.url, tools, approval });
    stack = await startStack({
      model,
      env: {
        TINY_HARNESS_MCP_SERVERS: JSON.stringify({
          notes: server(['put_note', 'delete_note'], { approvers: ['reporter', 'admin'] }),
          strict: server(['delete_note'], { approvers: ['admin'] }),
          quick: server(['delete_note'], { approvers: ['admin'], timeoutSeconds: 2 }),
        }),
      },
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await notes?.close();
  });

  const toolResults = async (taskId: string) =>
    (await stack.runtime.loop.store.readHistory(taskId)).flatMap((entry) =>
      entry.kind === 'tool_result' ? [entry.output] : []
    );
  const subStateOf = async (taskId: string) => {
    const alice = await clientFor(stack, 'alice');
    const task = await alice.getTask({ tenant: '', id: taskId });
    const status = task.metadata?.[STATUS_METADATA_KEY] as { sub_state?: string } | undefined;
    return { state: task.status?.state, subState: status?.sub_state ?? null };
  };
  /** The audit extension's timeline, as a participant reads it over A2A (JSON-RPC). */
  const timelineOf = async (taskId: string): Promise<Timeline> => {
    const answer = await fetch(stack.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'A2A-Version': '1.0',
        ...authorizationFor('alice'),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: AUDIT_JSON_RPC_METHOD,
        params: { id: taskId },
      }),
    });
    return ((await answer.json()) as { result: Timeline }).result;
  };
  /** The tool calls and approvals of a timeline, in order: kind, who, summary. */
  const approvalStory = (timeline: Timeline) =>
    timeline.entries
      .filter((entry) => entry.kind === 'tool_call' || entry.kind.startsWith('approval_'))
      .map((entry) => [entry.kind, entry.actor, entry.summary]);
  // Polled on the store: over A2A, 20 polls a second would meet the per-caller throttle.
  const settledAfterTheCall = (taskId: string) =>
    eventually(async () => {
      const record = await stack.runtime.loop.store.get(taskId);
      const status = record?.task.metadata?.[STATUS_METADATA_KEY] as
        | { sub_state?: string }
        | undefined;
      return status?.sub_state === 'awaiting-next-message' ? record : undefined;
    }, 20_000);

  it('parks awaiting-approval; a watcher and a non-approver are refused and wake nothing; an admin approves and it runs once', async () => {
    model.push(
      { toolCalls: [{ name: 'strict__delete_note', arguments: { id: 'shop' } }] },
      { text: 'Deleted.' }
    );
    const [alice, bob, carol] = await Promise.all(
      ['alice', 'bob', 'carol'].map((participant) => clientFor(stack, participant))
    );

    const parked = await castTask(alice!, 'delete the shopping note');

    expect(parked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(parked.metadata?.[STATUS_METADATA_KEY]).toEqual({ sub_state: 'awaiting-approval' });
    expect(statusText(parked)).toMatch(
      /^Approval needed before this tool call can run:\n- \S+: strict__delete_note \{"id":"shop"\} \(approvers: admin\)\n/
    );
    expect(deletions()).toEqual([]);
    const calls = model.requests.length;

    await expect(bob!.sendMessage(send(control({ action: 'approve' }), parked.id))).rejects.toThrow(
      /bob is a watcher: strict__delete_note \(\S+\) may be approved or rejected by its admin/
    );
    await expect(
      alice!.sendMessage(send(control({ action: 'reject' }), parked.id))
    ).rejects.toThrow(/alice is a reporter/);
    expect(await subStateOf(parked.id)).toEqual({
      state: TaskState.TASK_STATE_INPUT_REQUIRED,
      subState: 'awaiting-approval',
    });
    expect(model.requests).toHaveLength(calls);

    await carol!.sendMessage(
      send(control({ action: 'approve', reason: 'it is stale' }), parked.id)
    );

    await settledAfterTheCall(parked.id);
    expect(deletions()).toEqual([{ tool: 'delete_note', args: { id: 'shop' } }]);
    expect(await toolResults(parked.id)).toEqual([
      expect.stringContaining('no note shop: nothing deleted'),
    ]);
    expect(model.requests).toHaveLength(calls + 1);

    // The call once, when it ran: after the approval, not when the approval was asked for.
    const timeline = await timelineOf(parked.id);
    expect(approvalStory(timeline)).toEqual([
      [
        'approval_requested',
        { kind: 'tool', id: 'strict__delete_note' },
        expect.stringMatching(
          /^approval requested: strict__delete_note\(\{"id":"shop"\}\), from admin, until /
        ),
      ],
      [
        'approval_granted',
        { kind: 'participant', id: 'carol' },
        'approved: strict__delete_note({"id":"shop"}): it is stale',
      ],
      [
        'tool_call',
        { kind: 'tool', id: 'strict__delete_note' },
        'strict__delete_note({"id":"shop"}) → no note shop: nothing deleted',
      ],
    ]);
    expect(new Set(timeline.entries.map((entry) => entry.source.ref)).size).toBe(
      timeline.entries.length
    );
  });

  it('rejected by a reporter (a configured approver): never runs, and the model reads tool.rejected', async () => {
    model.push(
      { toolCalls: [{ name: 'notes__delete_note', arguments: { id: 'todo' } }] },
      { text: 'Kept it.' }
    );
    const alice = await clientFor(stack, 'alice');
    const before = deletions().length;
    const parked = await castTask(alice, 'delete the todo note');
    expect(statusText(parked)).toContain('(approvers: reporter, admin)');

    await alice.sendMessage(
      send(control({ action: 'reject', reason: 'I still need it' }), parked.id)
    );

    await settledAfterTheCall(parked.id);
    expect(deletions()).toHaveLength(before);
    expect(await toolResults(parked.id)).toEqual([
      '[tool.rejected] notes__delete_note did not run: alice rejected it: I still need it',
    ]);
    expect(approvalStory(await timelineOf(parked.id))).toEqual([
      ['approval_requested', { kind: 'tool', id: 'notes__delete_note' }, expect.any(String)],
      [
        'approval_rejected',
        { kind: 'participant', id: 'alice' },
        'rejected: notes__delete_note({"id":"todo"}): I still need it',
      ],
      [
        'tool_call',
        { kind: 'tool', id: 'notes__delete_note' },
        'notes__delete_note({"id":"todo"}) never ran: rejected by alice: I still need it',
      ],
    ]);
  });

  it('approving one of two waiting calls leaves the status listing only the other', async () => {
    model.push(
      {
        toolCalls: [
          { name: 'notes__delete_note', arguments: { id: 'first' } },
          { name: 'notes__delete_note', arguments: { id: 'second' } },
        ],
      },
      { text: 'Done.' }
    );
    const alice = await clientFor(stack, 'alice');
    const parked = await castTask(alice, 'delete two notes');
    const listed = [...statusText(parked).matchAll(/^- (\S+): notes__delete_note/gm)].map(
      (match) => match[1] as string
    );
    expect(listed).toHaveLength(2);

    await alice.sendMessage(send(control({ action: 'approve', calls: [listed[0]] }), parked.id));

    const after = await alice.getTask({ tenant: '', id: parked.id });
    expect(after.metadata?.[STATUS_METADATA_KEY]).toEqual({ sub_state: 'awaiting-approval' });
    expect(statusText(after)).toMatch(
      new RegExp(
        `^Approval needed before this tool call can run:\\n- ${listed[1]}: notes__delete_note \\{"id":"second"\\} `
      )
    );
    expect(statusText(after)).not.toContain(listed[0]);
    // Followers are told: the status, relisted, is an event of the task.
    const relisted = (await timelineOf(parked.id)).entries.filter(
      (entry) => entry.kind === 'progress'
    );
    expect(relisted.map((entry) => entry.summary)).toEqual([
      expect.stringMatching(/^Approval needed before this tool call can run: /),
    ]);
    await alice.sendMessage(send(control({ action: 'reject', calls: [listed[1]] }), parked.id));
    await settledAfterTheCall(parked.id);
    const calls = (await timelineOf(parked.id)).entries.filter((e) => e.kind === 'tool_call');
    expect(calls.map((entry) => entry.summary)).toEqual([
      expect.stringMatching(/^notes__delete_note\(\{"id":"first"\}\) [→✗]/),
      'notes__delete_note({"id":"second"}) never ran: rejected by alice',
    ]);
  });

  it('times out to a rejection when nobody answers: the wait ends at the deadline', async () => {
    model.push(
      { toolCalls: [{ name: 'quick__delete_note', arguments: { id: 'old' } }] },
      { text: 'Nobody answered.' }
    );
    const alice = await clientFor(stack, 'alice');
    const before = deletions().length;
    const parked = await castTask(alice, 'delete the old note');
    expect(parked.metadata?.[STATUS_METADATA_KEY]).toEqual({ sub_state: 'awaiting-approval' });

    await settledAfterTheCall(parked.id);

    expect(deletions()).toHaveLength(before);
    expect(await toolResults(parked.id)).toEqual([
      '[tool.rejected] quick__delete_note did not run: no approver answered within 2 s',
    ]);
    const timeline = await timelineOf(parked.id);
    // Settled by the next generation, the call still carries its own name and arguments.
    expect(approvalStory(timeline).slice(1)).toEqual([
      [
        'approval_expired',
        { kind: 'timeout', id: null },
        'approval expired: quick__delete_note({"id":"old"}): no approver answered within 2 s',
      ],
      [
        'tool_call',
        { kind: 'tool', id: 'quick__delete_note' },
        'quick__delete_note({"id":"old"}) never ran: expired by the deadline: no approver answered within 2 s',
      ],
    ]);
    expect(timeline.entries.find((entry) => entry.kind === 'tool_call')?.details).toMatchObject({
      generation: 2,
    });
    expect(timeline.entries.find((entry) => entry.kind === 'approval_expired')).toMatchObject({
      actor: { kind: 'timeout', id: null },
      summary:
        'approval expired: quick__delete_note({"id":"old"}): no approver answered within 2 s',
    });
    // The park timed out and the next generation took over to record the rejection.
    expect(
      timeline.entries.some(
        (entry) => entry.kind === 'wait_ended' && entry.actor?.kind === 'timeout'
      )
    ).toBe(true);
  });
});
