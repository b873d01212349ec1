import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { TASK_METADATA_KEY } from '../../../functions/core/a2a/identifiers.js';
import {
  EnvelopeRefusedError,
  ReviewerRequiredError,
  RoleRequiredError,
  UnknownCriterionError,
} from '../../../functions/core/errors.js';
import { BUILT_IN_PRIORITY } from '../../../functions/core/hooks/hooks.js';
import { DEFAULT_LOOP_CONFIG } from '../../../functions/core/loop/config.js';
import { assembleContext } from '../../../functions/core/loop/context.js';
import { initialLoopState } from '../../../functions/core/loop/loop-state.schema.js';
import type { ModelRequest } from '../../../functions/core/ports/model.js';
import type { TaskRecord } from '../../../functions/core/ports/task-store.js';
import { readExtension } from '../../../functions/core/task/a2a-task.js';
import { TaskExtensionSchema } from '../../../functions/core/task/extension.schema.js';
import type { InProcessHarness } from '../../../functions/core/testing/in-process-harness.js';
import type { ScriptedReply } from '../../../functions/core/testing/scripted-model.js';
import { ToolRegistry } from '../../../functions/core/tools/registry.js';
import { ALICE, BOB, harnessWith, STATES, view } from '../../support/harness.js';
import { envelopeMessage, textMessage } from '../../support/messages.js';

const AGENT = 'tiny-harness';

const meet = (criterion: string, evidence: string, links: Record<string, unknown> = {}) => ({
  toolCalls: [{ name: 'meet_criterion', arguments: { criterion, evidence, ...links } }],
});

const reject = (criterion: string, reason: string) =>
  envelopeMessage('control', { action: 'reject_criterion', criterion, reason });

const TWO_CRITERIA = [{ text: 'Lists every breaking change' }, { text: 'Has an upgrade guide' }];

/** A task alice asks for (two criteria unless told otherwise), her as reporter, bob as watcher. */
const brief = (text = 'Write the release notes', criteria: object[] = TWO_CRITERIA) =>
  envelopeMessage(
    'task',
    {
      name: 'Release notes',
      goal: 'Write the release notes for 2.0',
      acceptance_criteria: criteria,
      participants: [
        { id: ALICE, kind: 'human', role: 'reporter' },
        { id: BOB, kind: 'human', role: 'watcher' },
      ],
    },
    { text }
  );

/** Everything the model read on a call, as one string. */
const inputText = (request: ModelRequest | undefined) =>
  (request?.input ?? []).map((item) => (item.type === 'message' ? item.text : '')).join('\n');

const harnessNotes = async (harness: InProcessHarness, taskId: string) =>
  (await harness.store.readHistory(taskId)).flatMap((entry) =>
    entry.kind === 'harness_note' ? [entry] : []
  );

const taskEvents = async (harness: InProcessHarness, record: TaskRecord) =>
  (await harness.events.read(record.task.id)).flatMap((logged) =>
    logged.event.kind === 'task' ? [readExtension(logged.event.task)] : []
  );

const delegated = (replies: ScriptedReply[], config = {}) => {
  const made = harnessWith(replies, { config });
  const start = () => made.harness.start(brief(), ALICE, { lifecycle: 'delegated' });
  return { ...made, start };
};

