import { type Message, Role, type Task, TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { tokenHashOf } from '../../../functions/adapters/remote/push-token.js';
import { RemoteCallError } from '../../../functions/core/errors.js';
import type {
  BriefAnswer,
  Registration,
  RemoteAgent,
  RemoteAgents,
} from '../../../functions/core/ports/remote-agents.js';
import type { RemoteCard } from '../../../functions/core/remote/remote-card.js';
import {
  creatingLink,
  observed,
  type RemoteLink,
} from '../../../functions/core/remote/remote-link.js';
import { snapshotOf } from '../../../functions/core/remote/remote-snapshot.js';
import {
  failRemoteChild,
  followRemoteChild,
  RENEW_AFTER_STEPS,
  receiveRemotePush,
} from '../../../functions/service/remote-children.js';
import { ALICE, STATES, view } from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';
import { inMemoryRuntime, withExecutionWaker } from '../support.js';

const agentMessage = (messageId: string, text: string): Message => ({
  messageId,
  contextId: 'c',
  taskId: 'r-1',
  role: Role.ROLE_AGENT,
  parts: [
    { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' },
  ],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

const remoteTask = (state: TaskState, text?: string): Task => ({
  id: 'r-1',
  contextId: 'c',
  status: {
    state,
    message: text === undefined ? undefined : agentMessage(`m-${state}`, text),
    timestamp: '',
  },
  artifacts: [],
  history: [],
  metadata: undefined,
});

/** One remote agent as a test plays it: what GetTask and CancelTask answer, call by call. */
class PlayedAgent implements RemoteAgents {
  readonly calls: string[] = [];
  getTaskAnswer: () => Task = () => remoteTask(TaskState.TASK_STATE_WORKING);
  cancelAnswer: () => Task = () => remoteTask(TaskState.TASK_STATE_CANCELED);
  readonly agent: RemoteAgent = {
    id: 'ledger',
    description: '',
    push: true,
    policy: { pollSeconds: 2, maxPollSeconds: 60, unreachableSeconds: 600 },
  };

  list = () => [this.agent];
  get = (id: string) => (id === 'ledger' ? this.agent : undefined);
  register = async (): Promise<Registration[]> => [];
  card = async (): Promise<RemoteCard> => {
    throw new Error('not called');
  };
  send = async (): Promise<BriefAnswer> => {
    throw new Error('not called');
  };
  findTask = async () => undefined;
  getTask = async () => {
    this.calls.push('GetTask');
    return this.getTaskAnswer();
  };
  cancelTask = async () => {
    this.calls.push('CancelTask');
    return this.cancelAnswer();
  };
}

const unreachable = () => {
  throw new RemoteCallError('unreachable', 'CancelTask on ledger: ECONNREFUSED');
};

/** A parent parked waiting for its child on ledger, and the child's link, following it. */
const setup = async (delivery: RemoteLink['delivery'] = 'poll') => {
  const parts = inMemoryRuntime({
    replies: [
      {
        toolCalls: [
          { name: 'spawn_subtask', arguments: { name: 'Books', goal: 'g', agent: 'ledger' } },
        ],
      },
      { text: 'Waiting.' },
      { text: 'Read it.' },
    ],
    harness: { remoteAgents: [{ id: 'ledger', description: '' }] },
  });
  const played = new PlayedAgent();
  const started: string[] = [];
  const runtime = withExecutionWaker({
    ...parts.runtime,
    remote: {
      ...parts.runtime.remote,
      agents: played,
      followers: {
        start: async (_ref: unknown, run: number | 'cancel') => {
          started.push(String(run));
        },
      },
    },
  });
  const parent = await parts.harness.start(textMessage('go'), ALICE);
  const created = creatingLink({
    parentId: parent.task.id,
    linkId: 'a'.repeat(32),
    agent: 'ledger',
    messageId: `${parent.task.id}:1:1:call-1`,
    delivery,
    tokenHash: delivery === 'push' ? tokenHashOf('the-token') : null,
    now: '2026-01-01T00:00:00.000Z',
  });
  const link = await runtime.remote.links.create(created);
  // The in-memory directory named the child `ledger-task-1`: so does the link.
  const working = observed(
    link,
    snapshotOf(
      { ...remoteTask(TaskState.TASK_STATE_SUBMITTED), id: 'ledger-task-1' },
      'ledger-task-1'
    ),
    'ledger-task-1'
  );
  await runtime.remote.links.update({ ...working, version: 2 });
  played.getTaskAnswer = () => ({
    ...remoteTask(TaskState.TASK_STATE_WORKING),
    id: 'ledger-task-1',
  });
  const ref = { parentId: parent.task.id, linkId: created.linkId };
  return { ...parts, runtime, played, started, parent, ref };
};

describe("a remote child's stand-in", () => {
  it('reads the remote task, delivers its end to the parent (row and note), and is done once the parent took it', async () => {
    const { runtime, played, parent, ref, harness, executions } = await setup();
    played.getTaskAnswer = () => ({
      ...remoteTask(TaskState.TASK_STATE_COMPLETED, 'Balanced.'),
      id: 'ledger-task-1',
    });

    const outcome = await followRemoteChild(runtime, { ...ref, run: 1, steps: 0 });

    expect(outcome).toMatchObject({ done: true, waitSeconds: 0 });
    const row = view(await harness.task(parent.task.id)).extension.sub_tasks[0];
    expect(row?.state).toBe(STATES.COMPLETED);
    // News woke the parked parent.
    expect(executions.resumed).toHaveLength(1);
    const notes = (await harness.store.readInbox(parent.task.id)).filter(
      (item) => item.kind === 'note'
    );
    expect(notes.map((item) => item.text)).toEqual([
      'Sub-task ledger-task-1 (on agent ledger) is TASK_STATE_COMPLETED: Balanced.',
    ]);
  });

  it('waits longer after each quiet poll, and hands over to a new execution before its history grows long', async () => {
    const { runtime, ref, started } = await setup();
    const first = await followRemoteChild(runtime, { ...ref, run: 1, steps: 0 });
    const second = await followRemoteChild(runtime, { ...first });
    expect([first.waitSeconds, second.waitSeconds]).toEqual([2, 4]);
    expect(second).toMatchObject({ done: false, steps: 2 });

    const last = await followRemoteChild(runtime, { ...ref, run: 1, steps: RENEW_AFTER_STEPS - 1 });
    expect(last.done).toBe(true);
    expect(started).toEqual(['2']);
  });

  it("sends the parent's cancel without holding it up: an agent that is down is asked again, and each attempt is recorded", async () => {
    const { runtime, played, parent, ref, started } = await setup();
    // The parent's cancel: the link records it and a cancel follower starts; nothing is sent yet.
    const [row] = view(await runtime.loop.store.get(parent.task.id).then((r) => r!)).extension
      .sub_tasks;
    await runtime.loop.waker.follow({
      action: 'ended',
      executions: [],
      remoteChildren: [{ parentId: parent.task.id, row: row! }],
    });
    expect(started).toEqual(['cancel']);
    expect(played.calls).toEqual([]);
    expect((await runtime.remote.links.get(ref.parentId, ref.linkId))?.cancel).toMatchObject({
      attempts: 0,
      done: false,
    });

    played.cancelAnswer = unreachable;
    played.getTaskAnswer = unreachable;
    const refused = await followRemoteChild(runtime, { ...ref, run: 'cancel', steps: 0 });
    expect(refused).toMatchObject({ done: false, waitSeconds: 2 });
    expect((await runtime.remote.links.get(ref.parentId, ref.linkId))?.cancel).toMatchObject({
      attempts: 1,
      lastError: 'CancelTask on ledger: ECONNREFUSED',
      done: false,
    });

    played.cancelAnswer = () => ({
      ...remoteTask(TaskState.TASK_STATE_CANCELED),
      id: 'ledger-task-1',
    });
    const sent = await followRemoteChild(runtime, refused);
    expect(sent.done).toBe(true);
    const link = await runtime.remote.links.get(ref.parentId, ref.linkId);
    expect(link).toMatchObject({ phase: 'ended', state: 'TASK_STATE_CANCELED' });
    expect(link?.cancel).toMatchObject({ attempts: 2, lastError: null, done: true });
  });

  it('takes a push only with the token generated for the child, then reads the task and delivers it', async () => {
    const { runtime, played, parent, ref, harness } = await setup('push');
    expect(await receiveRemotePush(runtime, ref, 'a-guess')).toBe('unauthorized');
    expect(await receiveRemotePush(runtime, ref, undefined)).toBe('unauthorized');
    expect(await receiveRemotePush(runtime, { ...ref, linkId: 'b'.repeat(32) }, 'the-token')).toBe(
      'unauthorized'
    );
    expect(played.calls).toEqual([]);

    played.getTaskAnswer = () => ({
      ...remoteTask(TaskState.TASK_STATE_INPUT_REQUIRED, 'Which year?'),
      id: 'ledger-task-1',
    });
    expect(await receiveRemotePush(runtime, ref, 'the-token')).toBe('accepted');
    expect(played.calls).toEqual(['GetTask']);
    const row = view(await harness.task(parent.task.id)).extension.sub_tasks[0];
    expect(row).toMatchObject({ state: STATES.INPUT_REQUIRED, sub_state: 'awaiting-answer' });

    played.getTaskAnswer = unreachable;
    expect(await receiveRemotePush(runtime, ref, 'the-token')).toBe('unavailable');
  });

  it('fails the child with the reason when its stand-in failed for good', async () => {
    const { runtime, parent, ref, harness } = await setup();
    await failRemoteChild(runtime, ref, 'TransientServiceError: throttled');
    const row = view(await harness.task(parent.task.id)).extension.sub_tasks[0];
    expect(row).toMatchObject({
      state: STATES.FAILED,
      reason: 'the stand-in following it failed: TransientServiceError: throttled',
    });
  });
});
