import type { Task } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { TASK_METADATA_KEY, USAGE_METADATA_KEY } from '../../../functions/core/a2a/identifiers.js';
import {
  budgetUsedShare,
  namedTaskTypes,
  OTHER_TASK_TYPE,
  spendDelta,
  spendMetricOf,
  taskTypeDimension,
} from '../../../functions/core/loop/spend-metric.js';
import { EMPTY_USAGE, readUsage, type TaskUsage } from '../../../functions/core/loop/usage.js';
import type { TaskRecord } from '../../../functions/core/ports/task-store.js';
import { ALICE, harnessWith } from '../../support/harness.js';
import { envelopeMessage } from '../../support/messages.js';

const NAMED = namedTaskTypes({ '*': { usd: 5 }, research: { model_calls: 40 } });

/** A task record with the given extension fields, usage ledger and budget account. */
const recordOf = (
  fields: { type?: string | null; budget?: object } = {},
  usage: Partial<TaskUsage> = {},
  budgetAvailable?: TaskRecord['budgetAvailable']
): TaskRecord => {
  const task = {
    id: 'task-1',
    contextId: 'context-1',
    history: [],
    artifacts: [],
    metadata: {
      [TASK_METADATA_KEY]: { name: 'n', goal: 'g', ...fields },
      [USAGE_METADATA_KEY]: { ...EMPTY_USAGE, ...usage },
    },
  } as unknown as Task;
  return {
    task,
    loop: {} as TaskRecord['loop'],
    version: 1,
    eventSeq: 0,
    inboxCount: 0,
    ...(budgetAvailable === undefined ? {} : { budgetAvailable }),
  };
};