describe('acceptance criteria on a delegated task', () => {
  it('completes only after both criteria are met with evidence; the note names the one unmet', async () => {
    const { harness, model, start } = delegated([
      meet('c1', 'Breaking changes: the config file moved, the API dropped v1.'),
      { text: 'Done.' },
      meet('2', 'The upgrade guide is the last section.'),
      { text: 'Done, both hold.' },
    ]);
    const task = await start();

    const done = view(await harness.task(task.task.id));
    expect(done.state).toBe(STATES.COMPLETED);
    expect(done.statusText).toBe('Done, both hold.');
    expect(done.extension.acceptance_criteria).toEqual([
      {
        id: 'c1',
        text: 'Lists every breaking change',
        met: true,
        evidence: {
          text: 'Breaking changes: the config file moved, the API dropped v1.',
          steps: [],
          tasks: [],
          artifacts: [],
        },
        met_by: AGENT,
        met_at: expect.any(String),
        rejection: null,
      },
      expect.objectContaining({ id: 'c2', met: true, met_by: AGENT }),
    ]);
    expect(model.requests).toHaveLength(4);
    // The turn that ended with c2 unmet was followed by one that read which.
    const notes = await harnessNotes(harness, task.task.id);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ topic: 'criteria_unmet', criteria: ['c2'] });
    const read = inputText(model.requests[2]);
    expect(read).toContain('[harness] This task cannot complete yet: 1 of 2 acceptance criteria');
    expect(read).toContain('c2 "Has an upgrade guide"');
    expect(read).not.toContain('- c1 "Lists every breaking change"');
    // Its task section shows what is met, with the evidence and by whom.
    expect(read).toContain(
      '- [x] c1: Lists every breaking change — met by tiny-harness: Breaking changes'
    );
    expect(read).toContain('- [ ] c2: Has an upgrade guide');
  });

  it('emits the updated Task on the stream as each criterion is met', async () => {
    const { harness, start } = delegated([
      meet('c1', 'listed'),
      meet('c2', 'written'),
      { text: 'Done.' },
    ]);
    const task = await start();

    const counts = (await taskEvents(harness, task)).map(
      (extension) => extension.acceptance_criteria.filter((criterion) => criterion.met).length
    );
    expect(counts).toEqual(expect.arrayContaining([0, 1, 2]));
    expect(view(await harness.task(task.task.id)).state).toBe(STATES.COMPLETED);
  });

  it('parks in awaiting-review asking its reporter once the reminders are used up', async () => {
    const { harness, model, start } = delegated([
      meet('c1', 'listed'),
      { text: 'Done.' },
      { text: 'Still done.' },
      { text: 'Really done.' },
    ]);
    const task = await start();

    const parked = view(await harness.task(task.task.id));
    expect(parked.state).toBe(STATES.INPUT_REQUIRED);
    expect(parked.subState).toBe('awaiting-review');
    expect(parked.statusText).toContain('Review needed: 1 of 2 acceptance criteria not met');
    expect(parked.statusText).toContain('c2 "Has an upgrade guide"');
    expect(parked.statusText).toContain(`${ALICE}: reply`);
    // Two reminders (the default bound), each naming c2, then the review.
    expect(model.requests).toHaveLength(4);
    const notes = await harnessNotes(harness, task.task.id);
    expect(notes.map((note) => note.criteria)).toEqual([['c2'], ['c2']]);
    expect(notes[1]?.text).toContain('Reminder 2 of 2');
    const record = await harness.task(task.task.id);
    expect(record.loop.criteriaReminders).toBe(0);
    expect(record.loop.parkToken).not.toBeNull();
  });

  it('takes the configured number of reminders: none parks for review at once', async () => {
    const { harness, model, start } = delegated([{ text: 'Done.' }], { criteriaReminders: 0 });
    const task = await start();

    expect(view(await harness.task(task.task.id)).subState).toBe('awaiting-review');
    expect(model.requests).toHaveLength(1);
    expect(await harnessNotes(harness, task.task.id)).toEqual([]);
  });

  it('resumes a task waiting for review when its reporter changes the criteria with an envelope alone', async () => {
    const { harness, model, start } = delegated(
      [meet('c1', 'listed'), { text: 'Done.' }, { text: 'Done: only the list was asked for.' }],
      { criteriaReminders: 0 }
    );
    const task = await start();
    expect(view(await harness.task(task.task.id)).subState).toBe('awaiting-review');
    const [kept] = view(await harness.task(task.task.id)).extension.acceptance_criteria;

    // No text: only the criteria change, dropping the unmet one.
    await harness.send(
      task.task.id,
      envelopeMessage('task', { acceptance_criteria: [kept] }),
      ALICE
    );

    const done = view(await harness.task(task.task.id));
    expect(done.state).toBe(STATES.COMPLETED);
    expect(model.requests).toHaveLength(3);
    const notes = await harnessNotes(harness, task.task.id);
    expect(notes.at(-1)).toMatchObject({ topic: 'criteria_changed', criteria: ['c1'] });
    expect(notes.at(-1)?.text).toContain(`${ALICE} changed the acceptance criteria`);
  });

  it('records a reporter completing it with criteria unmet as her acceptance', async () => {
    const { harness, start } = delegated([meet('c1', 'listed'), { text: 'Done.' }], {
      criteriaReminders: 0,
    });
    const task = await start();

    await harness.send(
      task.task.id,
      envelopeMessage('control', { action: 'complete', reason: 'the guide can wait' }),
      ALICE
    );

    const done = view(await harness.task(task.task.id));
    expect(done.state).toBe(STATES.COMPLETED);
    const [first, second] = done.extension.acceptance_criteria;
    expect(first).toMatchObject({ id: 'c1', met: true, met_by: AGENT });
    expect(second).toMatchObject({
      id: 'c2',
      met: true,
      met_by: ALICE,
      evidence: { text: `accepted unmet by ${ALICE} on completing the task: the guide can wait` },
    });
    // The acceptance is on the stream as an updated Task before the task ends.
    const last = (await taskEvents(harness, task)).at(-1);
    expect(last?.acceptance_criteria[1]?.met_by).toBe(ALICE);
  });

  it('lets a task.complete hook override the criteria rule', async () => {
    const { harness, model, start } = delegated([{ text: 'Done anyway.' }]);
    harness.hooks.register('task.complete', {
      phase: 'in',
      priority: BUILT_IN_PRIORITY - 1,
      run: (context) =>
        context.unmet.length > 0 ? { result: { decision: 'complete' as const } } : undefined,
    });
    const task = await start();

    const done = view(await harness.task(task.task.id));
    expect(done.state).toBe(STATES.COMPLETED);
    expect(done.extension.acceptance_criteria.every((criterion) => !criterion.met)).toBe(true);
    expect(model.requests).toHaveLength(1);
  });
});

