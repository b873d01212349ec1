import { describe, expect, it } from 'vitest';
import { ModelRetryableError } from '../../../functions/core/errors.js';
import {
  budgetStopText,
  overrunsOf,
  withDefaultBudget,
  worstCaseOf,
} from '../../../functions/core/loop/budget.js';
import type { CompactionRecord } from '../../../functions/core/loop/compaction.js';
import { takeTurn } from '../../../functions/core/loop/take-turn.js';
import { EMPTY_USAGE, readUsage } from '../../../functions/core/loop/usage.js';
import type { Model } from '../../../functions/core/ports/model.js';
import type { TaskRecord } from '../../../functions/core/ports/task-store.js';
import { TaskExtensionSchema } from '../../../functions/core/task/extension.schema.js';
import { InProcessHarness } from '../../../functions/core/testing/in-process-harness.js';
import { ScriptedModel } from '../../../functions/core/testing/scripted-model.js';
import { ALICE, BOB, harnessWith, STATES, STRANGER, view } from '../../support/harness.js';
import { envelopeMessage, textMessage } from '../../support/messages.js';

const AGENT = 'tiny-harness';

const setBudget = (budget: object) => envelopeMessage('control', { action: 'set_budget', budget });

/** A conversation alice reports and bob watches, on a harness whose tasks may make one call. */
const oneCallTask = async (config: object = { defaultBudgets: { '*': { model_calls: 1 } } }) => {
  const { harness, model } = harnessWith(
    [{ text: 'First answer.' }, { text: 'Second answer.' }, { text: 'Third answer.' }],
    { config }
  );
  const started = await harness.start(
    envelopeMessage(
      'task',
      {
        name: 'Budgeted',
        goal: 'Answer within the budget',
        participants: [
          { id: ALICE, kind: 'human', role: 'reporter' },
          { id: BOB, kind: 'human', role: 'watcher' },
        ],
      },
      { text: 'hi' }
    ),
    ALICE
  );
  const taskId = started.task.id;
  return { harness, model, taskId, load: () => harness.task(taskId) };
};