describe('the spend metric of a change', () => {
  it('names the types of the default budgets but `*`', () => {
    expect([...NAMED]).toEqual(['research']);
    expect(namedTaskTypes(undefined).size).toBe(0);
    expect(namedTaskTypes({ '*': { usd: 1 } }).size).toBe(0);
  });

  it('publishes a named type as itself and every other type, or none, as `other`', () => {
    expect(taskTypeDimension('research', NAMED)).toBe('research');
    expect(taskTypeDimension('made-up-by-a-client', NAMED)).toBe(OTHER_TASK_TYPE);
    expect(taskTypeDimension(null, NAMED)).toBe(OTHER_TASK_TYPE);
    expect(taskTypeDimension('*', NAMED)).toBe(OTHER_TASK_TYPE);
  });

  it('is what the change added to the ledger, or nothing', () => {
    const before = recordOf(
      {},
      { model_calls: 1, input_tokens: 100, output_tokens: 10, cost_usd: 0.1 }
    );
    const after = recordOf(
      {},
      {
        model_calls: 2,
        input_tokens: 250,
        cached_input_tokens: 50,
        output_tokens: 30,
        cost_usd: 0.3,
      }
    );
    expect(spendDelta(before, after)).toEqual({
      cost_usd: 0.2,
      input_tokens: 150,
      output_tokens: 20,
      model_calls: 1,
    });
    expect(spendDelta(after, after)).toBeUndefined();
    // A new record's whole ledger is what its insert added (none, for a task just started).
    expect(spendDelta(undefined, recordOf())).toBeUndefined();
    expect(spendDelta(undefined, before)).toMatchObject({ model_calls: 1, cost_usd: 0.1 });
    // A ledger never shrinks; if it did, nothing negative would be published.
    expect(spendDelta(after, before)).toBeUndefined();
  });

  it('is the highest share of the budget used over its limits, past 1 when overspent', () => {
    expect(budgetUsedShare({ usd: 5, model_calls: 40 }, { usd: 4, model_calls: 10 })).toBe(0.75);
    expect(budgetUsedShare({ usd: 5 }, { usd: -1 })).toBe(1.2);
    expect(budgetUsedShare({ model_calls: 3 }, { model_calls: 2 })).toBe(0.333333);
    // A limit the account does not hold is not counted; no budget or no account, no share.
    expect(budgetUsedShare({ usd: 5, model_calls: 40 }, { model_calls: 30 })).toBe(0.25);
    expect(budgetUsedShare({ usd: 5 }, { model_calls: 30 })).toBeUndefined();
    expect(budgetUsedShare(undefined, { usd: 1 })).toBeUndefined();
    expect(budgetUsedShare({ usd: 5 }, undefined)).toBeUndefined();
  });

  it('is nothing for a change that spent nothing on a task without a budget', () => {
    const record = recordOf({ type: 'research' }, { model_calls: 1 });
    expect(spendMetricOf(record, record, NAMED)).toBeUndefined();
    // A budget with no account (a record before accounts) has no share to publish either.
    const unaccounted = recordOf({ budget: { usd: 5 } });
    expect(spendMetricOf(unaccounted, unaccounted, NAMED)).toBeUndefined();
  });

  it("carries the spend and the budget's share, under the task's type", () => {
    const before = recordOf(
      { type: 'research', budget: { model_calls: 40 } },
      {},
      { model_calls: 40 }
    );
    const after = recordOf(
      { type: 'research', budget: { model_calls: 40 } },
      { model_calls: 1, input_tokens: 100, output_tokens: 10, cost_usd: 0.001 },
      { model_calls: 30 }
    );
    expect(spendMetricOf(before, after, NAMED)).toEqual({
      taskType: 'research',
      spend: { cost_usd: 0.001, input_tokens: 100, output_tokens: 10, model_calls: 1 },
      budgetUsedShare: 0.25,
    });
    // A change of a budgeted task that spent nothing (its descendants drew on its account).
    expect(spendMetricOf(after, { ...after, budgetAvailable: { model_calls: 20 } }, NAMED)).toEqual(
      { taskType: 'research', budgetUsedShare: 0.5 }
    );
    // Spend without a budget.
    expect(
      spendMetricOf(
        recordOf({ type: 'chat' }),
        recordOf({ type: 'chat' }, { model_calls: 1 }),
        NAMED
      )
    ).toEqual({
      taskType: OTHER_TASK_TYPE,
      spend: { cost_usd: 0, input_tokens: 0, output_tokens: 0, model_calls: 1 },
    });
  });

  it('counts a task whose extension does not parse as `other`, without a budget, and never throws', () => {
    const corrupt = recordOf({}, { model_calls: 1 }, { usd: 1 });
    corrupt.task.metadata = { ...corrupt.task.metadata, [TASK_METADATA_KEY]: { name: 7 } };
    expect(spendMetricOf(undefined, corrupt, NAMED)).toEqual({
      taskType: OTHER_TASK_TYPE,
      spend: { cost_usd: 0, input_tokens: 0, output_tokens: 0, model_calls: 1 },
    });
  });

  it("reads a task's tree: the parent's share counts what its sub-task spent", async () => {
    const { harness } = harnessWith(
      [
        { toolCalls: [{ name: 'spawn_subtask', arguments: { name: 'Child', goal: 'g' } }] },
        { text: 'Waiting.' },
        { text: 'Child done.' },
        { text: 'Parent read it.' },
      ],
      { config: { defaultBudgets: { '*': { model_calls: 10 }, research: { model_calls: 8 } } } }
    );
    const changes: Array<{ before: TaskRecord | undefined; after: TaskRecord }> = [];
    harness.store.onChange((before, after) => changes.push({ before, after }));
    const started = await harness.start(
      envelopeMessage(
        'task',
        { name: 'Report', goal: 'Write it', type: 'research' },
        { text: 'write the report' }
      ),
      ALICE
    );
    const parent = await harness.task(started.task.id);
    // Three calls of its own and one of its sub-task, which has no budget of its own and draws
    // on the parent's.
    expect(readUsage(parent.task).model_calls).toBe(3);
    expect(parent.budgetAvailable).toEqual({ model_calls: 4 });
    expect(spendMetricOf(undefined, parent, NAMED)).toMatchObject({
      taskType: 'research',
      budgetUsedShare: 0.5,
    });

    // Each model call's commit on the parent publishes that one call, and nothing else does.
    const parentSpend = changes
      .filter(({ after }) => after.task.id === parent.task.id)
      .map(({ before, after }) => spendDelta(before, after))
      .filter((spend) => spend !== undefined);
    expect(parentSpend).toEqual(
      Array(3).fill({ cost_usd: 0, input_tokens: 100, output_tokens: 10, model_calls: 1 })
    );
  });
});
