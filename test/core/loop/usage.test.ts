import { describe, expect, it } from 'vitest';
import { USAGE_METADATA_KEY } from '../../../functions/core/a2a/identifiers.js';
import { costOf, readUsage } from '../../../functions/core/loop/usage.js';
import { readExtension, withExtension } from '../../../functions/core/task/a2a-task.js';
import { CHILDREN_READ_AT_ONCE, usageTree } from '../../../functions/service/usage-tree.js';
import { ALICE, endedRows, harnessWith, view } from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';

describe('usage and the cost ledger', () => {
  it('prices cached input at its own rate, and an unpriced model at nothing', () => {
    const usage = { inputTokens: 1_000_000, cachedInputTokens: 400_000, outputTokens: 100_000 };
    expect(costOf(usage, { input: 2, cachedInput: 0.5, output: 8 })).toBeCloseTo(
      0.6 * 2 + 0.4 * 0.5 + 0.1 * 8
    );
    expect(costOf(usage, { input: 2, output: 8 })).toBeCloseTo(2 + 0.8);
    expect(costOf(usage, undefined)).toBe(0);
  });

  it('records each model call on the task, and sums a task and its sub-tasks', async () => {
    const { harness } = harnessWith(
      [
        { toolCalls: [{ name: 'spawn_subtask', arguments: { name: 'Child', goal: 'g' } }] },
        { text: 'Waiting.' },
        { text: 'Child done.' },
        { text: 'Parent read it.' },
      ],
      { config: { prices: { scripted: { input: 1, output: 2 } } } }
    );
    const parent = await harness.start(textMessage('go'), ALICE);
    const childId = view(await harness.task(parent.task.id)).extension.sub_tasks[0]?.task_id ?? '';

    const parentRecord = await harness.task(parent.task.id);
    // Three parent calls and one child call, each 100 tokens in and 10 out (the scripted model).
    expect(parentRecord.task.metadata?.[USAGE_METADATA_KEY]).toEqual({
      model_calls: 3,
      input_tokens: 300,
      cached_input_tokens: 0,
      output_tokens: 30,
      cost_usd: 0.00036,
    });
    const tree = await usageTree(harness.store, parentRecord);
    expect(tree?.children.map((child) => child.taskId)).toEqual([childId]);
    expect(tree?.total).toEqual({
      model_calls: 4,
      input_tokens: 400,
      cached_input_tokens: 0,
      output_tokens: 40,
      cost_usd: 0.00048,
    });
  });

  it('reads a task’s children a batch at a time, and sums them in row order', async () => {
    const { harness } = harnessWith([{ text: 'Hello.' }]);
    const parent = await harness.start(textMessage('hi'), ALICE);
    const base = await harness.task(parent.task.id);
    const rows = endedRows(60, 'missing-child');
    const task = withExtension(base.task, { ...readExtension(base.task), sub_tasks: rows });
    let inFlight = 0;
    let most = 0;
    const gets: string[] = [];
    const store = Object.create(harness.store) as typeof harness.store;
    store.get = async (taskId: string) => {
      gets.push(taskId);
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight--;
      return harness.store.get(taskId);
    };
    const tree = await usageTree(store, { ...base, task });
    expect(gets).toEqual(rows.map((row) => row.task_id));
    expect(most).toBe(CHILDREN_READ_AT_ONCE);
    expect(tree.children).toEqual([]);
    expect(tree.total).toEqual(readUsage(task));
  });

  it('counts a remote child by what its agent reports, and one that reports nothing as unknown, not zero', async () => {
    const { harness } = harnessWith(
      [
        {
          toolCalls: [
            { name: 'spawn_subtask', arguments: { name: 'A', goal: 'g', agent: 'ledger' } },
            { name: 'spawn_subtask', arguments: { name: 'B', goal: 'g', agent: 'silent' } },
          ],
        },
        { text: 'Waiting.' },
      ],
      {
        remoteAgents: [
          { id: 'ledger', description: '' },
          { id: 'silent', description: '' },
        ],
      }
    );
    const parent = await harness.start(textMessage('go'), ALICE);
    const reported = {
      usage: {
        model_calls: 7,
        input_tokens: 700,
        cached_input_tokens: 100,
        output_tokens: 70,
        cost_usd: 0.5,
      },
      unknown: ['deeper-on-ledger'],
    };
    const tree = await usageTree(
      harness.store,
      await harness.task(parent.task.id),
      async (parentId) => {
        expect(parentId).toBe(parent.task.id);
        return new Map([
          ['ledger-task-1', reported],
          ['silent-task-2', null],
        ]);
      }
    );
    expect(tree?.children.map((child) => [child.taskId, child.agent])).toEqual([
      ['ledger-task-1', 'ledger'],
      ['silent-task-2', 'silent'],
    ]);
    // Two parent calls here (100 in, 10 out each) and what ledger reports.
    expect(tree?.total).toEqual({
      model_calls: 9,
      input_tokens: 900,
      cached_input_tokens: 100,
      output_tokens: 90,
      cost_usd: 0.5,
    });
    expect(tree?.unknown).toEqual(['deeper-on-ledger', 'silent-task-2']);
  });
});