describe('reviewing criteria', () => {
  it('a reporter rejects a met criterion: unmet again with her reason, and the next turn reads why', async () => {
    const { harness, model, start } = delegated(
      [meet('c1', 'listed'), meet('c2', 'written'), { text: 'Done.' }],
      { criteriaReminders: 0 }
    );
    // Alice reviews c1 while the agent is still working, after it was met.
    harness.hooks.register('tool.invoked', {
      phase: 'pre',
      priority: 1,
      run: async (context) => {
        if (context.call.id !== 'call-2-1') return undefined;
        await harness.send(context.taskId, reject('c1', 'the v1 removal is missing'), ALICE);
        return undefined;
      },
    });
    const task = await start();

    const parked = view(await harness.task(task.task.id));
    // c1 was rejected: the turn that read why ended with it unmet, so the task waits for review.
    expect(parked.subState).toBe('awaiting-review');
    expect(parked.extension.acceptance_criteria[0]).toEqual({
      id: 'c1',
      text: 'Lists every breaking change',
      met: false,
      evidence: null,
      met_by: null,
      met_at: null,
      rejection: { by: ALICE, reason: 'the v1 removal is missing', at: expect.any(String) },
    });
    const notes = await harnessNotes(harness, task.task.id);
    expect(notes[0]).toMatchObject({ topic: 'criterion_rejected', criteria: ['c1'] });
    const read = inputText(model.requests[2]);
    expect(read).toContain(
      `[harness] ${ALICE} (reporter) rejected acceptance criterion c1 "Lists every breaking change": the v1 removal is missing`
    );
    expect(read).toContain('It had been met by tiny-harness with the evidence: listed');
    expect(read).toContain(
      `- [ ] c1: Lists every breaking change — rejected by ${ALICE}: the v1 removal is missing`
    );
    expect(model.requests).toHaveLength(3);
  });

  it('a rejection wakes a task parked for review, and meeting the criterion again completes it', async () => {
    const { harness, model, start } = delegated(
      [
        meet('c1', 'listed'),
        { text: 'Done.' },
        meet('c1', 'listed, with the v1 removal'),
        meet('c2', 'written'),
        { text: 'Fixed.' },
      ],
      { criteriaReminders: 0 }
    );
    const task = await start();
    expect(view(await harness.task(task.task.id)).subState).toBe('awaiting-review');

    await harness.send(task.task.id, reject('1', 'the v1 removal is missing'), ALICE);

    const done = view(await harness.task(task.task.id));
    expect(done.state).toBe(STATES.COMPLETED);
    expect(done.extension.acceptance_criteria[0]).toMatchObject({
      met: true,
      evidence: { text: 'listed, with the v1 removal' },
      rejection: null,
    });
    expect(inputText(model.requests[2])).toContain('the v1 removal is missing');
    expect(model.requests).toHaveLength(5);
  });

  it("refuses a watcher's rejection, clearly, and changes nothing", async () => {
    const { harness, start } = delegated([meet('c1', 'listed'), { text: 'Done.' }], {
      criteriaReminders: 0,
    });
    const task = await start();
    const before = await harness.task(task.task.id);

    const refused = harness.send(task.task.id, reject('c1', 'I do not like it'), BOB);

    await expect(refused).rejects.toBeInstanceOf(ReviewerRequiredError);
    await expect(refused).rejects.toThrow(
      `only a reporter or an admin may reject an acceptance criterion; ${BOB} is a watcher`
    );
    const after = await harness.task(task.task.id);
    expect(after.version).toBe(before.version);
    expect(view(after).extension.acceptance_criteria[0]?.met).toBe(true);
    expect(await harness.store.readInbox(task.task.id)).toEqual([]);
  });

  it('takes an admin’s rejection as a reporter’s', async () => {
    const { harness } = harnessWith([meet('c1', 'listed'), { text: 'Done.' }, { text: 'Noted.' }]);
    const task = await harness.start(
      envelopeMessage(
        'task',
        {
          name: 'Release notes',
          goal: 'Write them',
          acceptance_criteria: TWO_CRITERIA,
          participants: [
            { id: ALICE, kind: 'human', role: 'reporter' },
            { id: BOB, kind: 'human', role: 'admin' },
          ],
        },
        { text: 'Write them' }
      ),
      ALICE
    );

    await harness.send(task.task.id, reject('c1', 'not yet'), BOB);

    const criterion = view(await harness.task(task.task.id)).extension.acceptance_criteria[0];
    expect(criterion).toMatchObject({ met: false, rejection: { by: BOB, reason: 'not yet' } });
  });

  it('refuses rejecting a criterion the task does not have, or one not met', async () => {
    const { harness, start } = delegated([meet('c1', 'listed'), { text: 'Done.' }], {
      criteriaReminders: 0,
    });
    const task = await start();

    await expect(harness.send(task.task.id, reject('c9', 'no'), ALICE)).rejects.toBeInstanceOf(
      UnknownCriterionError
    );
    await expect(harness.send(task.task.id, reject('c2', 'no'), ALICE)).rejects.toThrow(
      /is not met: there is nothing to reject/
    );
  });
});

