import type { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { LOG_PAGE } from '../../../functions/service/task-stream.js';
import { ALICE, BOB, STRANGER } from '../../support/harness.js';
import { authorizationFor } from '../../support/identity.js';
import { textMessage } from '../../support/messages.js';
import {
  BINDINGS,
  type BindingName,
  errorOf,
  type Outcome,
  type StreamRead,
  setupFor,
  spelling,
} from './a2a-calls.js';

/** What each frame of a stream is: `task:<state>`, `status:<state>`, ... */
const kinds = (read: StreamRead | undefined) =>
  (read?.events ?? []).map(({ response }) => {
    const [kind] = Object.keys(response);
    const value = response[kind ?? ''] as { status?: { state?: string } };
    const state = (value.status?.state ?? '').replace('TASK_STATE_', '');
    return `${kind === 'statusUpdate' ? 'status' : kind}:${state}`;
  });

const ids = (read: StreamRead | undefined) => (read?.events ?? []).map((event) => Number(event.id));

const taskIdOf = (read: StreamRead | undefined) =>
  (read?.events[0]?.response.task as { id: string } | undefined)?.id ?? '';

const statusText = (read: StreamRead | undefined) =>
  (read?.events ?? []).flatMap(({ response }) => {
    const status = response.statusUpdate?.status as
      | { message?: { parts: Array<{ text?: string }> } }
      | undefined;
    return status?.message?.parts.map((part) => part.text ?? '') ?? [];
  });

/** A conversation started over the stream, answered and parked, driven as Step Functions would. */
const startedConversation = async (binding: BindingName, replies: Array<{ text: string }>) => {
  const setup = setupFor(binding, replies, { background: true });
  const first = await setup.calls.stream(textMessage('hi'));
  await setup.background.idle();
  return { setup, first, taskId: taskIdOf(first.stream) };
};

/**
 * The in-memory ports answer in microtasks, so by the next timer a subscribe call has read where
 * the log ends: what happens after this is news to it.
 */
const subscriptionOpened = () => new Promise((resolve) => setTimeout(resolve, 5));

/** A raw SubscribeToTask as Alice, once its first frame has come: the stream body itself. */
const subscribedRaw = async (
  setup: ReturnType<typeof setupFor>,
  binding: BindingName,
  taskId: string
): Promise<Readable> => {
  const subscribe =
    binding === 'JSON-RPC'
      ? {
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'SubscribeToTask',
            params: { id: taskId },
          }),
        }
      : { path: `/tasks/${taskId}:subscribe` };
  const response = await setup.rawCall({
    ...subscribe,
    headers: {
      'Content-Type': 'application/json',
      'A2A-Version': '1.0',
      ...authorizationFor(ALICE),
    },
  });
  const body = response.body as Readable;
  await new Promise((resolve) => body.once('data', resolve));
  return body;
};

const sendTo = (taskId: string, text: string) => ({ ...textMessage(text), taskId });

