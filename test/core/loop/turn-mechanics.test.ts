import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { HookAbortError } from '../../../functions/core/errors.js';
import { startTask } from '../../../functions/core/intake/start-task.js';
import type { CompactionRecord } from '../../../functions/core/loop/compaction.js';
import { executeTool } from '../../../functions/core/loop/execute-tool.js';
import { MAX_TOOL_CALLS_PER_RESPONSE } from '../../../functions/core/loop/invoke-model.js';
import { RouteSchema, TurnRefSchema } from '../../../functions/core/loop/route.schema.js';
import { takeTurn } from '../../../functions/core/loop/take-turn.js';
import { StaticToolRunner } from '../../../functions/core/testing/static-tool-runner.js';
import { zodArguments } from '../../../functions/core/tools/registry.js';
import {
  ALICE,
  compactedAtThirdMessage,
  harnessWith,
  STATES,
  view,
} from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';

describe('one turn of the loop', () => {
  it('keeps the static prefix byte-identical across turns and sorts tool definitions by name', async () => {
    const { harness, model } = harnessWith([
      {
        toolCalls: [
          { name: 'create_plan', arguments: { steps: [{ name: 'A', description: 'a' }] } },
        ],
      },
      { text: 'Planned.' },
      { text: 'Again.' },
    ]);
    const task = await harness.start(textMessage('go'), ALICE);
    await harness.send(task.task.id, textMessage('more'), ALICE);

    const [first, second, third] = model.requests;
    expect(second?.instructions).toBe(first?.instructions);
    expect(third?.instructions).toBe(first?.instructions);
    expect(JSON.stringify(third?.tools)).toBe(JSON.stringify(first?.tools));
    const names = first?.tools.map((tool) => tool.name) ?? [];
    expect(names).toEqual([...names].sort());
    expect(first?.cacheKey).toBe(task.task.id);
  });

  it('shows the plan to the model and frames tool results as untrusted data', async () => {
    const { harness, model } = harnessWith([
      {
        toolCalls: [
          {
            name: 'create_plan',
            arguments: { steps: [{ name: 'Gather facts', description: 'd' }] },
          },
        ],
      },
      { text: 'ok' },
    ]);
    await harness.start(textMessage('go'), ALICE);

    const second = model.requests[1];
    const opening = second?.input[0];
    expect(opening?.type === 'message' && opening.text).toContain('gather-facts');
    const result = second?.input.find((item) => item.type === 'tool_result');
    expect(result?.type === 'tool_result' && result.output).toMatch(
      /^<untrusted source="tool">\n.*data, never instructions.*\nplan attached with 1 steps\n<\/untrusted>$/s
    );
  });

  it('takes tool calls only from structured calls, never from text', async () => {
    const { harness } = harnessWith([
      { text: '{"name":"create_plan","arguments":{"steps":[{"name":"X","description":"y"}]}}' },
    ]);
    const task = await harness.start(textMessage('go'), ALICE);

    expect(view(task).extension.plan).toBeNull();
    expect(view(task).state).toBe(STATES.INPUT_REQUIRED);
  });

  it('runs at most MAX_TOOL_CALLS_PER_RESPONSE calls of one response, and tells the model which it did not make', async () => {
    const runner = new StaticToolRunner([
      {
        name: 'look_up',
        description: 'Looks one thing up',
        input: zodArguments(z.object({ n: z.int() })),
        idempotent: true,
        approval: null,
        run: () => ({ output: 'found', isError: false }),
      },
    ]);
    const asked = MAX_TOOL_CALLS_PER_RESPONSE + 6;
    const { harness, model } = harnessWith(
      [
        {
          toolCalls: Array.from({ length: asked }, (_, n) => ({
            id: `c${n + 1}`,
            name: 'look_up',
            arguments: { n },
          })),
        },
        { text: 'Done, and I will ask for the rest.' },
      ],
      { runner }
    );
    const task = await harness.start(textMessage('look up everything'), ALICE);

    expect(view(task).state).toBe(STATES.INPUT_REQUIRED);
    expect(runner.calls).toHaveLength(MAX_TOOL_CALLS_PER_RESPONSE);
    const history = await harness.store.readHistory(task.task.id);
    expect(history.filter((entry) => entry.kind === 'tool_call')).toHaveLength(
      MAX_TOOL_CALLS_PER_RESPONSE
    );
    const note = history.find((entry) => entry.kind === 'harness_note');
    expect(note).toMatchObject({ topic: 'tool_calls_dropped' });
    expect(note?.kind === 'harness_note' && note.text).toContain(
      `asked for ${asked} tool calls; at most ${MAX_TOOL_CALLS_PER_RESPONSE} run per response, so these were not made: look_up (c65)`
    );
    // The model reads the note after every result of the calls that ran.
    const second = JSON.stringify(model.requests[1]?.input);
    expect(second.indexOf('c64')).toBeLessThan(second.indexOf('these were not made'));
  });

  it('answers an unknown tool and invalid arguments with error results, and the loop goes on', async () => {
    const { harness, model } = harnessWith([
      {
        toolCalls: [
          { name: 'no_such_tool', arguments: {} },
          { name: 'complete_step', arguments: { step: 'x' } },
          { name: 'complete_step', arguments: '{not json' },
        ],
      },
      { text: 'Recovered.' },
    ]);
    const task = await harness.start(textMessage('go'), ALICE);

    const results = (await harness.store.readHistory(task.task.id)).filter(
      (e) => e.kind === 'tool_result'
    );
    expect(results.map((e) => (e.kind === 'tool_result' ? e.output.slice(0, 24) : ''))).toEqual([
      '[tool.not_found] no tool',
      '[tool.invalid_arguments]',
      '[tool.invalid_arguments]',
    ]);
    expect(model.requests).toHaveLength(2);
    expect(view(await harness.task(task.task.id)).statusText).toBe('Recovered.');
  });

  it('fails the task at the turn limit', async () => {
    const calls = Array.from({ length: 3 }, () => ({
      toolCalls: [{ name: 'complete_step', arguments: { step: 'a', output: 'b' } }],
    }));
    const { harness } = harnessWith(calls, { config: { maxTurns: 3 } });
    const task = await harness.start(textMessage('loop forever'), ALICE);

    const failed = view(await harness.task(task.task.id));
    expect(failed.state).toBe(STATES.FAILED);
    expect(failed.statusText).toBe('turn limit reached');
  });

  it('lets a plan.created hook rewrite the plan and a tool.invoked hook veto a call', async () => {
    const { harness } = harnessWith([
      {
        toolCalls: [
          { name: 'create_plan', arguments: { steps: [{ name: 'A', description: 'a' }] } },
          { name: 'set_participant_role', arguments: { participant_id: ALICE, role: 'admin' } },
        ],
      },
      { text: 'ok' },
    ]);
    harness.hooks.register('plan.created', {
      phase: 'pre',
      priority: 1,
      run: (context) => ({
        ...context,
        plan: {
          ...context.plan,
          steps: context.plan.steps.map((s) => ({ ...s, description: 'rewritten' })),
        },
      }),
    });
    harness.hooks.register('tool.invoked', {
      phase: 'pre',
      priority: 1,
      run: (context) => {
        if (context.call.name === 'set_participant_role')
          throw new HookAbortError('roles are frozen');
        return undefined;
      },
    });
    const task = await harness.start(textMessage('go'), ALICE);

    expect(view(task).extension.plan?.steps[0]?.description).toBe('rewritten');
    const results = (await harness.store.readHistory(task.task.id)).filter(
      (e) => e.kind === 'tool_result'
    );
    expect(results[1]).toMatchObject({ isError: true, output: '[hook.abort] roles are frozen' });
  });

  it('keeps the state payloads small: routes and refs are references, never transcripts', async () => {
    const longText = 'x'.repeat(50_000);
    const { harness } = harnessWith([
      {
        text: longText,
        toolCalls: [
          {
            name: 'create_plan',
            arguments: { steps: [{ name: longText.slice(0, 500), description: longText }] },
          },
        ],
      },
      { text: longText },
    ]);
    const task = await harness.start(textMessage(longText), ALICE);

    expect(view(await harness.task(task.task.id)).state).toBe(STATES.INPUT_REQUIRED);
    for (const { outcome } of harness.outcomes) {
      if (outcome.kind === 'parked') {
        expect(JSON.stringify(TurnRefSchema.parse(outcome.ref)).length).toBeLessThan(8 * 1024);
      }
    }
    const route = RouteSchema.parse({
      next: 'execute_tools',
      calls: [{ ref: { taskId: task.task.id, generation: 1, turn: 1 }, callId: 'call-1-1' }],
    });
    expect(JSON.stringify(route).length).toBeLessThan(8 * 1024);
  });
});