describe("a child's criteria on its parent's row", () => {
  it('the row shows 0/2, 1/2 then 2/2 as the child meets them, and the parent model reads it', async () => {
    const { harness, model } = harnessWith([
      {
        toolCalls: [
          {
            name: 'spawn_subtask',
            arguments: {
              name: 'Research',
              goal: 'Find sources',
              acceptance_criteria: ['Three sources', 'Each one dated'],
            },
          },
        ],
      },
      { text: 'Waiting for the research.' },
      meet('c1', 'a, b and c'),
      meet('c2', 'all from 2025'),
      { text: 'Found and dated three sources.' },
      { text: 'The research is in.' },
    ]);
    const parent = await harness.start(brief('Research it', []), ALICE, {
      lifecycle: 'delegated',
    });

    const rows = (await taskEvents(harness, parent)).flatMap((extension) =>
      extension.sub_tasks.map((row) => row.criteria)
    );
    const counts = rows.filter((count) => count !== null).map((c) => `${c?.met}/${c?.total}`);
    expect([...new Set(counts)]).toEqual(['0/2', '1/2', '2/2']);
    const row = view(await harness.task(parent.task.id)).extension.sub_tasks[0];
    expect(row).toMatchObject({ state: STATES.COMPLETED, criteria: { met: 2, total: 2 } });
    // The parent's model, woken by the child's result, reads the count in its task section.
    expect(inputText(model.requests[5])).toMatch(/TASK_STATE_COMPLETED, criteria 2\/2 met/);
  });

  it('a delegated child parked for review is news to its parent', async () => {
    const { harness, model } = harnessWith(
      [
        {
          toolCalls: [
            {
              name: 'spawn_subtask',
              arguments: { name: 'Research', goal: 'Find sources', acceptance_criteria: ['Dated'] },
            },
          ],
        },
        { text: 'Waiting for the research.' },
        { text: 'Found some.' },
        { text: 'The research waits for your review, Alice.' },
      ],
      { config: { criteriaReminders: 0 } }
    );
    const parent = await harness.start(brief('Research it'), ALICE);

    const childId = view(await harness.task(parent.task.id)).extension.sub_tasks[0]?.task_id ?? '';
    expect(view(await harness.task(childId)).subState).toBe('awaiting-review');
    expect(model.requests).toHaveLength(4);
    expect(inputText(model.requests[3])).toContain(
      `Sub-task ${childId} waits for a review of its acceptance criteria: Review needed`
    );
  });
});

