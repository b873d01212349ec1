import { type AgentCard, type Message, Role, type Task, TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TASK_METADATA_KEY } from '../../functions/core/a2a/identifiers.js';
import { TimelineSchema } from '../../functions/core/audit/timeline.schema.js';
import { userTextMessage } from '../../functions/core/loop/messages.js';
import type { Model, ModelRequest, ModelResponse } from '../../functions/core/ports/model.js';
import { scripted } from '../../functions/core/testing/scripted-model.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { forkTask, taskAt } from '../../functions/view/fork.js';
import { fetchTimeline } from '../../functions/view/timeline.js';
import { tokenFor } from '../support/identity.js';
import { asTask, clientFor, eventually, fetchAs, startStack } from '../support/local-stack.js';
import { sdkClient } from './a2a-clients.js';

/** A model that answers every call with what it was last told, and keeps every request. */
class EchoModel implements Model {
  readonly requests: ModelRequest[] = [];
  #calls = 0;

  async invoke(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const last = request.input.at(-1);
    const said = last?.type === 'message' ? last.text.replace(/^\[[^\]]+\] /, '') : '';
    return scripted({ text: `heard: ${said}` }, this.#calls++);
  }

  requestsOf(taskId: string): ModelRequest[] {
    return this.requests.filter((request) => request.cacheKey === taskId);
  }
}

const send = (message: Message) => ({
  tenant: '',
  message,
  configuration: undefined,
  metadata: undefined,
});
const get = (id: string) => ({ tenant: '', id, historyLength: undefined });

const LIST_ALL = {
  tenant: '',
  contextId: '',
  status: 0,
  pageToken: '',
  statusTimestampAfter: undefined,
  pageSize: undefined,
  historyLength: undefined,
  includeArtifacts: undefined,
};

let counter = 0;
const say = (text: string, taskId = '') =>
  userTextMessage({ messageId: `fork-e2e-${++counter}`, text, taskId, contextId: '' });

const textsOf = (task: Task) =>
  task.history.map((message) =>
    message.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('')
  );

const extensionOf = (task: Task) =>
  task.metadata?.[TASK_METADATA_KEY] as {
    forked_from?: { task_id: string; message_id: string | null };
    forks?: string[];
    name: string;
  };