describe('a task with a budget', () => {
  it('starts with the budget of its type, or the deployment-wide one', () => {
    const extension = TaskExtensionSchema.parse({ name: 'n', goal: 'g', type: 'research' });
    const defaults = { '*': { usd: 1 }, research: { model_calls: 40 } };
    expect(withDefaultBudget(extension, defaults).budget).toEqual({ model_calls: 40 });
    expect(withDefaultBudget({ ...extension, type: 'other' }, defaults).budget).toEqual({ usd: 1 });
    expect(withDefaultBudget({ ...extension, type: null }, defaults).budget).toEqual({ usd: 1 });
    expect(withDefaultBudget(extension, { chat: { usd: 1 } }).budget).toBeUndefined();
    expect(withDefaultBudget(extension, undefined)).toBe(extension);
  });

  it('makes no call that could pass it: the task waits in awaiting-budget, saying why and who may raise it', async () => {
    const { harness, model, taskId, load } = await oneCallTask();
    expect(view(await load())).toMatchObject({ state: STATES.INPUT_REQUIRED });
    expect(view(await load()).extension.budget).toEqual({ model_calls: 1 });

    await harness.send(taskId, textMessage('and another thing'), ALICE);

    const stopped = view(await load());
    expect(stopped).toMatchObject({ state: STATES.INPUT_REQUIRED, subState: 'awaiting-budget' });
    expect(stopped.statusText).toContain(
      'model calls: spent 1 of 1; the next call may need up to 1'
    );
    expect(stopped.statusText).toContain('A reporter or an admin may raise it');
    expect(model.requests).toHaveLength(1);
  });

  it('resumes when a reporter raises it, and the model reads what waited', async () => {
    const { harness, model, taskId, load } = await oneCallTask();
    await harness.send(taskId, textMessage('and another thing'), ALICE);

    await harness.send(taskId, setBudget({ model_calls: 2 }), ALICE);

    const resumed = view(await load());
    expect(resumed).toMatchObject({
      state: STATES.INPUT_REQUIRED,
      subState: 'awaiting-next-message',
    });
    expect(resumed.statusText).toBe('Second answer.');
    expect(resumed.extension.budget).toEqual({ model_calls: 2 });
    expect(model.requests).toHaveLength(2);
    expect(JSON.stringify(model.requests[1]?.input)).toContain('and another thing');
  });

  it('keeps a task that is not waiting for it asleep when it changes', async () => {
    const { harness, model, taskId, load } = await oneCallTask();
    const before = await load();

    await harness.send(taskId, setBudget({ usd: 2 }), ALICE);

    const after = await load();
    expect(view(after)).toMatchObject({ subState: 'awaiting-next-message' });
    expect(view(after).extension.budget).toEqual({ model_calls: 1, usd: 2 });
    expect(after.loop.parkToken).toBe(before.loop.parkToken);
    expect(model.requests).toHaveLength(1);
  });

  it("refuses a watcher's, a stranger's and a task envelope's budget, changing nothing", async () => {
    const { harness, taskId, load } = await oneCallTask();
    await harness.send(taskId, textMessage('and another thing'), ALICE);
    const before = await load();

    await expect(harness.send(taskId, setBudget({ model_calls: 9 }), BOB)).rejects.toThrow(
      /bob is a watcher: only a reporter or an admin may set the task's budget/
    );
    await expect(
      harness.send(taskId, setBudget({ model_calls: 9 }), STRANGER)
    ).resolves.toMatchObject({ accepted: false, reason: 'not a participant' });
    // The agent, the task's assignee, does not set what it may spend.
    await expect(harness.send(taskId, setBudget({ model_calls: 9 }), AGENT)).rejects.toThrow(
      /tiny-harness is an assignee: only a reporter or an admin may set the task's budget/
    );
    await expect(
      harness.send(taskId, envelopeMessage('task', { budget: { model_calls: 9 } }), ALICE)
    ).rejects.toThrow(/budget/);
    await expect(harness.send(taskId, setBudget({}), ALICE)).rejects.toThrow(/at least one/);
    await expect(harness.send(taskId, setBudget({ model_calls: -1 }), ALICE)).rejects.toThrow();

    const after = await load();
    expect(after.version).toBe(before.version);
    expect(view(after)).toMatchObject({ subState: 'awaiting-budget' });
    expect(view(after).extension.budget).toEqual({ model_calls: 1 });
  });

  it('counts a priced call at its worst case in dollars, and never caps an unpriced model in dollars', async () => {
    const priced = {
      defaultModel: 'm',
      maxOutputTokens: 1_000,
      prices: { m: { input: 1, output: 10 } },
      defaultBudgets: { '*': { usd: 0.005 } },
    };
    // 1,000 output tokens at $10 a million are $0.01: more than the whole budget.
    const stopped = await oneCallTask(priced);
    expect(view(await stopped.load())).toMatchObject({ subState: 'awaiting-budget' });
    expect(view(await stopped.load()).statusText).toContain('cost: spent $0.0000 of $0.0050');
    expect(stopped.model.requests).toHaveLength(0);

    const unpriced = await oneCallTask({ ...priced, prices: {} });
    expect(view(await unpriced.load())).toMatchObject({ subState: 'awaiting-next-message' });
  });
});

describe('a retried turn', () => {
  it('takes its call from the budget once: a throttled call retried holds nothing more', async () => {
    const scripted = new ScriptedModel([{ text: 'Answered on the retry.' }]);
    let throttled = false;
    const model: Model = {
      invoke: async (request) => {
        if (!throttled) {
          throttled = true;
          throw new ModelRetryableError('throttled');
        }
        return scripted.invoke(request);
      },
    };
    const harness = new InProcessHarness({
      model,
      config: { defaultBudgets: { '*': { model_calls: 3 } } },
    });
    await expect(harness.start(textMessage('hi'), ALICE)).rejects.toThrow('throttled');
    const [task] = await harness.store.list({ participantId: ALICE });
    if (task === undefined) throw new Error('no task was created');
    const taskId = task.task.id;
    // The state's retry: the same turn again, its worst case reserved by the attempt that failed.
    expect((await harness.task(taskId)).budgetAvailable).toEqual({ model_calls: 2 });
    await takeTurn(harness.deps, { taskId, generation: 1, turn: 0 });

    const after = await harness.task(taskId);
    expect(view(after)).toMatchObject({ subState: 'awaiting-next-message' });
    expect(readUsage(after.task).model_calls).toBe(1);
    expect(after.budgetAvailable).toEqual({ model_calls: 2 });
  });
});