describe('criteria elsewhere', () => {
  it("a conversation's criteria are advisory: it parks as ever with them unmet, and shows them", async () => {
    const { harness, model } = harnessWith([{ text: 'Here is a draft.' }]);
    const task = await harness.start(brief(), ALICE);

    const parked = view(await harness.task(task.task.id));
    expect(parked.state).toBe(STATES.INPUT_REQUIRED);
    expect(parked.subState).toBe('awaiting-next-message');
    expect(await harnessNotes(harness, task.task.id)).toEqual([]);
    expect(inputText(model.requests[0])).toContain(
      'acceptance criteria (0 of 2 met; advisory: meet each with meet_criterion and its evidence):'
    );
  });

  it("a participant task's answer with its criteria unmet waits for its reporter, whose completion accepts them", async () => {
    const { harness } = harnessWith([
      {
        toolCalls: [
          {
            name: 'create_task_for_participant',
            arguments: {
              participant_id: BOB,
              name: 'Approve',
              goal: 'Approve the budget',
              acceptance_criteria: ['Signed by finance'],
            },
          },
        ],
      },
      { text: 'Waiting for Bob.' },
      { text: 'Bob approved.' },
    ]);
    const parent = await harness.start(brief('Get it approved', []), ALICE, {
      lifecycle: 'delegated',
    });
    const childId = view(await harness.task(parent.task.id)).extension.sub_tasks[0]?.task_id ?? '';

    await harness.send(childId, textMessage('approved'), BOB);

    // The assignee answered, but may not accept the criteria: the reporter is asked to.
    const answered = view(await harness.task(childId));
    expect(answered.state).toBe(STATES.INPUT_REQUIRED);
    expect(answered.subState).toBe('awaiting-review');
    expect(answered.statusText).toContain('only a reporter or an admin may accept');
    await expect(
      harness.send(childId, envelopeMessage('control', { action: 'complete' }), BOB)
    ).rejects.toBeInstanceOf(RoleRequiredError);

    await harness.send(childId, envelopeMessage('control', { action: 'complete' }), ALICE);
    const child = view(await harness.task(childId));
    expect(child.state).toBe(STATES.COMPLETED);
    expect(child.extension.acceptance_criteria[0]).toMatchObject({ met: true, met_by: ALICE });
  });

  it('a task envelope keeps the met state of the criteria it keeps, and refuses to change it', async () => {
    const { harness } = harnessWith([meet('c1', 'listed'), { text: 'Working on the guide.' }]);
    const task = await harness.start(brief(), ALICE);
    const current = view(await harness.task(task.task.id)).extension.acceptance_criteria;

    // A watcher may not change them at all.
    await expect(
      harness.send(
        task.task.id,
        envelopeMessage('task', { acceptance_criteria: [{ text: 'Nothing' }] }),
        BOB
      )
    ).rejects.toBeInstanceOf(RoleRequiredError);
    // Echoing the criteria as read, reworded by text, plus a new one: state kept, ids stable.
    await harness.send(
      task.task.id,
      envelopeMessage('task', {
        acceptance_criteria: [
          current[0],
          { text: 'Has an upgrade guide' },
          { text: 'Mentions the new logo' },
        ],
      }),
      ALICE
    );
    const edited = view(await harness.task(task.task.id)).extension.acceptance_criteria;
    expect(edited.map((c) => [c.id, c.met])).toEqual([
      ['c1', true],
      ['c2', false],
      ['c3', false],
    ]);
    expect(edited[0]).toEqual(current[0]);

    const before = await harness.task(task.task.id);
    const refused = harness.send(
      task.task.id,
      envelopeMessage('task', {
        acceptance_criteria: [{ id: 'c2', text: 'Has an upgrade guide', met: true }],
      }),
      ALICE
    );
    await expect(refused).rejects.toBeInstanceOf(EnvelopeRefusedError);
    await expect(refused).rejects.toThrow(
      'task envelope cannot change acceptance_criteria[0].met (criteria are met with meet_criterion and found unmet with reject_criterion)'
    );
    expect((await harness.task(task.task.id)).version).toBe(before.version);
  });
});

