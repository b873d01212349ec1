import { describe, expect, it } from 'vitest';
import { FORK_AUDIT_KEY, forkAuditKey } from '../../../functions/core/audit/fork-record.js';
import { HistoryPointError, ParticipantsRefusedError } from '../../../functions/core/errors.js';
import type { HistoryEntry } from '../../../functions/core/loop/history.schema.js';
import { historyMessageId } from '../../../functions/core/loop/history-point.js';
import { readUsage } from '../../../functions/core/loop/usage.js';
import type { ScriptedReply } from '../../../functions/core/testing/scripted-model.js';
import {
  ALICE,
  BOB,
  compactedAtThirdMessage,
  harnessWith,
  STATES,
  sharedWithBob,
  view,
} from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';

const AGENT = 'tiny-harness';

const replies = (count: number, from = 1): ScriptedReply[] =>
  Array.from({ length: count }, (_, index) => ({ text: `reply ${from + index}` }));

/** A conversation of `turns` turns, one message and one reply each. */
const conversation = async (turns: number, extra: ScriptedReply[] = []) => {
  const { harness, model } = harnessWith([...replies(turns), ...extra]);
  const task = await harness.start(textMessage('message 1'), ALICE);
  const taskId = task.task.id;
  for (let turn = 2; turn <= turns; turn++) {
    await harness.send(taskId, textMessage(`message ${turn}`), ALICE);
  }
  return { harness, model, taskId };
};

const texts = (entries: readonly HistoryEntry[]) =>
  entries.flatMap((entry) =>
    entry.kind === 'participant_message' || entry.kind === 'assistant_message' ? [entry.text] : []
  );

