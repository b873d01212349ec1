import { TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { STATUS_METADATA_KEY, TASK_METADATA_KEY } from '../../../functions/core/a2a/identifiers.js';
import { ServerControlledFieldError } from '../../../functions/core/errors.js';
import { BUILT_IN_PRIORITY } from '../../../functions/core/hooks/hooks.js';
import { stateName } from '../../../functions/core/task/a2a-task.js';
import { ALICE, BOB, harnessWith, STATES, STRANGER, view } from '../../support/harness.js';
import { envelopeMessage, textMessage } from '../../support/messages.js';

const statusEvents = async (harness: ReturnType<typeof harnessWith>['harness'], taskId: string) =>
  (await harness.events.read(taskId)).flatMap((logged) =>
    logged.event.kind === 'status_update' ? [logged.event.statusUpdate] : []
  );

/** A conversation whose first turn delegates to a remote agent, whose child then stays unresolved. */
const withUnresolvedRemoteChild = () =>
  harnessWith(
    [
      {
        toolCalls: [
          {
            name: 'spawn_subtask',
            arguments: { name: 'Research', goal: 'Find sources', agent: 'researcher' },
          },
        ],
      },
      { text: 'Working on it.' },
    ],
    { remoteAgents: [{ id: 'researcher', description: 'finds sources' }] }
  );

describe('a conversation task', () => {
  it('parks in INPUT_REQUIRED awaiting-next-message after a turn without a tool call, never COMPLETED', async () => {
    const { harness, model } = harnessWith([{ text: 'Hello Alice.' }]);
    const task = await harness.start(textMessage('hi'), ALICE);

    const parked = view(task);
    expect(parked.state).toBe(STATES.INPUT_REQUIRED);
    expect(parked.subState).toBe('awaiting-next-message');
    expect(parked.statusText).toBe('Hello Alice.');
    expect(model.requests).toHaveLength(1);
    expect(task.loop.parkToken).not.toBeNull();
    const states = (await statusEvents(harness, task.task.id)).map((e) => e.status?.state);
    expect(states).not.toContain(TaskState.TASK_STATE_COMPLETED);
  });

  it('resumes in WORKING on the next message and clears the sub-state', async () => {
    const { harness, model } = harnessWith([{ text: 'Hello.' }, { text: 'Sure.' }]);
    const task = await harness.start(textMessage('hi'), ALICE);

    const next = textMessage('one more thing');
    await harness.send(task.task.id, next, ALICE);

    const events = await statusEvents(harness, task.task.id);
    const resumed = events.at(-2);
    expect(resumed?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(resumed?.metadata?.[STATUS_METADATA_KEY]).toBeUndefined();
    expect(model.requests).toHaveLength(2);
    const lastInput = model.requests[1]?.input.at(-1);
    // The message's A2A id travels with it (the conformance model answers by it).
    expect(lastInput).toEqual({
      type: 'message',
      role: 'user',
      text: `[${ALICE}] one more thing`,
      messageId: next.messageId,
    });
    expect(view(await harness.task(task.task.id)).subState).toBe('awaiting-next-message');
  });

  it('parks without a model call when started with no message text', async () => {
    const { harness, model } = harnessWith([]);
    const task = await harness.start(
      envelopeMessage('task', { name: 'Quiet start', goal: 'Wait for instructions' }),
      ALICE
    );

    expect(view(task).state).toBe(STATES.INPUT_REQUIRED);
    expect(view(task).subState).toBe('awaiting-next-message');
    expect(model.requests).toHaveLength(0);
  });

  it('does not wake on a refused message: no model call, state unchanged, refusal audited', async () => {
    const { harness, model } = harnessWith([{ text: 'Hello.' }]);
    const task = await harness.start(textMessage('hi'), ALICE);
    const before = await harness.task(task.task.id);
    const eventsBefore = (await harness.events.read(task.task.id)).length;

    const receipt = await harness.send(
      task.task.id,
      textMessage('let me in', { messageId: 'm-x' }),
      STRANGER
    );

    expect(receipt).toEqual({ accepted: false, reason: 'not a participant' });
    const after = await harness.task(task.task.id);
    expect(after.task).toEqual(before.task);
    expect(after.loop.parkToken).toBe(before.loop.parkToken);
    expect(model.requests).toHaveLength(1);
    expect((await harness.events.read(task.task.id)).length).toBe(eventsBefore);
    expect(await harness.store.getAudit(task.task.id, 'audit:m-x')).toMatchObject({
      participant_id: STRANGER,
      accepted: false,
      reason: 'not a participant',
    });
  });

  it('parks with awaiting-answer on ask_participant, and the store and the event log carry it', async () => {
    const { harness, model } = harnessWith([
      {
        toolCalls: [
          {
            name: 'ask_participant',
            arguments: {
              participant_id: ALICE,
              question: 'Which city?',
              options: ['Oslo', 'Rome'],
            },
          },
        ],
      },
      { text: 'Rome it is.' },
    ]);
    const task = await harness.start(textMessage('book a trip'), ALICE);

    const parked = view(task);
    expect(parked.state).toBe(STATES.INPUT_REQUIRED);
    expect(parked.subState).toBe('awaiting-answer');
    expect(parked.statusText).toBe('Which city?\nOptions: Oslo, Rome');
    expect(task.task.metadata?.[STATUS_METADATA_KEY]).toEqual({ sub_state: 'awaiting-answer' });
    const last = (await statusEvents(harness, task.task.id)).at(-1);
    expect(last?.metadata?.[STATUS_METADATA_KEY]).toEqual({ sub_state: 'awaiting-answer' });
    expect(model.requests).toHaveLength(1);

    await harness.send(task.task.id, textMessage('Rome'), ALICE);
    const reply = model.requests[1]?.input.find(
      (item) =>
        item.type === 'message' && item.text.includes('Reply from alice to "Which city?": Rome')
    );
    expect(reply).toBeDefined();
    expect(view(await harness.task(task.task.id)).subState).toBe('awaiting-next-message');
  });

  it('refuses a second ask_participant in the same turn instead of dropping it', async () => {
    const { harness } = harnessWith([
      {
        toolCalls: [
          { name: 'ask_participant', arguments: { participant_id: ALICE, question: 'First?' } },
          { name: 'ask_participant', arguments: { participant_id: ALICE, question: 'Second?' } },
        ],
      },
    ]);
    const task = await harness.start(textMessage('go'), ALICE);

    const history = await harness.store.readHistory(task.task.id);
    const results = history.filter((entry) => entry.kind === 'tool_result');
    expect(results.map((entry) => entry.kind === 'tool_result' && entry.isError)).toEqual([
      false,
      true,
    ]);
    expect(results[1]).toMatchObject({ output: expect.stringContaining('[tool.refused]') });
    expect(view(task).statusText).toBe('First?');
  });

  it('completes when a participant sends the control envelope', async () => {
    const { harness } = harnessWith([{ text: 'Done, I think.' }]);
    const task = await harness.start(textMessage('hi'), ALICE);

    await harness.send(
      task.task.id,
      envelopeMessage('control', { action: 'complete', reason: 'all good' }),
      ALICE
    );

    const done = view(await harness.task(task.task.id));
    expect(done.state).toBe(STATES.COMPLETED);
    expect(done.statusText).toBe('all good');
    const last = (await harness.events.read(task.task.id)).at(-1)?.event;
    expect(last?.kind === 'status_update' && last.statusUpdate.status?.state).toBe(
      TaskState.TASK_STATE_COMPLETED
    );
  });

  it('cancels when a participant sends the cancel control envelope', async () => {
    const { harness } = harnessWith([{ text: 'Hi.' }]);
    const task = await harness.start(textMessage('hi'), ALICE);

    await harness.send(task.task.id, envelopeMessage('control', { action: 'cancel' }), ALICE);

    expect(view(await harness.task(task.task.id)).state).toBe(STATES.CANCELED);
  });

  it('refuses a participant completion while a sub-task is unresolved, and parks again', async () => {
    const { harness } = withUnresolvedRemoteChild();
    const task = await harness.start(textMessage('write a report'), ALICE);
    const childId = view(await harness.task(task.task.id)).extension.sub_tasks[0]?.task_id;
    expect(childId).toBeDefined();

    await harness.complete(task.task.id, ALICE);

    const parent = view(await harness.task(task.task.id));
    expect(parent.state).toBe(STATES.INPUT_REQUIRED);
    expect(parent.subState).toBe('awaiting-next-message');
    expect(parent.statusText).toContain('completion refused: 1 sub-task(s) unresolved');
    expect((await harness.task(task.task.id)).loop.completionRequest).toBeNull();
  });

  it('lets a task.complete hook override the unresolved sub-task rule', async () => {
    const { harness } = withUnresolvedRemoteChild();
    harness.hooks.register('task.complete', {
      phase: 'in',
      priority: BUILT_IN_PRIORITY - 1,
      run: (context) =>
        context.requestedBy === ALICE ? { result: { decision: 'complete' as const } } : undefined,
    });
    const task = await harness.start(textMessage('write a report'), ALICE);

    await harness.complete(task.task.id, ALICE, 'good enough');

    expect(view(await harness.task(task.task.id)).state).toBe(STATES.COMPLETED);
  });

  it('lets a task.complete hook fail the task', async () => {
    const { harness } = harnessWith([{ text: 'Hi.' }]);
    harness.hooks.register('task.complete', {
      phase: 'in',
      priority: 10,
      run: () => ({ result: { decision: 'fail' as const, reason: 'criteria not met' } }),
    });
    const task = await harness.start(textMessage('hi'), ALICE);

    await harness.complete(task.task.id, ALICE);

    const failed = view(await harness.task(task.task.id));
    expect(failed.state).toBe(STATES.FAILED);
    expect(failed.statusText).toBe('criteria not met');
  });

  it('cuts a turn in progress when a participant completes it: the rest of the turn never runs', async () => {
    const { harness, model } = harnessWith([
      {
        toolCalls: [
          { name: 'interrupting_tool', arguments: {} },
          {
            name: 'create_plan',
            arguments: { steps: [{ name: 'Never', description: 'never applied' }] },
          },
        ],
      },
    ]);
    harness.hooks.register('tool.invoked', {
      phase: 'pre',
      priority: 1,
      run: async (context) => {
        if (context.call.name === 'interrupting_tool') {
          await harness.complete(context.taskId, ALICE, 'stop now');
        }
        return undefined;
      },
    });
    const task = await harness.start(textMessage('go'), ALICE);

    const record = await harness.task(task.task.id);
    expect(view(record).state).toBe(STATES.COMPLETED);
    expect(view(record).extension.plan).toBeNull();
    expect(record.loop.generation).toBe(2);
    const results = (await harness.store.readHistory(task.task.id)).filter(
      (e) => e.kind === 'tool_result'
    );
    expect(
      results.some((e) => e.kind === 'tool_result' && e.output.includes('the turn was cut'))
    ).toBe(true);
    expect(model.requests).toHaveLength(1);
    expect(harness.outcomes.some(({ outcome }) => outcome.kind === 'superseded')).toBe(true);
  });

  it('refuses a task envelope with a server-controlled field whole, even from an admin', async () => {
    const { harness } = harnessWith([{ text: 'Hi.' }]);
    const task = await harness.start(
      envelopeMessage('task', {
        name: 'Admin task',
        goal: 'g',
        participants: [{ id: ALICE, kind: 'human', role: 'admin' }],
      }),
      ALICE
    );
    const before = await harness.task(task.task.id);

    for (const field of [
      { lifecycle: 'delegated' },
      { model: 'gpt-x' },
      { reasoning_effort: 'high' },
    ]) {
      await expect(
        harness.send(task.task.id, envelopeMessage('task', { name: 'Renamed', ...field }), ALICE)
      ).rejects.toBeInstanceOf(ServerControlledFieldError);
    }

    const after = await harness.task(task.task.id);
    expect(after.task.metadata?.[TASK_METADATA_KEY]).toEqual(
      before.task.metadata?.[TASK_METADATA_KEY]
    );
    expect(after.version).toBe(before.version);
  });

  it('applies a task envelope from an admin and emits the updated Task', async () => {
    const { harness } = harnessWith([]);
    const task = await harness.start(
      envelopeMessage('task', {
        name: 'Team task',
        goal: 'g',
        participants: [{ id: ALICE, kind: 'human', role: 'admin' }],
      }),
      ALICE
    );

    await harness.send(
      task.task.id,
      envelopeMessage('task', {
        participants: [
          { id: ALICE, kind: 'human', role: 'admin' },
          { id: BOB, kind: 'human', role: 'watcher' },
        ],
      }),
      ALICE
    );

    const last = (await harness.events.read(task.task.id)).at(-1)?.event;
    expect(last?.kind).toBe('task');
    expect(view(await harness.task(task.task.id)).extension.participants.map((p) => p.id)).toEqual([
      ALICE,
      BOB,
    ]);
    expect(stateName(TaskState.TASK_STATE_INPUT_REQUIRED)).toBe(
      view(await harness.task(task.task.id)).state
    );
  });
});
