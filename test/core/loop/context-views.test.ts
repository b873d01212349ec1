import { describe, expect, it } from 'vitest';
import { boundedLines } from '../../../functions/core/bounded-lines.js';
import { assembleContext, ROWS_VIEW_CHARS } from '../../../functions/core/loop/context.js';
import {
  buildPlan,
  PLAN_VIEW_CHARS,
  renderPlanForModel,
} from '../../../functions/core/plan/plan.js';
import { readExtension, withExtension } from '../../../functions/core/task/a2a-task.js';
import type { Plan, SubTaskRow } from '../../../functions/core/task/extension.schema.js';
import { ALICE, endedRows, harnessWith } from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';

/** A plan of `count` steps, each after the one before, the first `done` done with an output. */
const chainPlan = (count: number, done: number): Plan => {
  const plan = buildPlan(
    Array.from({ length: count }, (_, n) => ({
      name: `Step ${n + 1}`,
      description: 'd',
      depends_on: n === 0 ? [] : [`Step ${n}`],
    }))
  );
  return {
    ...plan,
    steps: plan.steps.map((step, index) =>
      index < done
        ? { ...step, state: 'done', output: `result ${index + 1} ${'o'.repeat(400)}` }
        : index === done
          ? { ...step, state: 'active' }
          : step
    ),
  };
};

/** The text of the model's opening message for a task with these rows and this plan. */
const openingOf = async (rows: SubTaskRow[], plan: Plan | null) => {
  const { harness } = harnessWith([{ text: 'Hello.' }]);
  const started = await harness.start(textMessage('hi'), ALICE);
  const record = await harness.task(started.task.id);
  const task = withExtension(record.task, { ...readExtension(record.task), sub_tasks: rows, plan });
  const { request } = assembleContext({
    record: { ...record, task },
    history: [],
    tools: harness.deps.tools,
    config: harness.deps.config,
  });
  const first = request.input[0];
  return first?.type === 'message' ? first.text : '';
};

const section = (text: string, name: string) =>
  text.slice(text.indexOf(`<${name}>`), text.indexOf(`</${name}>`) + name.length + 3);

describe('what the model reads of a large task: bounded views of the rows and the plan', () => {
  it('shows a small plan and a few rows whole, one line each, as always', async () => {
    const text = await openingOf(endedRows(3), chainPlan(3, 1));
    expect(section(text, 'task')).toContain(
      'sub-tasks:\n- child-0: TASK_STATE_COMPLETED\n- child-1: TASK_STATE_COMPLETED\n- child-2: TASK_STATE_COMPLETED'
    );
    expect(renderPlanForModel(chainPlan(3, 1)).split('\n')).toEqual([
      `- [x] step-1: Step 1 → result 1 ${'o'.repeat(400)}`,
      '- [>] step-2: Step 2 (after step-1)',
      '- [ ] step-3: Step 3 (after step-2)',
    ]);
  });

  it('shows a thousand rows as their counts, every open one and the latest ended, within the bound', async () => {
    const rows: SubTaskRow[] = [
      ...endedRows(990, 'done'),
      ...endedRows(4, 'broke').map((row) => ({ ...row, state: 'TASK_STATE_FAILED' as const })),
      ...endedRows(6, 'busy').map((row) => ({ ...row, state: 'TASK_STATE_WORKING' as const })),
    ];
    const task = section(await openingOf(rows, null), 'task');
    expect(task.length).toBeLessThan(ROWS_VIEW_CHARS + 1_000);
    expect(task).toContain(
      'sub-tasks (1000: 990 TASK_STATE_COMPLETED, 6 TASK_STATE_WORKING, 4 TASK_STATE_FAILED; the open ones first, then the latest ended):'
    );
    for (let n = 0; n < 6; n++) expect(task).toContain(`- busy-${n}: TASK_STATE_WORKING`);
    for (let n = 0; n < 4; n++) expect(task).toContain(`- broke-${n}: TASK_STATE_FAILED`);
    expect(task).toContain('- done-989: TASK_STATE_COMPLETED');
    expect(task).not.toContain('- done-0: TASK_STATE_COMPLETED');
    expect(task).toMatch(/- … \d+ sub-tasks not shown: \d+ TASK_STATE_COMPLETED\n/);
  });

  it('shows a plan of 400 steps by what matters now: the active and ready ones, the next pending, the latest done, outputs cut', () => {
    const text = renderPlanForModel(chainPlan(400, 150));
    expect(text.length).toBeLessThanOrEqual(PLAN_VIEW_CHARS);
    const lines = text.split('\n');
    expect(lines[0]).toBe(
      '(400 steps: 249 pending, 150 done, 1 active; the active, failed and ready steps first, then the next pending and the latest done)'
    );
    expect(text).toContain('- [>] step-151: Step 151 (after step-150)');
    expect(text).toContain('- [ ] step-152: Step 152 (after step-151)');
    expect(text).toContain('- [x] step-150: Step 150 (after step-149) → result 150 ');
    expect(text).toContain('- [ ] step-400: Step 400 (after step-399)');
    expect(text).not.toContain('o'.repeat(300));
    expect(text).not.toContain('step-1: ');
    expect(text).toMatch(/^- … 14\d steps not shown: 14\d done$/m);
  });

  it('keeps the shown items in their order, and counts each run of the others on one line', () => {
    const { lines, hidden } = boundedLines({
      items: ['a1', 'b2', 'c3', 'd4', 'e5'],
      line: (item) => `- ${item}`,
      rank: (item) => (item === 'b2' || item === 'e5' ? 0 : 1),
      budget: 24,
      gap: (run) => `(${run.length} more)`,
    });
    expect(lines).toEqual(['- a1', '- b2', '(2 more)', '- e5']);
    expect(hidden).toBe(2);
  });
});