describe('forking a task from a point in its history', () => {
  it('carries the transcript through the point, leaves the original as it was, and waits for the caller', async () => {
    const { harness, model, taskId } = await conversation(5);
    const before = await harness.task(taskId);
    const calls = model.requests.length;

    const fork = await harness.fork(taskId, ALICE, { kind: 'before_turn', turn: 4 });

    const forkView = view(fork);
    expect(forkView.state).toBe(STATES.INPUT_REQUIRED);
    expect(forkView.subState).toBe('awaiting-next-message');
    expect(model.requests).toHaveLength(calls);
    const forked = await harness.store.readHistory(fork.task.id);
    expect(texts(forked)).toEqual([
      'message 1',
      'reply 1',
      'message 2',
      'reply 2',
      'message 3',
      'reply 3',
    ]);
    const kept = forked.at(-1) as HistoryEntry;
    expect(forkView.extension.forked_from).toEqual({
      task_id: taskId,
      message_id: historyMessageId(taskId, kept),
    });
    expect(forkView.extension.sub_tasks).toEqual([]);
    expect(forkView.extension.lifecycle).toBe('conversation');
    expect(readUsage(fork.task).model_calls).toBe(0);

    // The original: same version and log, its forks listed, an audit record of the fork.
    const after = await harness.task(taskId);
    expect(after.version).toBe(before.version);
    expect(after.eventSeq).toBe(before.eventSeq);
    expect(view(after).extension.forks).toEqual([fork.task.id]);
    expect(await harness.store.getAudit(taskId, forkAuditKey(fork.task.id))).toMatchObject({
      from_task_id: taskId,
      fork_task_id: fork.task.id,
      by: ALICE,
    });
    expect(await harness.store.getAudit(fork.task.id, FORK_AUDIT_KEY)).toMatchObject({
      from_task_id: taskId,
    });
  });

  it('shows the fork’s first call exactly the transcript through the point, and the two go on apart', async () => {
    const { harness, model, taskId } = await conversation(5, [
      { text: 'fork answer' },
      { text: 'original answer' },
    ]);
    const turn4 = model.requests[3]?.input ?? [];

    const fork = await harness.fork(taskId, ALICE, { kind: 'before_turn', turn: 4 });
    await harness.send(fork.task.id, textMessage('another way'), ALICE);
    await harness.send(taskId, textMessage('message 6'), ALICE);

    const forkCall = model.requests[5]?.input ?? [];
    // Turn 4 of the original was shown turns 1-3 and message 4: the fork, turns 1-3 and its own
    // (after the task's own section, where only the fork's name differs).
    expect(forkCall[0]).toMatchObject({ role: 'user', text: expect.stringContaining('(fork)') });
    expect(forkCall.slice(1, -1)).toEqual(turn4.slice(1, -1));
    expect(forkCall.slice(1, -1)).toHaveLength(6);
    expect(forkCall.at(-1)).toMatchObject({ role: 'user', text: `[${ALICE}] another way` });
    const original = texts(await harness.store.readHistory(taskId));
    const forked = texts(await harness.store.readHistory(fork.task.id));
    expect(original).not.toContain('another way');
    expect(original.at(-1)).toBe('original answer');
    expect(forked).not.toContain('message 4');
    expect(forked.slice(-2)).toEqual(['another way', 'fork answer']);
  });

  it('runs a turn on the first message given with the fork', async () => {
    const { harness, model, taskId } = await conversation(2, [{ text: 'on it' }]);
    const fork = await harness.fork(
      taskId,
      ALICE,
      { kind: 'latest' },
      { message: { messageId: 'fork-msg-1', text: 'try again' } }
    );
    expect(model.requests).toHaveLength(3);
    expect(view(fork).statusText).toBe('on it');
    expect(texts(await harness.store.readHistory(fork.task.id)).slice(-2)).toEqual([
      'try again',
      'on it',
    ]);
  });

  it('keeps a turn’s tool results when forked at its message, runs none of them again, and takes the plan as it was then', async () => {
    const plan = (name: string) => ({
      name: 'create_plan',
      arguments: { steps: [{ name, description: name }] },
    });
    const { harness: h, model } = harnessWith([
      { text: 'planning', toolCalls: [plan('First')] },
      { text: 'planned' },
      { text: 'replanning', toolCalls: [plan('Second')] },
      { text: 'replanned' },
    ]);
    const task = await h.start(textMessage('plan it'), ALICE);
    await h.send(task.task.id, textMessage('plan it again'), ALICE);
    const entries = await h.store.readHistory(task.task.id);
    const planning = entries.find(
      (entry) => entry.kind === 'assistant_message' && entry.text === 'planning'
    ) as HistoryEntry;
    const calls = model.requests.length;

    const fork = await h.fork(task.task.id, ALICE, {
      kind: 'message',
      messageId: historyMessageId(task.task.id, planning) as string,
    });

    const forked = await h.store.readHistory(fork.task.id);
    expect(forked.map((entry) => entry.kind)).toEqual([
      'participant_message',
      'assistant_message',
      'tool_call',
      'tool_result',
    ]);
    expect(model.requests).toHaveLength(calls);
    expect(view(fork).extension.plan?.steps.map((step) => step.name)).toEqual(['First']);
    expect(view(await h.task(task.task.id)).extension.plan?.steps.map((s) => s.name)).toEqual([
      'Second',
    ]);
  });

  it('forks a canceled task', async () => {
    const { harness, taskId } = await conversation(2);
    await harness.cancel(taskId, ALICE);
    const fork = await harness.fork(taskId, ALICE, { kind: 'latest' });
    expect(view(fork).state).toBe(STATES.INPUT_REQUIRED);
    expect(texts(await harness.store.readHistory(fork.task.id))).toHaveLength(4);
  });

  it('forks a completed task', async () => {
    const { harness, taskId } = await conversation(2);
    await harness.complete(taskId, ALICE, 'done');
    expect(view(await harness.task(taskId)).state).toBe(STATES.COMPLETED);
    const fork = await harness.fork(taskId, ALICE, { kind: 'before_turn', turn: 2 });
    expect(view(fork).state).toBe(STATES.INPUT_REQUIRED);
    expect(texts(await harness.store.readHistory(fork.task.id))).toEqual(['message 1', 'reply 1']);
  });

  it('forks a working task from its last commit, leaving out the response whose call is still running', async () => {
    const { harness, model } = harnessWith([
      { text: 'hello' },
      { text: 'looking', toolCalls: [{ name: 'slow_tool', arguments: {} }] },
      { text: 'found it' },
    ]);
    const task = await harness.start(textMessage('hi'), ALICE);
    let forkId: string | undefined;
    harness.hooks.register('tool.invoked', {
      phase: 'pre',
      priority: 1,
      run: async (context) => {
        if (context.call.name === 'slow_tool' && forkId === undefined) {
          // Mid-turn: the response is committed, its call has not run.
          forkId = (await harness.fork(context.taskId, ALICE, { kind: 'latest' })).task.id;
        }
        return undefined;
      },
    });
    await harness.send(task.task.id, textMessage('look it up'), ALICE);

    const forked = await harness.store.readHistory(forkId as string);
    expect(texts(forked)).toEqual(['hi', 'hello', 'look it up']);
    expect(forked.some((entry) => entry.kind === 'tool_call')).toBe(false);
    expect(view(await harness.task(forkId as string)).state).toBe(STATES.INPUT_REQUIRED);
    expect(model.requests).toHaveLength(3);
    // The original went on: its call ran once, and its turn ended.
    const original = await harness.store.readHistory(task.task.id);
    expect(original.filter((entry) => entry.kind === 'tool_result')).toHaveLength(1);
    expect(texts(original).at(-1)).toBe('found it');
  });

  it('shows the fork the compaction its original’s model had been shown', async () => {
    const { harness, model } = harnessWith([
      { text: 'a' },
      { text: 'b' },
      { text: 'the summary' },
      { text: 'c' },
      { text: 'forked on' },
    ]);
    const task = await compactedAtThirdMessage(harness);

    const fork = await harness.fork(
      task.task.id,
      ALICE,
      { kind: 'latest' },
      { message: { messageId: 'f-1', text: 'four' } }
    );
    expect(fork.loop.summary).toBe('the summary');
    const shown = model.requests.at(-1);
    const opening = shown?.input[0];
    expect(opening?.type === 'message' && opening.text).toMatch(/<state_summary>\nthe summary/);
    expect(JSON.stringify(shown?.input)).not.toContain('] one');
    expect(JSON.stringify(shown?.input)).toContain('] four');
    // What the original's last call was shown, the fork's first is shown too, then that call's
    // answer and the fork's own message.
    const last = model.requests[3];
    expect(shown?.input.slice(1, -2)).toEqual(last?.input.slice(1));
    expect(shown?.input.at(-2)).toMatchObject({ role: 'assistant', text: 'c' });
  });

  it('makes a watcher who forks the reporter of the fork, and the original’s reporter a watcher', async () => {
    const { harness } = harnessWith(replies(1));
    const task = await sharedWithBob(harness);
    const fork = await harness.fork(task.task.id, BOB, { kind: 'latest' });
    const roles = Object.fromEntries(
      view(fork).extension.participants.map((participant) => [participant.id, participant.role])
    );
    expect(roles).toEqual({ [BOB]: 'reporter', [ALICE]: 'watcher', 'tiny-harness': 'assignee' });
    expect(view(fork).extension.name).toBe('Shared (fork)');
  });

  it('takes named participants under a new task’s rules, and refuses the agent’s own id as the caller, creating nothing', async () => {
    const { harness } = harnessWith(replies(1));
    const task = await sharedWithBob(harness);
    const count = async () => (await harness.store.list({ participantId: ALICE })).length;
    const tasks = await count();
    // A watcher forking may not hand the original's reporter, or anyone, a role that acts.
    await expect(
      harness.fork(
        task.task.id,
        BOB,
        { kind: 'latest' },
        { participants: [{ id: ALICE, kind: 'human', role: 'admin', display_name: '' }] }
      )
    ).rejects.toThrow(/only as watchers/);
    await expect(harness.fork(task.task.id, AGENT, { kind: 'latest' })).rejects.toThrow(
      ParticipantsRefusedError
    );
    expect(await count()).toBe(tasks);
    expect(view(await harness.task(task.task.id)).extension.forks).toBeUndefined();
    const fork = await harness.fork(
      task.task.id,
      BOB,
      { kind: 'latest' },
      { participants: [{ id: 'carol', kind: 'human', role: 'watcher', display_name: '' }] }
    );
    expect(
      view(fork)
        .extension.participants.map((p) => `${p.id}:${p.role}`)
        .sort()
    ).toEqual(['alice:watcher', 'bob:reporter', 'carol:watcher', `${AGENT}:assignee`]);
  });

  it('refuses an unknown message or a turn past the end, creating nothing', async () => {
    const { harness, taskId } = await conversation(2);
    const count = async () => (await harness.store.list({ participantId: ALICE })).length;
    const tasks = await count();
    await expect(
      harness.fork(taskId, ALICE, { kind: 'message', messageId: 'no-such-message' })
    ).rejects.toThrow(HistoryPointError);
    await expect(harness.fork(taskId, ALICE, { kind: 'before_turn', turn: 4 })).rejects.toThrow(
      /has taken 2 turns: before turn 4 is past its end/
    );
    expect(await count()).toBe(tasks);
    expect(view(await harness.task(taskId)).extension.forks).toBeUndefined();
  });
});
