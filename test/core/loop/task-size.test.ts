import { TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { STATUS_METADATA_KEY, TASK_METADATA_KEY } from '../../../functions/core/a2a/identifiers.js';
import { recordChildChange } from '../../../functions/core/intake/child-changed.js';
import { MAX_TOOL_ARGUMENT_BYTES_PER_RESPONSE } from '../../../functions/core/loop/invoke-model.js';
import { readExtension, withExtension } from '../../../functions/core/task/a2a-task.js';
import { MAX_EXTENSION_BYTES } from '../../../functions/core/task/extension.schema.js';
import { StaticToolRunner } from '../../../functions/core/testing/static-tool-runner.js';
import { zodArguments } from '../../../functions/core/tools/registry.js';
import { tooLargeFor } from '../../../functions/core/tools/task-room.js';
import { jsonBytes } from '../../../functions/core/utf8-bytes.js';
import {
  ALICE,
  endedRows,
  harnessWith,
  remoteChildChange,
  STATES,
  view,
} from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';

/** A plan of `steps` steps whose descriptions are `size` characters each. */
const bigPlan = (steps: number, size: number) => ({
  steps: Array.from({ length: steps }, (_, n) => ({
    name: `Step ${n + 1}`,
    description: 'd'.repeat(size),
  })),
});

const toolResults = async (harness: ReturnType<typeof harnessWith>['harness'], taskId: string) =>
  (await harness.store.readHistory(taskId)).flatMap((entry) =>
    entry.kind === 'tool_result' ? [entry.output] : []
  );

/** A context large enough that nothing here is compacted (a summary would be one more call). */
const ROOMY = { config: { turnBudgetTokens: 1_000_000, contextWindowTokens: 1_000_000 } };

/**
 * A parent with a child on the remote agent `remote` and, beside its row, an ended row whose
 * reason takes the task to a few hundred bytes short of what a task holds.
 */
const nearlyFullParent = async () => {
  const { harness } = harnessWith(
    [
      {
        toolCalls: [
          { name: 'spawn_subtask', arguments: { name: 'Child', goal: 'g', agent: 'remote' } },
        ],
      },
      { text: 'Waiting.' },
    ],
    { remoteAgents: [{ id: 'remote', description: 'r' }] }
  );
  const parent = await harness.start(textMessage('go'), ALICE);
  const base = await harness.task(parent.task.id);
  const extension = readExtension(base.task);
  const child = extension.sub_tasks[0];
  if (child === undefined) throw new Error('no child row');
  const filler = endedRows(1, 'filler').map((row) => ({
    ...row,
    reason: 'x'.repeat(MAX_EXTENSION_BYTES - jsonBytes(extension) - 400),
  }));
  await harness.store.commit({
    kind: 'update',
    base,
    record: {
      ...base,
      task: withExtension(base.task, { ...extension, sub_tasks: [...filler, child] }),
    },
  });
  return { harness, parent, child };
};

describe('no size is a cliff: what one task holds', () => {
  it('refuses a command that would take the task past what it holds as a tool error, changes nothing, and the task goes on', async () => {
    const output = 'o'.repeat(90 * 1024);
    const complete = (step: string) => ({
      toolCalls: [{ name: 'complete_step', arguments: { step, output } }],
    });
    const { harness } = harnessWith(
      [
        { toolCalls: [{ name: 'create_plan', arguments: bigPlan(3, 100) }] },
        complete('Step 1'),
        complete('Step 2'),
        complete('Step 3'),
        { text: 'I will keep the outputs short.' },
      ],
      ROOMY
    );
    const task = await harness.start(textMessage('plan big'), ALICE);

    expect(view(task).state).toBe(STATES.INPUT_REQUIRED);
    const steps = view(task).extension.plan?.steps ?? [];
    expect(steps.map((step) => step.state)).toEqual(['done', 'done', 'pending']);
    expect(steps[2]?.output).toBeNull();
    const results = await toolResults(harness, task.task.id);
    expect(results).toHaveLength(4);
    expect(results[3]).toMatch(
      /^\[tool\.refused\] this would take the task to about 2\d\d KB, past the most one task holds \(200 KB; it holds 1\d\d KB now\), so nothing was changed: give a shorter output/
    );
  });

  it("logs a status update without the task extension, so a turn's events do not grow with the plan", async () => {
    const { harness } = harnessWith([
      { toolCalls: [{ name: 'create_plan', arguments: bigPlan(50, 200) }] },
      { text: 'Planned.' },
      { text: 'Still here.' },
    ]);
    const task = await harness.start(textMessage('plan'), ALICE);
    const before = (await harness.events.read(task.task.id)).length;
    await harness.send(task.task.id, textMessage('and now?'), ALICE);

    const turn = (await harness.events.read(task.task.id)).slice(before);
    const updates = turn.flatMap(({ event }) =>
      event.kind === 'status_update' ? [event.statusUpdate] : []
    );
    expect(updates.map((update) => update.status?.state)).toEqual([
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_INPUT_REQUIRED,
    ]);
    for (const update of updates) {
      expect(Object.keys(update.metadata ?? {})).not.toContain(TASK_METADATA_KEY);
    }
    // What a follower reads of a status update is still there: the sub-state.
    expect(updates.at(-1)?.metadata?.[STATUS_METADATA_KEY]).toEqual({
      sub_state: 'awaiting-next-message',
    });
    expect(JSON.stringify(turn).length).toBeLessThan(8_000);
  });

  it('measures what a command adds: a plan by how much it grows, a step output, a question and a row by what they add', async () => {
    const { harness } = harnessWith([{ text: 'Hello.' }]);
    const { extension } = view(await harness.start(textMessage('hi'), ALICE));
    const room = MAX_EXTENSION_BYTES - jsonBytes(extension);
    const plan = { steps: [], revision: 1, revisions: [] };
    const refused = { ok: false, code: 'tool.refused' };

    expect(tooLargeFor({ kind: 'attach_plan', plan }, extension)).toBeUndefined();
    const output = (bytes: number) => ({
      kind: 'complete_step' as const,
      stepId: 'a',
      output: 'x'.repeat(bytes),
    });
    // A string's JSON is its bytes and two quotes.
    expect(tooLargeFor(output(room - 2), extension)).toBeUndefined();
    expect(tooLargeFor(output(room - 1), extension)).toMatchObject(refused);
    const question = 'q'.repeat(room);
    expect(
      tooLargeFor({ kind: 'wait_for_reply', participantId: 'p', question, options: [] }, extension)
    ).toMatchObject(refused);
    expect(
      tooLargeFor({ kind: 'set_role', participantId: 'p', role: 'watcher' }, extension)
    ).toBeUndefined();
    expect(jsonBytes('é')).toBe(4);
  });

  it('does not make the calls past the arguments one response may carry, and tells the model which', async () => {
    const runner = new StaticToolRunner([
      {
        name: 'write_down',
        description: 'Writes a text down',
        input: zodArguments(z.object({ text: z.string() })),
        idempotent: true,
        approval: null,
        run: () => ({ output: 'written', isError: false }),
      },
    ]);
    // Three calls of 40 KB each: the third passes 96 KB.
    const text = 'w'.repeat(40 * 1024);
    const { harness } = harnessWith(
      [
        {
          toolCalls: [1, 2, 3].map((n) => ({
            id: `c${n}`,
            name: 'write_down',
            arguments: { text },
          })),
        },
        { text: 'Two written; I will send the third again, smaller.' },
      ],
      { runner, ...ROOMY }
    );
    const task = await harness.start(textMessage('write it all'), ALICE);

    expect(MAX_TOOL_ARGUMENT_BYTES_PER_RESPONSE).toBe(96 * 1024);
    expect(runner.calls).toHaveLength(2);
    expect(view(task).state).toBe(STATES.INPUT_REQUIRED);
    const note = (await harness.store.readHistory(task.task.id)).find(
      (entry) => entry.kind === 'harness_note'
    );
    expect(note?.kind === 'harness_note' && note.text).toContain(
      'asked for 3 tool calls; the calls of one response carry at most 96 KB of arguments, so these were not made: write_down (c3). Ask for those still needed in your next response, with smaller arguments.'
    );
  });

  it("leaves a failed child's reason off its row when the row would take the task past what it holds, and still tells the model", async () => {
    const { harness, parent, child } = await nearlyFullParent();
    const reason = 'it broke: '.padEnd(480, '!');

    await recordChildChange(
      harness.deps,
      remoteChildChange(parent.task.id, { state: TaskState.TASK_STATE_FAILED, summary: reason })
    );

    const after = await harness.task(parent.task.id);
    const row = readExtension(after.task).sub_tasks.find((each) => each.task_id === child.task_id);
    expect(row?.state).toBe('TASK_STATE_FAILED');
    expect(row?.reason).toBeUndefined();
    expect(jsonBytes(readExtension(after.task))).toBeLessThanOrEqual(MAX_EXTENSION_BYTES);
    const notes = (await harness.store.readInbox(parent.task.id)).flatMap((item) =>
      item.kind === 'note' ? [item.text] : []
    );
    expect(notes.join('\n')).toContain(reason);
  });

  it("leaves a report's unknown ids off a row that would not fit otherwise, keeping its total", async () => {
    const { harness, parent, child } = await nearlyFullParent();
    const usage = {
      model_calls: 2,
      input_tokens: 20,
      cached_input_tokens: 0,
      output_tokens: 2,
      cost_usd: 0,
    };
    const unknown = Array.from({ length: 20 }, (_, n) => `a-rather-long-remote-task-id-${n}`);

    await recordChildChange(
      harness.deps,
      remoteChildChange(parent.task.id, {
        state: TaskState.TASK_STATE_WORKING,
        summary: '',
        usage: { usage, unknown },
      })
    );

    const after = await harness.task(parent.task.id);
    const row = readExtension(after.task).sub_tasks.find((each) => each.task_id === child.task_id);
    expect(row?.usage).toEqual({ usage, unknown: [] });
    expect(jsonBytes(readExtension(after.task))).toBeLessThanOrEqual(MAX_EXTENSION_BYTES);
  });
});
