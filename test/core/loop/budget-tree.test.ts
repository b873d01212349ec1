import { TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import {
  type ChildChange,
  recordChildChange,
} from '../../../functions/core/intake/child-changed.js';
import { withBudgetSet } from '../../../functions/core/intake/set-budget.js';
import {
  accountCreditOf,
  budgetHoldersOf,
  holdsOf,
  refundsOf,
} from '../../../functions/core/loop/budget-account.js';
import { changeOf } from '../../../functions/core/loop/records.js';
import { EMPTY_USAGE, readUsage } from '../../../functions/core/loop/usage.js';
import type { TaskRecord } from '../../../functions/core/ports/task-store.js';
import { readExtension, withExtension } from '../../../functions/core/task/a2a-task.js';
import type { ScriptedReply } from '../../../functions/core/testing/scripted-model.js';
import { makeRecord } from '../../conformance/fixtures.js';
import { ALICE, harnessWith, STATES, view } from '../../support/harness.js';
import { envelopeMessage } from '../../support/messages.js';

const setBudget = (budget: object) => envelopeMessage('control', { action: 'set_budget', budget });

const spawn = (args: Record<string, unknown>): ScriptedReply => ({
  toolCalls: [{ name: 'spawn_subtask', arguments: args }],
});

/** A child's first call: a tool call, so its work takes a second call to finish. */
const childFirstCall: ScriptedReply = {
  toolCalls: [{ name: 'meet_criterion', arguments: { criterion: 'c1', evidence: 'a, b, c' } }],
};

/**
 * A conversation alice reports, of type `research`: on this harness only that type has a default
 * budget, so a child (no type) has none of its own and draws on its parent's.
 */
const researchTree = async (replies: ScriptedReply[], budget: object | undefined) => {
  const { harness, model } = harnessWith(replies, {
    config: budget === undefined ? {} : { defaultBudgets: { research: budget } },
  });
  const parent = await harness.start(
    envelopeMessage(
      'task',
      {
        name: 'Report',
        goal: 'Write the report',
        type: 'research',
        participants: [{ id: ALICE, kind: 'human', role: 'reporter' }],
      },
      { text: 'write the report' }
    ),
    ALICE
  );
  const parentId = parent.task.id;
  const childId = async () => {
    const row = view(await harness.task(parentId)).extension.sub_tasks[0];
    if (row === undefined) throw new Error('no sub-task row');
    return row.task_id;
  };
  return { harness, model, parentId, childId };
};

describe("a budget holds the task's whole tree", () => {
  it("stops a child that could pass its parent's budget, shows it on the parent's row without waking its model, and a raise on the parent finishes the work", async () => {
    const { harness, model, parentId, childId } = await researchTree(
      [
        spawn({ name: 'Research', goal: 'Find sources', acceptance_criteria: ['three links'] }),
        { text: 'Waiting for the research.' },
        childFirstCall,
        { text: 'Found three sources.' },
        { text: 'Here is the report.' },
      ],
      { model_calls: 3 }
    );
    const child = await childId();
    // Three calls: the parent's two and the child's first. The child's second could pass the
    // parent's budget, so it was not made.
    expect(model.requests).toHaveLength(3);
    const stopped = view(await harness.task(child));
    expect(stopped).toMatchObject({ state: STATES.INPUT_REQUIRED, subState: 'awaiting-budget' });
    expect(stopped.statusText).toContain(`The budget of task ${parentId}`);
    expect(stopped.statusText).toContain(`A reporter or an admin of task ${parentId} may raise it`);
    expect((await harness.task(child)).loop.budgetHolders).toEqual([
      { taskId: parentId, limits: ['model_calls'] },
    ]);
    expect((await harness.task(parentId)).budgetAvailable).toEqual({ model_calls: 0 });
    const parentView = view(await harness.task(parentId));
    expect(parentView.extension.sub_tasks[0]).toMatchObject({ sub_state: 'awaiting-budget' });
    expect(parentView).toMatchObject({ subState: 'awaiting-next-message' });

    await harness.send(parentId, setBudget({ model_calls: 5 }), ALICE);

    // The child's call, then the parent's, woken by the child's result: five calls, none twice.
    expect(model.requests).toHaveLength(5);
    expect(view(await harness.task(child))).toMatchObject({ state: STATES.COMPLETED });
    expect(view(await harness.task(parentId)).statusText).toBe('Here is the report.');
    expect((await harness.task(parentId)).budgetAvailable).toEqual({ model_calls: 0 });
  });

  it("gives a child its own budget within its parent's, and stops it at its own", async () => {
    const { harness, model, parentId, childId } = await researchTree(
      [
        spawn({
          name: 'Research',
          goal: 'Find sources',
          acceptance_criteria: ['three links'],
          budget: { model_calls: 1 },
        }),
        { text: 'Waiting for the research.' },
        childFirstCall,
        { text: 'Found three sources.' },
      ],
      { model_calls: 10 }
    );
    const child = view(await harness.task(await childId()));
    expect(child.extension.budget).toEqual({ model_calls: 1 });
    expect(child).toMatchObject({ subState: 'awaiting-budget' });
    expect(child.statusText).toContain('model calls: spent 1 of 1');
    expect(model.requests).toHaveLength(3);
    expect((await harness.task(parentId)).budgetAvailable).toEqual({ model_calls: 7 });
  });

  it('reaches a child the task already has when it is first given a budget, and counts the tree from then', async () => {
    const { harness, model, parentId, childId } = await researchTree(
      [
        spawn({ name: 'Research', goal: 'Find sources', acceptance_criteria: ['three links'] }),
        { text: 'Waiting for the research.' },
        {
          toolCalls: [
            {
              name: 'ask_participant',
              arguments: { participant_id: ALICE, question: 'Which field?' },
            },
          ],
        },
        // The parent, woken by its child's question.
        { text: 'The research asks alice which field.' },
      ],
      undefined
    );
    const child = await childId();
    expect((await harness.task(child)).loop.budgetHolders).toEqual([]);
    expect(view(await harness.task(child))).toMatchObject({ subState: 'awaiting-answer' });
    expect(model.requests).toHaveLength(4);

    await harness.send(parentId, setBudget({ model_calls: 4, output_tokens: 9_000 }), ALICE);

    expect((await harness.task(child)).loop.budgetHolders).toEqual([
      { taskId: parentId, limits: ['output_tokens', 'model_calls'] },
    ]);
    // Opened at the limit less what the parent itself had spent (three calls), not its child's.
    expect((await harness.task(parentId)).budgetAvailable).toEqual({
      model_calls: 1,
      output_tokens: 9_000 - readUsage((await harness.task(parentId)).task).output_tokens,
    });
  });
});

describe('a remote child', () => {
  const remoteChange = (
    parentId: string,
    order: number,
    reportedUsage: ChildChange['reportedUsage']
  ): ChildChange => ({
    parentId,
    childId: 'remote-task-1',
    agent: { kind: 'agent', id: 'remote', version: null },
    state: TaskState.TASK_STATE_WORKING,
    subState: undefined,
    childLifecycle: 'delegated',
    participantTask: false,
    remoteTurn: false,
    linkedByHarness: true,
    summary: 'working',
    reportedUsage,
    changeKey: `remote:${order}`,
    order,
  });
  const reported = (model_calls: number, output_tokens: number) => ({
    ...EMPTY_USAGE,
    model_calls,
    output_tokens,
  });

  it('is charged to the budgets its parent draws on after the fact, each report for what the last did not', async () => {
    const { harness, parentId } = await researchTree([{ text: 'Delegated.' }], {
      model_calls: 10,
      output_tokens: 1_000,
    });
    const available = async () => (await harness.task(parentId)).budgetAvailable;
    const before = await available();

    await recordChildChange(harness.deps, remoteChange(parentId, 1, reported(2, 300)));
    expect(await available()).toEqual({
      model_calls: (before?.model_calls ?? 0) - 2,
      output_tokens: (before?.output_tokens ?? 0) - 300,
    });
    expect((await harness.task(parentId)).loop.remoteCharged['remote-task-1']).toEqual(
      reported(2, 300)
    );

    // The next report charges only its growth; one that reports nothing charges nothing.
    await recordChildChange(harness.deps, {
      ...remoteChange(parentId, 2, reported(3, 900)),
      state: TaskState.TASK_STATE_COMPLETED,
    });
    await recordChildChange(harness.deps, remoteChange(parentId, 3, null));
    expect(await available()).toEqual({
      model_calls: (before?.model_calls ?? 0) - 3,
      output_tokens: (before?.output_tokens ?? 0) - 900,
    });
  });
});

describe('a budget given before accounts existed', () => {
  const legacy = (): TaskRecord => {
    const record = makeRecord('legacy-task');
    const extension = readExtension(record.task);
    return {
      ...record,
      task: withExtension(record.task, {
        ...extension,
        participants: [{ id: ALICE, kind: 'human', role: 'reporter', display_name: '' }],
        budget: { model_calls: 3 },
      }),
    };
  };

  it('takes nothing for its calls (its own limits hold through its ledger), and a set_budget opens its account whole', () => {
    const record = legacy();
    expect(budgetHoldersOf(record)).toEqual([]);
    expect(budgetHoldersOf({ ...record, budgetAvailable: { model_calls: 1 } })).toEqual([
      { taskId: 'legacy-task', limits: ['model_calls'] },
    ]);
    const { change } = withBudgetSet(changeOf(record), {
      sender: ALICE,
      budget: { model_calls: 5 },
    });
    expect(change.budgetCredits).toEqual([{ taskId: 'legacy-task', amounts: { model_calls: 5 } }]);
  });
});

describe('budget accounts', () => {
  it('open a new limit at the limit less what was spent, and move a changed one by the difference', () => {
    const spent = { ...EMPTY_USAGE, model_calls: 3, cost_usd: 0.5 };
    expect(accountCreditOf(undefined, { model_calls: 10 }, spent)).toEqual({ model_calls: 7 });
    expect(accountCreditOf({ model_calls: 10 }, { model_calls: 12, usd: 2 }, spent)).toEqual({
      model_calls: 2,
      usd: 1.5,
    });
    expect(accountCreditOf({ model_calls: 10 }, { model_calls: 10 }, spent)).toEqual({});
  });

  it("hold each holder's limits of a call's worst case, and settle them with what it used", () => {
    const holders = [
      { taskId: 'child', limits: ['model_calls' as const] },
      { taskId: 'parent', limits: ['usd' as const, 'output_tokens' as const] },
    ];
    const worst = { model_calls: 1, input_tokens: 900, output_tokens: 500, usd: undefined };
    const holds = holdsOf(holders, worst);
    // An unpriced model's call holds no dollars.
    expect(holds).toEqual([
      { taskId: 'child', amounts: { model_calls: 1 } },
      { taskId: 'parent', amounts: { output_tokens: 500 } },
    ]);
    expect(refundsOf(holds, { model_calls: 1, output_tokens: 120 })).toEqual([
      { taskId: 'parent', amounts: { output_tokens: 380 } },
    ]);
    // A call that used more than its estimate is charged what it used.
    expect(refundsOf(holds, { model_calls: 1, output_tokens: 600 })).toEqual([
      { taskId: 'parent', amounts: { output_tokens: -100 } },
    ]);
  });
});