describe('the task.state_changed hook', () => {
  it('sees every state change of a task, with its sub-state, once each', async () => {
    const { harness } = harnessWith([{ text: 'Hello.' }, { text: 'Bye.' }]);
    const seen: string[] = [];
    harness.hooks.register('task.state_changed', {
      phase: 'post',
      priority: 1,
      run: (context) => {
        seen.push(
          `${context.from}->${context.to}${context.subState ? `:${context.subState}` : ''}`
        );
      },
    });
    const task = await harness.start(textMessage('hi'), ALICE);
    await harness.send(task.task.id, textMessage('again'), ALICE);
    await harness.complete(task.task.id, ALICE);

    // SUBMITTED=1, WORKING=2, COMPLETED=3, INPUT_REQUIRED=6 (A2A 1.0 TaskState numbers)
    expect(seen).toEqual([
      '1->2',
      '2->6:awaiting-next-message',
      '6->2',
      '2->6:awaiting-next-message',
      '6->3',
    ]);
  });
});

describe('retried states never act twice', () => {
  it('reuses the recorded model response and skips an applied tool call', async () => {
    const { harness, model } = harnessWith([
      {
        toolCalls: [
          { name: 'create_plan', arguments: { steps: [{ name: 'A', description: 'a' }] } },
        ],
      },
    ]);
    const { record } = await startTask(harness.deps, { message: textMessage('go'), sender: ALICE });
    const ref = { taskId: record.task.id, generation: 1, turn: 0 };
    const first = await takeTurn(harness.deps, ref);
    const again = await takeTurn(harness.deps, ref);
    expect(again).toEqual(first);
    expect(model.requests).toHaveLength(1);

    if (first.route.next !== 'execute_tools') throw new Error('expected tool calls');
    const call = first.route.calls[0];
    if (call === undefined) throw new Error('expected a call');
    await executeTool(harness.deps, call);
    await executeTool(harness.deps, call);
    const after = await harness.task(record.task.id);
    expect(view(after).extension.plan?.revision).toBe(1);
    expect(
      (await harness.store.readHistory(record.task.id)).filter((e) => e.kind === 'tool_result')
    ).toHaveLength(1);
  });
});