describe.each(BINDINGS)('streaming over %s (A2A §3.1.2, §3.1.6)', (binding) => {
  it('SendStreamingMessage answers an SSE stream: the new Task first, then each status the task logs, ending when it pauses for input', async () => {
    const { first } = await startedConversation(binding, [{ text: 'Hello Alice.' }]);

    expect(first.status).toBe(200);
    expect(first.headers['Content-Type']).toBe('text/event-stream');
    expect(first.headers['Cache-Control']).toBe('no-cache');
    // The creation took the message in and set the task WORKING: the stream starts there.
    expect(kinds(first.stream)).toEqual(['task:WORKING', 'status:INPUT_REQUIRED']);
    expect(statusText(first.stream)).toEqual(['Hello Alice.']);
    // Frame ids are the event log's seqs, ascending: what Last-Event-ID resumes from.
    const seqs = ids(first.stream);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs.slice(1)).size).toBe(seqs.length - 1);
    expect(first.stream?.error).toBeUndefined();
  });

  it('SendStreamingMessage to a paused task starts with the task as it is and ends at the pause that answers this message, not the one before it', async () => {
    const { setup, taskId } = await startedConversation(binding, [
      { text: 'Hello Alice.' },
      { text: 'Noted.' },
    ]);

    const second = await setup.calls.stream(sendTo(taskId, 'one more thing'));

    // The claim that took the message in set the task WORKING: the stream starts there.
    expect(kinds(second.stream)).toEqual(['task:WORKING', 'status:INPUT_REQUIRED']);
    expect(statusText(second.stream)).toEqual(['Noted.']);
  });

  it('SubscribeToTask sends the current Task, replays the log from its start past earlier pauses, and ends at the next pause', async () => {
    const { setup, first, taskId } = await startedConversation(binding, [
      { text: 'Hello Alice.' },
      { text: 'Noted.' },
    ]);

    const subscribed = setup.calls.subscribe(taskId);
    await subscriptionOpened();
    await setup.calls.send(sendTo(taskId, 'one more thing'));
    await setup.background.idle();
    const read = (await subscribed).stream;

    const replayed = first.stream?.events.slice(1).map((event) => event.response) ?? [];
    expect(read?.events[0]?.response.task).toMatchObject({ id: taskId });
    // The log from seq 1: the Task as created and its move to WORKING (the creation's commit),
    // then what the first stream carried after its Task.
    expect(kinds(read).slice(1, 3)).toEqual(['task:SUBMITTED', 'status:WORKING']);
    expect(read?.events.slice(3, 3 + replayed.length).map((event) => event.response)).toEqual(
      replayed
    );
    expect(kinds(read).slice(-2)).toEqual(['status:WORKING', 'status:INPUT_REQUIRED']);
    expect(ids(read).slice(1, 4)).toEqual([1, 2, 3]);
  });

  it('gives concurrent subscribers the same events in the same order (§3.5.2)', async () => {
    const { setup, taskId } = await startedConversation(binding, [
      { text: 'Hello Alice.' },
      { text: 'Noted.' },
    ]);

    const one = setup.calls.subscribe(taskId);
    const two = setup.calls.subscribe(taskId, { as: ALICE });
    await subscriptionOpened();
    await setup.calls.send(sendTo(taskId, 'one more thing'));
    await setup.background.idle();
    const [a, b] = await Promise.all([one, two]);

    expect(a.stream?.events.slice(1)).toEqual(b.stream?.events.slice(1));
    expect(kinds(a.stream).at(-1)).toBe('status:INPUT_REQUIRED');
  });

  it('resumes after Last-Event-ID: the current Task, then only the events after that id', async () => {
    const { setup, first, taskId } = await startedConversation(binding, [
      { text: 'Hello Alice.' },
      { text: 'Noted.' },
    ]);
    const lastSeen = ids(first.stream).at(-2) ?? 0;

    const resumed = setup.calls.subscribe(taskId, {
      headers: { 'Last-Event-ID': String(lastSeen) },
    });
    await subscriptionOpened();
    await setup.calls.send(sendTo(taskId, 'one more thing'));
    await setup.background.idle();
    const read = (await resumed).stream;

    expect(ids(read)[0]).toBe(lastSeen);
    expect(ids(read)[1]).toBe(lastSeen + 1);
    expect(kinds(read)).toEqual([
      'task:INPUT_REQUIRED',
      'status:INPUT_REQUIRED',
      'status:WORKING',
      'status:INPUT_REQUIRED',
    ]);
  });

  it('ends a subscriber’s stream with CANCELED when a participant cancels the task', async () => {
    const { setup, taskId } = await startedConversation(binding, [{ text: 'Hello Alice.' }]);

    const subscribed = setup.calls.subscribe(taskId);
    await subscriptionOpened();
    await setup.calls.cancel(taskId);
    const read = (await subscribed).stream;

    expect(kinds(read).at(-1)).toBe('status:CANCELED');
  });

  it('ends a subscriber’s stream at the end of a task that ended just after the subscription read it', async () => {
    const { setup, taskId } = await startedConversation(binding, [{ text: 'Hello Alice.' }]);
    const store = setup.runtime.loop.store;
    const get = store.get.bind(store);
    let raced = false;
    // The subscription reads the task while it is parked; it is canceled before the stream starts.
    vi.spyOn(store, 'get').mockImplementation(async (id) => {
      const record = await get(id);
      if (!raced) {
        raced = true;
        await setup.calls.cancel(taskId);
      }
      return record;
    });
    const read = (await setup.calls.subscribe(taskId)).stream;

    expect(kinds(read)[0]).toBe('task:INPUT_REQUIRED');
    expect(kinds(read).at(-1)).toBe('status:CANCELED');
    // Ended by the CANCELED status, not left open until the stream's maximum duration.
    expect(setup.logs()).toContainEqual(
      expect.objectContaining({ message: 'a2a stream ended', taskId, reason: 'terminal' })
    );
  });

  it('sends keep-alive comments while idle and closes at the maximum duration', async () => {
    const setup = setupFor(binding, [{ text: 'Hello Alice.' }], {
      background: true,
      stream: { keepAliveMs: 5, maxDurationMs: 80 },
    });
    const first = await setup.calls.stream(textMessage('hi'));
    await setup.background.idle();

    const read = (await setup.calls.subscribe(taskIdOf(first.stream))).stream;

    expect(read?.keepAlives).toBeGreaterThan(0);
    expect(setup.logs()).toContainEqual(
      expect.objectContaining({ message: 'a2a stream ended', reason: 'max-duration' })
    );
  });

  it('refuses, as a plain error answer and with nothing streamed: subscribing to an ended task (UnsupportedOperation), to a stranger’s or a missing task (TaskNotFound), a bad Last-Event-ID, a stream with no message', async () => {
    const { setup, taskId } = await startedConversation(binding, [{ text: 'Hello Alice.' }]);
    const other = await startedConversation(binding, [{ text: 'Hi.' }]);
    await other.setup.calls.cancel(other.taskId);

    const expectError = (outcome: Outcome, kind: Parameters<typeof spelling>[1]) => {
      expect(outcome.stream).toBeUndefined();
      expect(errorOf(binding, outcome)).toEqual(spelling(binding, kind));
    };
    expectError(await other.setup.calls.subscribe(other.taskId), 'UnsupportedOperation');
    expectError(await setup.calls.subscribe(taskId, { as: STRANGER }), 'TaskNotFound');
    expectError(await setup.calls.subscribe('no-such-task'), 'TaskNotFound');
    expectError(
      await setup.calls.subscribe(taskId, { headers: { 'Last-Event-ID': 'x' } }),
      'InvalidParams'
    );
    expectError(
      await setup.calls.subscribe(taskId, { headers: { 'Last-Event-ID': '999' } }),
      'InvalidParams'
    );
    expectError(
      await other.setup.calls.stream(sendTo(other.taskId, 'too late')),
      'UnsupportedOperation'
    );
  });

  it('refuses a streamed message from a non-participant as TaskNotFound, storing nothing', async () => {
    const { setup, taskId } = await startedConversation(binding, [{ text: 'Hello Alice.' }]);
    const before = await setup.harness.store.readInbox(taskId);

    const refused = await setup.calls.stream(sendTo(taskId, 'let me in'), { as: BOB });

    expect(errorOf(binding, refused)).toEqual(spelling(binding, 'TaskNotFound'));
    expect(await setup.harness.store.readInbox(taskId)).toEqual(before);
  });

  it('stops following when the client goes away, and logs why the stream ended', async () => {
    const { setup, taskId } = await startedConversation(binding, [{ text: 'Hello Alice.' }]);
    const body = await subscribedRaw(setup, binding, taskId);
    body.destroy();
    const reads = vi.spyOn(setup.harness.deps.events, 'read');

    await vi.waitFor(() =>
      expect(setup.logs()).toContainEqual(
        expect.objectContaining({ message: 'a2a stream ended', taskId, reason: 'client-gone' })
      )
    );
    const readsAtEnd = reads.mock.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(reads.mock.calls.length).toBe(readsAtEnd);
  });

  it('does not report a read that fails after its client left as a failure (a stop takes the store away behind it)', async () => {
    const { setup, taskId } = await startedConversation(binding, [{ text: 'Hello Alice.' }]);
    const body = await subscribedRaw(setup, binding, taskId);
    let failRead: (error: Error) => void = () => undefined;
    const inFlight = new Promise<never>((_, reject) => {
      failRead = reject;
    });
    const reads = vi.spyOn(setup.harness.deps.events, 'read').mockReturnValueOnce(inFlight);
    await vi.waitFor(() => expect(reads).toHaveBeenCalled());

    body.destroy();
    failRead(new Error('connect ECONNREFUSED'));

    await vi.waitFor(() =>
      expect(setup.logs()).toContainEqual(
        expect.objectContaining({ message: 'a2a stream ended after its client left' })
      )
    );
    expect(setup.logs()).not.toContainEqual(
      expect.objectContaining({ message: 'a2a stream failed' })
    );
  });

  it('replays a log longer than a page whole and in order, a page at a time', async () => {
    const { setup, taskId } = await startedConversation(binding, [{ text: 'Hello Alice.' }]);
    const { events, store } = setup.harness.deps;
    for (let i = 0; i < LOG_PAGE * 2 + 10; i++) {
      const base = await setup.harness.task(taskId);
      await store.commit({
        kind: 'update',
        base,
        record: base,
        events: [{ kind: 'task', task: base.task }],
      });
    }
    const head = await events.lastSeq(taskId);
    const reads = vi.spyOn(events, 'read');

    const subscribed = setup.calls.subscribe(taskId);
    await subscriptionOpened();
    await setup.calls.cancel(taskId);
    const read = (await subscribed).stream;

    expect(ids(read).slice(1, head + 1)).toEqual(Array.from({ length: head }, (_, i) => i + 1));
    expect(kinds(read).at(-1)).toBe('status:CANCELED');
    expect(reads.mock.calls.every(([, , limit]) => limit === LOG_PAGE)).toBe(true);
  });

  it('sends a failure after the stream started as an error event, and ends the stream', async () => {
    const { setup, taskId } = await startedConversation(binding, [{ text: 'Hello Alice.' }]);
    vi.spyOn(setup.harness.deps.events, 'read').mockRejectedValueOnce(new Error('disk on fire'));

    const read = (await setup.calls.subscribe(taskId)).stream;

    expect(kinds(read)).toEqual(['task:INPUT_REQUIRED']);
    expect(read?.error).toMatchObject(
      binding === 'JSON-RPC' ? { code: -32603 } : { code: 500, status: 'INTERNAL' }
    );
    expect(JSON.stringify(read?.error)).not.toContain('disk on fire');
    expect(setup.logs()).toContainEqual(expect.objectContaining({ message: 'a2a stream failed' }));
  });
});

describe('what a stream shows of the task extension (the renderers read it from Task events)', () => {
  it('follows a plan change with the updated Task, carrying the plan', async () => {
    const setup = setupFor(
      'JSON-RPC',
      [
        {
          toolCalls: [
            {
              name: 'create_plan',
              arguments: { steps: [{ name: 'Answer', description: 'say hello' }] },
            },
          ],
        },
        { text: 'Hello Alice.' },
      ],
      { background: true }
    );

    const read = (await setup.calls.stream(textMessage('hi'))).stream;

    expect(kinds(read)).toEqual(['task:WORKING', 'task:WORKING', 'status:INPUT_REQUIRED']);
    const planned = read?.events[1]?.response.task as { metadata: Record<string, unknown> };
    expect(JSON.stringify(planned.metadata)).toContain('"say hello"');
    expect(JSON.stringify(read?.events[0]?.response.task)).not.toContain('"say hello"');
  });
});