describe('forking a task through npm start, on both bindings', () => {
  const model = new EchoModel();
  let stack: LocalStack;
  let card: AgentCard;

  beforeAll(async () => {
    stack = await startStack({ model });
    card = (await (await fetch(`${stack.url}/.well-known/agent-card.json`)).json()) as AgentCard;
  });

  afterAll(async () => {
    await stack?.close();
  });

  /** A conversation of `turns` turns through the real SDK client, as `participant`. */
  const conversation = async (participant: string, turns: number) => {
    const client = await clientFor(stack, participant);
    const first = asTask(await client.sendMessage(send(say('message 1'))));
    for (let turn = 2; turn <= turns; turn++) {
      await client.sendMessage(send(say(`message ${turn}`, first.id)));
    }
    return { client, taskId: first.id };
  };

  const parked = (client: Awaited<ReturnType<typeof clientFor>>, taskId: string) =>
    eventually(async () => {
      const task = await client.getTask(get(taskId));
      return task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED ? task : undefined;
    });

  it('JSON-RPC: a fork at turn 7 of 20 carries the transcript through it, and the two go on apart', async () => {
    const { client, taskId } = await conversation('alice', 20);
    const original = await client.getTask(get(taskId));
    expect(original.history).toHaveLength(40);
    const point = original.history[13]; // the agent's answer to message 7
    expect(point?.role).toBe(Role.ROLE_AGENT);

    const fork = await forkTask(
      { fetch: fetchAs('alice'), card },
      { taskId, point: { messageId: point?.messageId as string } }
    );
    expect(extensionOf(fork).forked_from).toEqual({
      task_id: taskId,
      message_id: point?.messageId,
    });
    expect(extensionOf(fork).name).toMatch(/\(fork\)$/);
    expect(textsOf(fork)).toEqual(textsOf(original).slice(0, 14));
    await parked(client, fork.id);

    await client.sendMessage(send(say('the other way', fork.id)));
    await client.sendMessage(send(say('message 21', taskId)));

    // The fork's first call was shown exactly turns 1-7 and its own message.
    const [forkCall] = model.requestsOf(fork.id);
    const turn8 = model.requestsOf(taskId)[7];
    expect(forkCall?.input.slice(1, -1)).toEqual(turn8?.input.slice(1, -1));
    expect(forkCall?.input.slice(1, -1)).toHaveLength(14);
    expect(forkCall?.input.at(-1)).toMatchObject({ text: '[alice] the other way' });

    const forkNow = textsOf(await client.getTask(get(fork.id)));
    const originalNow = await client.getTask(get(taskId));
    expect(forkNow.slice(-2)).toEqual(['the other way', 'heard: the other way']);
    expect(forkNow).not.toContain('message 21');
    expect(textsOf(originalNow)).not.toContain('the other way');
    expect(textsOf(originalNow).slice(-2)).toEqual(['message 21', 'heard: message 21']);
    expect(extensionOf(originalNow).forks).toEqual([fork.id]);

    // The task as it was at the point, and the audit of both.
    const then = await taskAt({ fetch: fetchAs('alice'), card }, taskId, {
      messageId: point?.messageId as string,
    });
    expect(textsOf(then)).toEqual(textsOf(original).slice(0, 14));
    const timeline = (id: string) =>
      fetchTimeline({
        fetch: fetchAs('alice'),
        card,
        taskId: id,
        subTasks: false,
        parse: (raw) => TimelineSchema.parse(raw),
      });
    const forkTimeline = await timeline(fork.id);
    expect(forkTimeline.entries[0]?.kind).toBe('forked_from');
    expect(forkTimeline.entries[0]?.summary).toBe(
      `forked from ${taskId} at ${point?.messageId} by alice`
    );
    expect((await timeline(taskId)).entries.find((entry) => entry.kind === 'forked')).toMatchObject(
      {
        actor: { kind: 'participant', id: 'alice' },
        details: { fork_task_id: fork.id },
      }
    );
  });

  it('HTTP+JSON: forks just before a turn with a first message, the two go on apart, and the task reads as it was', async () => {
    // The real SDK client over its REST transport for everything A2A; the fork's route by hand.
    const bob = await sdkClient(stack.url, 'bob', 'HTTP+JSON');
    const first = await bob.send('message 1');
    for (const n of [2, 3, 4]) await bob.send(`message ${n}`, { taskId: first.id });
    const response = await fetch(`${stack.url}/tasks/${first.id}:fork`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/a2a+json',
        'A2A-Version': '1.0',
        Authorization: `Bearer ${tokenFor('bob')}`,
      },
      body: JSON.stringify({ beforeTurn: 3, text: 'start over from here', name: 'Plan B' }),
    });
    expect(response.status).toBe(200);
    const fork = (await response.json()) as { id: string; metadata: Record<string, unknown> };
    expect((fork.metadata[TASK_METADATA_KEY] as { name: string }).name).toBe('Plan B');
    const said = (view: { history: Array<{ text: string }> }) => view.history.map((m) => m.text);
    await eventually(async () => {
      const task = await bob.getTask(fork.id);
      return said(task).length === 6 ? task : undefined;
    });
    await bob.send('and then?', { taskId: fork.id });
    await bob.send('message 5', { taskId: first.id });

    const forked = said(await bob.getTask(fork.id));
    const original = said(await bob.getTask(first.id));
    expect(forked).toEqual([
      'message 1',
      'heard: message 1',
      'message 2',
      'heard: message 2',
      'start over from here',
      'heard: start over from here',
      'and then?',
      'heard: and then?',
    ]);
    expect(original.slice(0, 4)).toEqual(forked.slice(0, 4));
    expect(original.slice(4)).toEqual([
      'message 3',
      'heard: message 3',
      'message 4',
      'heard: message 4',
      'message 5',
      'heard: message 5',
    ]);

    const at = await fetch(`${stack.url}/tasks/${first.id}:at?beforeTurn=2`, {
      headers: { 'A2A-Version': '1.0', Authorization: `Bearer ${tokenFor('bob')}` },
    });
    expect(at.status).toBe(200);
    const then = (await at.json()) as { history: unknown[] };
    expect(then.history).toHaveLength(2);
  });

  it('refuses a stranger, an unknown message, a point past the end and an over-long name, creating nothing', async () => {
    const { client, taskId } = await conversation('carol', 2);
    const call = async (who: string, params: Record<string, unknown>) => {
      const response = await fetchAs(who)(stack.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tiny-harness/ForkTask',
          params: { id: taskId, ...params },
        }),
      });
      return ((await response.json()) as { error?: { code: number; message: string } }).error;
    };
    const before = (await client.listTasks(LIST_ALL)).tasks.length;
    expect(await call('mallory', {})).toMatchObject({ code: -32001 });
    expect(await call('carol', { messageId: 'no-such-message' })).toMatchObject({
      code: -32602,
      message: expect.stringContaining('no message no-such-message'),
    });
    expect(await call('carol', { beforeTurn: 9 })).toMatchObject({
      code: -32602,
      message: expect.stringContaining('past its end'),
    });
    expect(await call('carol', { name: 'x'.repeat(201) })).toMatchObject({ code: -32602 });
    expect(await call('carol', { messageId: 'm', beforeTurn: 1 })).toMatchObject({
      code: -32602,
    });
    expect((await client.listTasks(LIST_ALL)).tasks.length).toBe(before);
    expect(extensionOf(await client.getTask(get(taskId))).forks).toBeUndefined();
  });
});