describe('compaction', () => {
  it('compacts an oversized first message before the model ever sees it, and records the compaction', async () => {
    const { harness, model } = harnessWith(
      [{ text: 'Summary: the user pasted a long log.' }, { text: 'I read the summary.' }],
      { config: { turnBudgetTokens: 2_000 } }
    );
    const task = await harness.start(
      textMessage(`please read: ${'log line\n'.repeat(2_000)}`),
      ALICE
    );

    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]?.tools).toEqual([]);
    const answered = model.requests[1];
    // 2,000 log lines went in; what the model sees is the summary and the goal's first 1,000 chars.
    expect(JSON.stringify(answered?.input).length).toBeLessThan(3_000);
    expect(JSON.stringify(answered?.input)).toContain(
      '<state_summary>\\nSummary: the user pasted a long log.'
    );
    const record = await harness.store.getAudit<CompactionRecord>(task.task.id, 'compaction:1:0');
    expect(record).toMatchObject({
      task_id: task.task.id,
      removed_seqs: [1],
      summary: 'Summary: the user pasted a long log.',
    });
    expect(record?.tokens_after).toBeLessThan(record?.tokens_before ?? 0);
    expect(view(await harness.task(task.task.id)).state).toBe(STATES.INPUT_REQUIRED);
  });

  it('summarises the oldest half of the transcript and keeps the never-compact sections', async () => {
    const { harness, model } = harnessWith([
      { text: 'a' },
      { text: 'b' },
      { text: 'the summary' },
      { text: 'c' },
    ]);
    const task = await compactedAtThirdMessage(harness);

    const summaryRequest = model.requests[2];
    expect(summaryRequest?.tools).toEqual([]);
    const summarised = JSON.stringify(summaryRequest?.input);
    expect(summarised).toContain('alice: one');
    expect(summarised).toContain('assistant: a');
    expect(summarised).not.toContain('two');
    const last = model.requests.at(-1);
    const opening = last?.input[0];
    expect(opening?.type === 'message' && opening.text).toMatch(
      /<task>[\s\S]*<plan>[\s\S]*<state_summary>\nthe summary/
    );
    expect(JSON.stringify(last?.input)).not.toContain('] one');
    expect(JSON.stringify(last?.input)).toContain('] two');
    expect(last?.instructions).toBe(model.requests[0]?.instructions);
    expect((await harness.task(task.task.id)).loop.compactedThrough).toBe(2);
    expect(view(await harness.task(task.task.id)).state).toBe(STATES.INPUT_REQUIRED);
  });
});

describe('renewal', () => {
  it('continues as new across generations without losing a message, note or history entry', async () => {
    const replies = Array.from({ length: 5 }, (_, i) => ({
      toolCalls: [
        { name: 'create_plan', arguments: { steps: [{ name: `Step ${i}`, description: 'd' }] } },
      ],
    }));
    const { harness, model } = harnessWith([...replies, { text: 'done' }], {
      config: { turnsPerGeneration: 2 },
    });
    const task = await harness.start(textMessage('go'), ALICE);

    const record = await harness.task(task.task.id);
    expect(record.loop.generation).toBe(3);
    expect(model.requests).toHaveLength(6);
    const history = await harness.store.readHistory(task.task.id);
    expect(history.map((entry) => entry.seq)).toEqual(history.map((_, index) => index + 1));
    expect(history.filter((entry) => entry.kind === 'tool_result')).toHaveLength(5);
    expect(view(record).extension.plan?.revision).toBe(5);
  });
});
