import { TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { recordChildChange } from '../../../functions/core/intake/child-changed.js';
import { cancelTask } from '../../../functions/core/intake/control.js';
import { readExtension, withExtension } from '../../../functions/core/task/a2a-task.js';
import { MAX_SUB_TASKS } from '../../../functions/core/task/extension.schema.js';
import {
  ALICE,
  BOB,
  endedRows,
  harnessWith,
  remoteChildChange,
  STATES,
  view,
} from '../../support/harness.js';
import { envelopeMessage, textMessage } from '../../support/messages.js';

const spawn = (args: Record<string, unknown>) => ({
  toolCalls: [{ name: 'spawn_subtask', arguments: args }],
});

const taskEvents = async (harness: ReturnType<typeof harnessWith>['harness'], taskId: string) =>
  (await harness.events.read(taskId)).flatMap((logged) =>
    logged.event.kind === 'task' ? [logged.event.task] : []
  );

describe('children', () => {
  it('refuses a /sub-task past the most sub-tasks one task may have, writing nothing', async () => {
    const { harness } = harnessWith([{ text: 'Hello.' }]);
    const parent = await harness.start(textMessage('hi'), ALICE);
    const base = await harness.task(parent.task.id);
    const extension = readExtension(base.task);
    const rows = endedRows(MAX_SUB_TASKS);
    await harness.store.commit({
      kind: 'update',
      base,
      record: { ...base, task: withExtension(base.task, { ...extension, sub_tasks: rows }) },
    });
    const before = await harness.task(parent.task.id);
    await expect(
      harness.send(parent.task.id, textMessage('/sub-task one more'), ALICE)
    ).rejects.toThrow(/the most one task may have \(1000\)/);
    expect((await harness.task(parent.task.id)).version).toBe(before.version);
  });

  it('creates a child on self as its own A2A task: the row names its id, agent null, and the child inherits model and reasoning effort', async () => {
    const { harness } = harnessWith([
      spawn({ name: 'Research', goal: 'Find three sources', acceptance_criteria: ['three links'] }),
      { text: 'Waiting for the research.' },
      {
        toolCalls: [
          { name: 'meet_criterion', arguments: { criterion: 'c1', evidence: 'a, b and c' } },
        ],
      },
      { text: 'Found three sources.' },
      { text: 'Here is the report.' },
    ]);
    const parent = await harness.start(textMessage('write a report'), ALICE, {
      lifecycle: 'conversation',
      model: 'model-a',
      reasoning_effort: 'high',
    });

    const parentView = view(await harness.task(parent.task.id));
    const row = parentView.extension.sub_tasks[0];
    expect(row?.task_id).toBeDefined();
    expect(row?.task_id).not.toBe(`${parent.task.id}.1`);
    expect(row?.agent).toBeNull();
    const child = view(await harness.task(row?.task_id ?? ''));
    expect(child.extension.lifecycle).toBe('delegated');
    expect(child.extension.model).toBe('model-a');
    expect(child.extension.reasoning_effort).toBe('high');
    expect(child.extension.parent_tasks).toEqual([{ task_id: parent.task.id, agent: null }]);
    expect(child.extension.acceptance_criteria).toMatchObject([
      { id: 'c1', text: 'three links', met: true, met_by: 'tiny-harness' },
    ]);
    // The brief carried no server-controlled field in its envelope: they travel on the trusted path.
    const brief = harness.agents.requests[0];
    expect(JSON.stringify(brief?.message)).not.toContain('model-a');
    expect(brief?.inherited).toEqual({
      lifecycle: 'delegated',
      model: 'model-a',
      reasoning_effort: 'high',
      budgetHolders: [],
    });
  });

  it('runs the completion predicate on a delegated child, which completes, and its result wakes the parent', async () => {
    const { harness, model } = harnessWith([
      spawn({ name: 'Research', goal: 'Find three sources' }),
      { text: 'Waiting for the research.' },
      { text: 'Found three sources.' },
      { text: 'Here is the report.' },
    ]);
    const parent = await harness.start(textMessage('write a report'), ALICE);

    const parentView = view(await harness.task(parent.task.id));
    const childId = parentView.extension.sub_tasks[0]?.task_id ?? '';
    expect(view(await harness.task(childId)).state).toBe(STATES.COMPLETED);
    expect(parentView.extension.sub_tasks[0]).toMatchObject({
      state: STATES.COMPLETED,
      sub_state: null,
    });
    expect(parentView.state).toBe(STATES.INPUT_REQUIRED);
    expect(parentView.statusText).toBe('Here is the report.');
    expect(model.requests).toHaveLength(4);
    const note = model.requests[3]?.input.find(
      (item) =>
        item.type === 'message' &&
        item.text.includes(`Sub-task ${childId} is TASK_STATE_COMPLETED: Found three sources.`)
    );
    expect(note?.type === 'message' && note.text.startsWith('<untrusted source="agent">')).toBe(
      true
    );
  });

  it("records the child's state on the parent's row at every change and emits the parent's updated Task", async () => {
    const { harness } = harnessWith([
      spawn({ name: 'Research', goal: 'Find sources' }),
      { text: 'Waiting.' },
      { text: 'Found them.' },
      { text: 'Done.' },
    ]);
    const parent = await harness.start(textMessage('go'), ALICE);
    const childId = view(await harness.task(parent.task.id)).extension.sub_tasks[0]?.task_id ?? '';

    const rows = (await taskEvents(harness, parent.task.id)).map(
      (task) =>
        view({
          task,
          loop: parent.loop,
          version: 0,
          eventSeq: 0,
          inboxCount: 0,
        }).extension.sub_tasks.find((r) => r.task_id === childId)?.state
    );
    expect(rows.filter((state) => state !== undefined)).toEqual(
      expect.arrayContaining([STATES.WORKING, STATES.COMPLETED])
    );
  });

  it('takes one more turn when a child result arrives while a delegated task is ending its turn', async () => {
    const { harness, model } = harnessWith(
      [
        spawn({ name: 'Lookup', goal: 'Look it up', agent: 'remote' }),
        { text: 'Nothing more to do.' },
        { text: 'Read the lookup result; finishing.' },
      ],
      { remoteAgents: [{ id: 'remote', description: 'a remote agent' }] }
    );
    // The remote child ends while the parent's second model call is being answered.
    harness.hooks.register('tool_calls.extracted', {
      phase: 'post',
      priority: 1,
      run: async (context, calls) => {
        if (calls.length > 0) return;
        const record = await harness.task(context.taskId);
        const row = view(record).extension.sub_tasks[0];
        if (row === undefined || row.state === STATES.COMPLETED) return;
        await recordChildChange(harness.deps, {
          parentId: context.taskId,
          childId: row.task_id,
          agent: row.agent,
          state: TaskState.TASK_STATE_COMPLETED,
          subState: undefined,
          childLifecycle: 'delegated',
          participantTask: false,
          remoteTurn: false,
          linkedByHarness: true,
          summary: 'the answer is 42',
          changeKey: 'remote-1',
          order: 1,
        });
      },
    });
    const parent = await harness.start(textMessage('delegate'), ALICE, { lifecycle: 'delegated' });
    const taskId = parent.task.id;

    expect(view(await harness.task(taskId)).state).toBe(STATES.COMPLETED);
    expect(model.requests).toHaveLength(3);
    expect(JSON.stringify(model.requests[2]?.input)).toContain('the answer is 42');
    expect(view(await harness.task(taskId)).statusText).toBe('Read the lookup result; finishing.');
  });

  it('names a remote child by its remote task id and agent, and a delegated parent waits for it in WORKING', async () => {
    const { harness, model } = harnessWith(
      [spawn({ name: 'Lookup', goal: 'Look it up', agent: 'remote' }), { text: 'Waiting.' }],
      { remoteAgents: [{ id: 'remote', description: 'a remote agent' }] }
    );
    const parent = await harness.start(textMessage('delegate'), ALICE, { lifecycle: 'delegated' });

    const parked = view(await harness.task(parent.task.id));
    expect(parked.extension.sub_tasks).toEqual([
      {
        task_id: 'remote-task-1',
        agent: { kind: 'agent', id: 'remote', version: null },
        state: 'TASK_STATE_SUBMITTED',
        sub_state: null,
        criteria: null,
      },
    ]);
    expect(parked.state).toBe(STATES.WORKING);
    expect((await harness.task(parent.task.id)).loop.parkToken).not.toBeNull();
    expect(model.requests).toHaveLength(2);
  });

  it("wakes the parent on a delegated child's question, which is news", async () => {
    const { harness, model } = harnessWith([
      spawn({ name: 'Clarify', goal: 'Ask Alice' }),
      { text: 'Waiting.' },
      {
        toolCalls: [
          { name: 'ask_participant', arguments: { participant_id: ALICE, question: 'Budget?' } },
        ],
      },
      { text: 'The child asked Alice about the budget.' },
    ]);
    const parent = await harness.start(textMessage('plan the offsite'), ALICE);
    const childId = view(await harness.task(parent.task.id)).extension.sub_tasks[0]?.task_id ?? '';

    expect(view(await harness.task(childId)).subState).toBe('awaiting-answer');
    expect(view(await harness.task(parent.task.id)).extension.sub_tasks[0]).toMatchObject({
      state: STATES.INPUT_REQUIRED,
      sub_state: 'awaiting-answer',
    });
    expect(model.requests).toHaveLength(4);
    expect(JSON.stringify(model.requests[3]?.input)).toContain(`Sub-task ${childId} asks: Budget?`);
  });

  it('creates a parked conversation child on /sub-task without a model turn, and its completion wakes the parent', async () => {
    const { harness, model } = harnessWith([
      { text: 'Hello.' },
      { text: 'I looked at the logs.' },
      { text: 'Noted: the sub-task is done.' },
    ]);
    const parent = await harness.start(textMessage('hi'), ALICE, {
      lifecycle: 'conversation',
      model: 'model-b',
    });
    const requestsBefore = model.requests.length;

    await harness.send(parent.task.id, textMessage('/sub-task investigate the logs'), ALICE);

    const parentView = view(await harness.task(parent.task.id));
    const childId = parentView.extension.sub_tasks[0]?.task_id ?? '';
    const child = view(await harness.task(childId));
    expect(child.state).toBe(STATES.INPUT_REQUIRED);
    expect(child.subState).toBe('awaiting-next-message');
    expect(child.extension.lifecycle).toBe('conversation');
    expect(child.extension.goal).toBe('investigate the logs');
    expect(child.extension.model).toBe('model-b');
    expect(child.extension.participants).toEqual([
      { id: ALICE, kind: 'human', role: 'reporter', display_name: '' },
      { id: 'tiny-harness', kind: 'agent', role: 'assignee', display_name: '' },
    ]);
    expect((await harness.task(childId)).task.contextId).toBe(parent.task.contextId);
    expect(model.requests.length).toBe(requestsBefore);
    expect(parentView.extension.sub_tasks[0]).toMatchObject({
      state: STATES.INPUT_REQUIRED,
      sub_state: 'awaiting-next-message',
    });

    // Talking to the child parks it again: not news, the parent sleeps on.
    await harness.send(childId, textMessage('look for errors'), ALICE);
    expect(model.requests.length).toBe(requestsBefore + 1);
    expect(view(await harness.task(parent.task.id)).state).toBe(STATES.INPUT_REQUIRED);

    await harness.send(childId, envelopeMessage('control', { action: 'complete' }), ALICE);
    expect(view(await harness.task(childId)).state).toBe(STATES.COMPLETED);
    expect(model.requests.length).toBe(requestsBefore + 2);
    const parentInput = JSON.stringify(model.requests.at(-1)?.input);
    expect(parentInput).toContain(`opened sub-task ${childId}`);
    expect(parentInput).toContain(`Sub-task ${childId} is TASK_STATE_COMPLETED`);
    // What Alice said stays in the parent's transcript (the A2A history shows it after a reload).
    const said = (await harness.store.readHistory(parent.task.id)).filter(
      (entry) => entry.kind === 'participant_message'
    );
    expect(said.map((entry) => entry.kind === 'participant_message' && entry.text)).toEqual([
      'hi',
      '/sub-task investigate the logs',
    ]);
  });

  it("does not wake the parent when a participant task parks, and completes it with the assignee's answer", async () => {
    const { harness, model } = harnessWith([
      {
        toolCalls: [
          {
            name: 'create_task_for_participant',
            arguments: { participant_id: BOB, name: 'Approve', goal: 'Approve the budget' },
          },
        ],
      },
      { text: 'Waiting for Bob.' },
      { text: 'Bob approved; done.' },
    ]);
    const parent = await harness.start(
      envelopeMessage(
        'task',
        {
          name: 'Budget',
          goal: 'Get the budget approved',
          participants: [
            { id: ALICE, kind: 'human', role: 'reporter' },
            { id: BOB, kind: 'human', role: 'watcher' },
          ],
        },
        { text: 'please get it approved' }
      ),
      ALICE,
      { lifecycle: 'delegated' }
    );
    const childId = view(await harness.task(parent.task.id)).extension.sub_tasks[0]?.task_id ?? '';
    const child = view(await harness.task(childId));
    expect(child.state).toBe(STATES.INPUT_REQUIRED);
    expect(child.statusText).toBe('Approve the budget');
    expect(child.extension.participants.find((p) => p.id === BOB)?.role).toBe('assignee');
    expect(child.extension.participants.find((p) => p.id === 'tiny-harness')?.role).toBe('watcher');
    expect(model.requests).toHaveLength(2);
    expect(view(await harness.task(parent.task.id)).state).toBe(STATES.WORKING);

    await harness.send(childId, textMessage('approved'), BOB);

    expect(view(await harness.task(childId))).toMatchObject({
      state: STATES.COMPLETED,
      statusText: 'approved',
    });
    expect(view(await harness.task(parent.task.id)).state).toBe(STATES.COMPLETED);
    expect(model.requests).toHaveLength(3);
  });

  it('marks a linked step active when its child starts and failed when the child fails', async () => {
    const { harness } = harnessWith(
      [
        {
          toolCalls: [
            {
              name: 'create_plan',
              arguments: { steps: [{ name: 'Gather facts', description: 'd' }] },
            },
            {
              name: 'spawn_subtask',
              arguments: { name: 'Facts', goal: 'g', agent: 'remote', step: 'Gather facts' },
            },
          ],
        },
        { text: 'Waiting.' },
        { text: 'The child failed.' },
      ],
      { remoteAgents: [{ id: 'remote', description: 'r' }] }
    );
    const parent = await harness.start(textMessage('go'), ALICE);
    const started = view(await harness.task(parent.task.id)).extension.plan?.steps[0];
    expect(started).toMatchObject({ id: 'gather-facts', state: 'active' });
    expect(started?.linked_tasks).toEqual([
      { task_id: 'remote-task-1', agent: { kind: 'agent', id: 'remote', version: null } },
    ]);

    const wake = await recordChildChange(harness.deps, {
      parentId: parent.task.id,
      childId: 'remote-task-1',
      agent: { kind: 'agent', id: 'remote', version: null },
      state: TaskState.TASK_STATE_FAILED,
      subState: undefined,
      childLifecycle: 'delegated',
      participantTask: false,
      remoteTurn: false,
      linkedByHarness: true,
      summary: 'no data',
      changeKey: 'r1',
      order: 1,
    });
    expect(wake.action).toBe('resume');
    expect(view(await harness.task(parent.task.id)).extension.plan?.steps[0]?.state).toBe('failed');
  });

  it('is safe to receive the same child change twice', async () => {
    const { harness } = harnessWith(
      [spawn({ name: 'L', goal: 'g', agent: 'remote' }), { text: 'Waiting.' }],
      {
        remoteAgents: [{ id: 'remote', description: 'r' }],
      }
    );
    const parent = await harness.start(textMessage('go'), ALICE);
    const change = {
      parentId: parent.task.id,
      childId: 'remote-task-1',
      agent: { kind: 'agent' as const, id: 'remote', version: null },
      state: TaskState.TASK_STATE_COMPLETED,
      subState: undefined,
      childLifecycle: 'delegated' as const,
      participantTask: false,
      remoteTurn: false,
      linkedByHarness: true,
      summary: 'ok',
      changeKey: 'same',
      order: 1,
    };

    const first = await recordChildChange(harness.deps, change);
    const eventsAfterFirst = (await harness.events.read(parent.task.id)).length;
    const second = await recordChildChange(harness.deps, change);

    expect(first.action).toBe('resume');
    expect(second).toEqual({ action: 'none' });
    expect((await harness.events.read(parent.task.id)).length).toBe(eventsAfterFirst);
    const notes = await harness.store.readInbox(parent.task.id);
    expect(notes.filter((item) => item.kind === 'note')).toHaveLength(1);
  });

  it('cascades a cancel to unresolved children on this harness, from CancelTask or the control envelope', async () => {
    for (const cancelBy of ['operation', 'envelope'] as const) {
      const { harness } = harnessWith([
        spawn({ name: 'Clarify', goal: 'Ask Alice' }),
        { text: 'Waiting.' },
        {
          toolCalls: [
            { name: 'ask_participant', arguments: { participant_id: ALICE, question: 'Budget?' } },
          ],
        },
        { text: 'The child asked.' },
      ]);
      const parent = await harness.start(textMessage('plan'), ALICE);
      const childId =
        view(await harness.task(parent.task.id)).extension.sub_tasks[0]?.task_id ?? '';
      expect(view(await harness.task(childId)).state).toBe(STATES.INPUT_REQUIRED);

      if (cancelBy === 'operation') await harness.cancel(parent.task.id, ALICE);
      else
        await harness.send(
          parent.task.id,
          envelopeMessage('control', { action: 'cancel', reason: 'no longer needed' }),
          ALICE
        );

      expect(view(await harness.task(parent.task.id)).state).toBe(STATES.CANCELED);
      const child = view(await harness.task(childId));
      expect(child.state).toBe(STATES.CANCELED);
      expect(child.statusText).toBe(`parent ${parent.task.id} was canceled`);
    }
  });

  it('never moves a row back in time when an older change is delivered after a newer one', async () => {
    const { harness } = harnessWith(
      [spawn({ name: 'L', goal: 'g', agent: 'remote' }), { text: 'Waiting.' }],
      {
        remoteAgents: [{ id: 'remote', description: 'r' }],
      }
    );
    const parent = await harness.start(textMessage('go'), ALICE);
    const base = {
      parentId: parent.task.id,
      childId: 'remote-task-1',
      agent: { kind: 'agent' as const, id: 'remote', version: null },
      subState: undefined,
      childLifecycle: 'delegated' as const,
      participantTask: false,
      remoteTurn: false,
      linkedByHarness: true,
      summary: '',
    };
    await recordChildChange(harness.deps, {
      ...base,
      state: TaskState.TASK_STATE_WORKING,
      changeKey: 'v2',
      order: 2,
    });
    await recordChildChange(harness.deps, {
      ...base,
      state: TaskState.TASK_STATE_COMPLETED,
      changeKey: 'v3',
      order: 3,
    });
    const settled = await harness.task(parent.task.id);

    await recordChildChange(harness.deps, {
      ...base,
      state: TaskState.TASK_STATE_WORKING,
      changeKey: 'v2',
      order: 2,
    });

    const after = await harness.task(parent.task.id);
    expect(view(after).extension.sub_tasks[0]?.state).toBe(STATES.COMPLETED);
    expect(after.version).toBe(settled.version);
  });

  it("keeps a remote child's reason on its row when it fails, and gives the parent's model the agent's whole answer, named by its agent", async () => {
    const { harness } = harnessWith(
      [spawn({ name: 'L', goal: 'g', agent: 'remote' }), { text: 'Waiting.' }, { text: 'Read.' }],
      { remoteAgents: [{ id: 'remote', description: 'r' }] }
    );
    const parent = await harness.start(textMessage('go'), ALICE);
    const reason = `agent remote has not answered for 600 s: ${'x'.repeat(1_000)}`;
    await recordChildChange(
      harness.deps,
      remoteChildChange(parent.task.id, { state: TaskState.TASK_STATE_FAILED, summary: reason })
    );

    const row = view(await harness.task(parent.task.id)).extension.sub_tasks[0];
    expect(row).toEqual({
      task_id: 'remote-task-1',
      agent: { kind: 'agent', id: 'remote', version: null },
      state: STATES.FAILED,
      sub_state: null,
      criteria: null,
      reason: reason.slice(0, 500),
    });
    const [note] = (await harness.store.readInbox(parent.task.id)).filter(
      (item) => item.kind === 'note'
    );
    expect(note?.text).toBe(
      `Sub-task remote-task-1 (on agent remote) is TASK_STATE_FAILED: ${reason}`
    );
  });

  it("takes a remote agent's reply (its turn) as news, though the child only parks", async () => {
    const { harness } = harnessWith(
      [spawn({ name: 'L', goal: 'g', agent: 'remote' }), { text: 'Waiting.' }, { text: 'Read.' }],
      { remoteAgents: [{ id: 'remote', description: 'r' }] }
    );
    const parent = await harness.start(textMessage('go'), ALICE);
    const wake = await recordChildChange(
      harness.deps,
      remoteChildChange(parent.task.id, {
        state: TaskState.TASK_STATE_INPUT_REQUIRED,
        subState: 'awaiting-next-message',
        remoteTurn: true,
        summary: 'A first draft.',
      })
    );
    expect(wake.action).toBe('resume');
    const notes = (await harness.store.readInbox(parent.task.id)).filter(
      (item) => item.kind === 'note'
    );
    expect(notes.map((item) => item.text)).toEqual([
      'Sub-task remote-task-1 (on agent remote) replied (TASK_STATE_INPUT_REQUIRED): A first draft.',
    ]);
  });

  it('hands the remote children of a canceled tree to the caller, each under the parent whose row names it', async () => {
    const { harness } = harnessWith(
      [
        spawn({ name: 'Local', goal: 'Work here' }),
        spawn({ name: 'Far', goal: 'Work there', agent: 'remote' }),
        { text: 'Waiting.' },
        spawn({ name: 'Farther', goal: 'Deeper', agent: 'remote' }),
        { text: 'The child waits too.' },
      ],
      { remoteAgents: [{ id: 'remote', description: 'r' }] }
    );
    const parent = await harness.start(textMessage('go'), ALICE);
    const rows = view(await harness.task(parent.task.id)).extension.sub_tasks;
    const local = rows.find((row) => row.agent === null)?.task_id ?? '';

    const outcome = await cancelTask(harness.deps, { taskId: parent.task.id, requestedBy: ALICE });
    const named = outcome.remoteChildren.map(({ parentId, row }) => `${parentId}/${row.task_id}`);
    expect(named.sort()).toEqual(
      [`${parent.task.id}/remote-task-1`, `${local}/remote-task-2`].sort()
    );
  });

  it('works a task another agent delegated (delegated_from: the parent on its side) to its end, whatever a client task would be', async () => {
    const { harness } = harnessWith([{ text: 'Done as asked.' }]);
    const delegated = await harness.start(
      envelopeMessage('task', {
        name: 'Books',
        goal: 'Balance the books',
        delegated_from: { task_id: 'p-1' },
      }),
      'alpha'
    );
    expect(view(delegated).extension.lifecycle).toBe('delegated');
    expect(view(delegated).extension.parent_tasks).toEqual([
      { task_id: 'p-1', agent: { kind: 'agent', id: 'alpha', version: null } },
    ]);
    expect(view(delegated).state).toBe(STATES.COMPLETED);
  });
});
