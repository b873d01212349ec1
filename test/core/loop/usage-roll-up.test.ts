import { TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { childChangeFromRecords } from '../../../functions/core/intake/child-change-from-records.js';
import { recordChildChange } from '../../../functions/core/intake/child-changed.js';
import { readUsage, withCall } from '../../../functions/core/loop/usage.js';
import { MAX_UNKNOWN_IDS, reportedTreeOf } from '../../../functions/core/loop/usage-roll-up.js';
import { readExtension, withExtension } from '../../../functions/core/task/a2a-task.js';
import { usageTree } from '../../../functions/service/usage-tree.js';
import { ALICE, harnessWith, remoteChildChange, view } from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';

const spawn = (args: Record<string, unknown>) => ({
  toolCalls: [{ name: 'spawn_subtask', arguments: args }],
});

/** The scripted model's calls each use 100 tokens in and 10 out. */
const calls = (n: number) => ({
  model_calls: n,
  input_tokens: 100 * n,
  cached_input_tokens: 0,
  output_tokens: 10 * n,
  cost_usd: 0,
});

describe('the usage tree, rolled up from the news that reaches each parent', () => {
  it("sums a three-level tree from the top task's record alone: each child reports its whole tree", async () => {
    const { harness } = harnessWith([
      spawn({ name: 'Child', goal: 'g' }),
      { text: 'Waiting for the child.' },
      spawn({ name: 'Grandchild', goal: 'g' }),
      { text: 'Waiting for the grandchild.' },
      { text: 'Grandchild done.' },
      { text: 'Child done.' },
      { text: 'Parent done.' },
    ]);
    const parent = await harness.start(textMessage('go'), ALICE);
    const top = await harness.task(parent.task.id);
    const childId = view(top).extension.sub_tasks[0]?.task_id ?? '';
    const child = await harness.task(childId);
    const grandchildId = view(child).extension.sub_tasks[0]?.task_id ?? '';
    expect(grandchildId).not.toBe('');

    // The child's three calls and its grandchild's one, on the child's row and summed in the
    // loop state; the grandchild reported its one call.
    expect(view(top).extension.sub_tasks[0]?.usage).toEqual({ usage: calls(4), unknown: [] });
    expect(top.loop.childrenUsage).toEqual({ usage: calls(4), unknown: [] });
    expect(view(child).extension.sub_tasks[0]?.usage).toEqual({ usage: calls(1), unknown: [] });

    const gets: string[] = [];
    const store = Object.create(harness.store) as typeof harness.store;
    store.get = (taskId: string) => {
      gets.push(taskId);
      return harness.store.get(taskId);
    };
    const tree = await usageTree(store, top);
    expect(gets).toEqual([]);
    expect(tree.total).toEqual(calls(7));
    expect(reportedTreeOf(top)).toEqual({ usage: calls(7), unknown: [] });
  });

  it("tells the parent of a descendant's report at once, and of the child's own calls only at its next change", async () => {
    const { harness } = harnessWith([
      spawn({ name: 'Child', goal: 'g' }),
      { text: 'Waiting.' },
      { text: 'Child done.' },
      { text: 'Parent done.' },
    ]);
    const parent = await harness.start(textMessage('go'), ALICE);
    const childId = view(await harness.task(parent.task.id)).extension.sub_tasks[0]?.task_id ?? '';
    const before = await harness.task(childId);
    const usage = { inputTokens: 50, cachedInputTokens: 0, outputTokens: 5 };

    const ownCall = {
      ...before,
      task: withCall(before.task, usage, 0),
      version: before.version + 1,
    };
    expect(childChangeFromRecords(before, ownCall, 'tiny-harness')).toBeUndefined();

    const extension = readExtension(ownCall.task);
    const row = { task_id: 'grandchild-1', agent: null, state: 'TASK_STATE_WORKING' as const };
    const grandchildReport = { usage: calls(2), unknown: ['far-away'] };
    const reported = {
      ...ownCall,
      task: withExtension(ownCall.task, {
        ...extension,
        sub_tasks: [{ ...row, sub_state: null, criteria: null, usage: grandchildReport }],
      }),
      loop: { ...ownCall.loop, childrenUsage: grandchildReport },
    };
    const change = childChangeFromRecords(ownCall, reported, 'tiny-harness');
    const childOwn = readUsage(before.task);
    expect(change?.usage).toEqual({
      usage: {
        ...calls(2),
        model_calls: 2 + childOwn.model_calls + 1,
        input_tokens: 200 + childOwn.input_tokens + 50,
        output_tokens: 20 + childOwn.output_tokens + 5,
      },
      unknown: ['far-away'],
    });
  });

  it('takes a report that changes nothing else as a commit without a Task event or a wake, and the same report again as nothing', async () => {
    const { harness } = harnessWith(
      [spawn({ name: 'L', goal: 'g', agent: 'remote' }), { text: 'Waiting.' }],
      { remoteAgents: [{ id: 'remote', description: 'r' }] }
    );
    const parent = await harness.start(textMessage('go'), ALICE);
    const base = remoteChildChange(parent.task.id, {
      state: TaskState.TASK_STATE_WORKING,
      summary: '',
    });
    await recordChildChange(harness.deps, { ...base, changeKey: 'r1', order: 1, usage: null });
    const events = (await harness.events.read(parent.task.id)).length;
    const quiet = await recordChildChange(harness.deps, {
      ...base,
      changeKey: 'r2',
      order: 2,
      usage: { usage: calls(3), unknown: [] },
    });
    const again = await recordChildChange(harness.deps, {
      ...base,
      changeKey: 'r3',
      order: 3,
      usage: { usage: calls(3), unknown: [] },
    });

    expect(quiet).toEqual({ action: 'none' });
    expect(again).toEqual({ action: 'none' });
    expect((await harness.events.read(parent.task.id)).length).toBe(events);
    const record = await harness.task(parent.task.id);
    expect(view(record).extension.sub_tasks[0]?.usage).toEqual({ usage: calls(3), unknown: [] });
    expect(record.loop.childrenUsage).toEqual({ usage: calls(3), unknown: [] });
    expect(record.loop.childOrder['remote-task-1']).toBe(2);
    expect((await usageTree(harness.store, record)).unknown).toEqual([]);
  });

  it('counts a remote child whose agent reports nothing as unknown, from the record', async () => {
    const { harness } = harnessWith(
      [spawn({ name: 'L', goal: 'g', agent: 'remote' }), { text: 'Waiting.' }],
      { remoteAgents: [{ id: 'remote', description: 'r' }] }
    );
    const parent = await harness.start(textMessage('go'), ALICE);
    await recordChildChange(
      harness.deps,
      remoteChildChange(parent.task.id, {
        state: TaskState.TASK_STATE_WORKING,
        summary: '',
        usage: null,
      })
    );
    const record = await harness.task(parent.task.id);

    expect(reportedTreeOf(record).unknown).toEqual(['remote-task-1']);
    const tree = await usageTree(harness.store, record, async () => {
      throw new Error('a reported child is not asked for again');
    });
    expect(tree.unknown).toEqual(['remote-task-1']);
  });

  it('names at most MAX_UNKNOWN_IDS unknown tasks, on a row and in the sum', async () => {
    const { harness } = harnessWith(
      [spawn({ name: 'L', goal: 'g', agent: 'remote' }), { text: 'Waiting.' }],
      { remoteAgents: [{ id: 'remote', description: 'r' }] }
    );
    const parent = await harness.start(textMessage('go'), ALICE);
    const many = Array.from({ length: MAX_UNKNOWN_IDS + 30 }, (_, n) => `far-${n}`);
    await recordChildChange(
      harness.deps,
      remoteChildChange(parent.task.id, {
        state: TaskState.TASK_STATE_WORKING,
        summary: '',
        usage: { usage: calls(1), unknown: many },
      })
    );
    const record = await harness.task(parent.task.id);

    expect(view(record).extension.sub_tasks[0]?.usage?.unknown).toEqual(
      many.slice(0, MAX_UNKNOWN_IDS)
    );
    expect(record.loop.childrenUsage.unknown).toEqual(many.slice(0, MAX_UNKNOWN_IDS));
  });
});