describe('a turn that compacts its request first', () => {
  /** A task whose first message is over the compaction budget, under `budget`. */
  const compactingTask = async (budget: object) => {
    const { harness, model } = harnessWith(
      [{ text: 'Summary: the user pasted a long log.' }, { text: 'I read the summary.' }],
      { config: { turnBudgetTokens: 2_000, defaultBudgets: { '*': budget } } }
    );
    const started = await harness.start(
      envelopeMessage(
        'task',
        {
          name: 'Long log',
          goal: 'Read the log',
          participants: [{ id: ALICE, kind: 'human', role: 'reporter' }],
        },
        { text: `please read: ${'log line\n'.repeat(2_000)}` }
      ),
      ALICE
    );
    const taskId = started.task.id;
    return { harness, model, taskId, load: () => harness.task(taskId) };
  };

  it('takes the summary call from the budget with the model call, before either is made', async () => {
    const { harness, model, taskId, load } = await compactingTask({ model_calls: 1 });
    const stopped = view(await load());
    expect(stopped).toMatchObject({ state: STATES.INPUT_REQUIRED, subState: 'awaiting-budget' });
    expect(stopped.statusText).toContain('what it needs counts the summary call too');
    expect(stopped.statusText).toContain(
      'model calls: spent 0 of 1; the next call may need up to 2'
    );
    expect(model.requests).toHaveLength(0);
    // Nothing was compacted for a turn that did not go on.
    expect(await harness.store.getAudit(taskId, 'compaction:1:0')).toBeUndefined();

    await harness.send(taskId, setBudget({ model_calls: 2 }), ALICE);

    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]?.tools).toEqual([]);
    const after = await load();
    expect(view(after)).toMatchObject({ subState: 'awaiting-next-message' });
    expect(after.budgetAvailable).toEqual({ model_calls: 0 });
  });

  it('counts the summary call in the ledger and in the compaction record', async () => {
    const { harness, taskId, load } = await compactingTask({ output_tokens: 10_000 });
    const after = await load();
    // The scripted model reports 100 tokens in and 10 out a call: two calls.
    expect(readUsage(after.task)).toMatchObject({
      model_calls: 2,
      input_tokens: 200,
      output_tokens: 20,
    });
    expect(after.budgetAvailable).toEqual({ output_tokens: 10_000 - 20 });
    const compaction = await harness.store.getAudit<CompactionRecord>(taskId, 'compaction:1:0');
    expect(compaction?.call).toEqual({
      model: 'scripted',
      input_tokens: 100,
      cached_input_tokens: 0,
      output_tokens: 10,
      cost_usd: 0,
    });
  });
});

describe('the worst case of a call', () => {
  // What the estimate reads of a task: the last request's measured tokens and characters.
  const record = {
    loop: { lastInputTokens: 1_000, lastRequestChars: 4_000 },
  } as unknown as TaskRecord;

  it('is the prompt as estimated, every output token allowed, one call and their price', () => {
    const config = { maxOutputTokens: 500, prices: { m: { input: 2, output: 8 } } };
    expect(worstCaseOf(record, 8_000, 'm', config)).toEqual({
      model_calls: 1,
      input_tokens: 2_000,
      output_tokens: 500,
      usd: (2_000 * 2 + 500 * 8) / 1_000_000,
    });
    expect(worstCaseOf(record, 8_000, undefined, config).usd).toBeUndefined();
    expect(worstCaseOf(record, 8_000, 'unpriced', config).usd).toBeUndefined();
  });

  it('passes a limit only when spent plus the worst case is over it', () => {
    const next = { model_calls: 1 as const, input_tokens: 100, output_tokens: 50, usd: undefined };
    const spent = { ...EMPTY_USAGE, model_calls: 2, output_tokens: 50 };
    expect(overrunsOf({ model_calls: 3, output_tokens: 100 }, spent, next)).toEqual([]);
    expect(overrunsOf({ model_calls: 2, output_tokens: 99, usd: 1 }, spent, next)).toEqual([
      { limit: 'output_tokens', spent: 50, needed: 50, budget: 99 },
      { limit: 'model_calls', spent: 2, needed: 1, budget: 2 },
    ]);
    expect(overrunsOf(undefined, spent, next)).toEqual([]);
    expect(
      budgetStopText([{ limit: 'input_tokens', spent: 1_500, needed: 2_000, budget: 3_000 }])
    ).toContain('input tokens: spent 1,500 of 3,000; the next call may need up to 2,000');
  });
});