describe('docs/a2a/ext/README.md', () => {
  it('shows the criteria as the model reads them in its task section', () => {
    const readme = readFileSync(
      fileURLToPath(new URL('../../../docs/a2a/ext/README.md', import.meta.url)),
      'utf8'
    );
    const shown = /## Acceptance criteria[\s\S]*?```text\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const extension = TaskExtensionSchema.parse({
      name: 'Release notes',
      goal: 'Write them',
      lifecycle: 'delegated',
      acceptance_criteria: [
        {
          text: 'Lists every breaking change',
          met: true,
          evidence: { text: 'the config file moved' },
          met_by: AGENT,
          met_at: '2026-01-01T00:00:00.000Z',
        },
        {
          text: 'Has an upgrade guide',
          rejection: { by: ALICE, reason: 'it stops at step 2', at: '2026-01-01T00:00:01.000Z' },
        },
      ],
    });
    const record: TaskRecord = {
      task: {
        id: 't-1',
        contextId: 'c-1',
        status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: '' },
        artifacts: [],
        history: [],
        metadata: { [TASK_METADATA_KEY]: extension },
      },
      loop: initialLoopState(),
      version: 1,
      eventSeq: 0,
      inboxCount: 0,
    };
    const { request } = assembleContext({
      record,
      history: [],
      tools: new ToolRegistry(),
      config: DEFAULT_LOOP_CONFIG,
    });
    expect(shown).not.toBe('');
    expect(inputText(request)).toContain(shown.trim());
  });
});
