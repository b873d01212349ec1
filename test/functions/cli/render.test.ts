import { type Task, TaskState } from '@a2a-js/sdk';
import { createColors } from 'picocolors';
import { describe, expect, it } from 'vitest';
import { changeLine, renderTask, renderTimeline } from '../../../functions/cli/render.js';
import { taskView } from '../../../functions/cli/task-view.js';
import {
  STATUS_METADATA_KEY,
  TASK_METADATA_KEY,
  USAGE_METADATA_KEY,
} from '../../../functions/core/a2a/identifiers.js';
import type { Timeline } from '../../../functions/core/audit/timeline.schema.js';

const plain = createColors(false);

const task: Task = {
  id: 't-1',
  contextId: 'c-1',
  status: { state: TaskState.TASK_STATE_INPUT_REQUIRED, message: undefined, timestamp: '' },
  artifacts: [],
  history: [],
  metadata: {
    [STATUS_METADATA_KEY]: { sub_state: 'awaiting-review' },
    [TASK_METADATA_KEY]: {
      name: 'Release notes',
      goal: 'Write them',
      acceptance_criteria: [
        {
          id: 'c1',
          text: 'Lists every breaking change',
          met: true,
          evidence: { text: 'the config moved' },
          met_by: 'tiny-harness',
          met_at: '2026-01-01T00:00:00.000Z',
        },
        {
          id: 'c2',
          text: 'Has an upgrade guide',
          rejection: { by: 'alice', reason: 'it stops at step 2', at: '2026-01-01T00:00:01.000Z' },
        },
      ],
      participants: [{ id: 'alice', kind: 'human', role: 'reporter' }],
      sub_tasks: [
        { task_id: 'child-1', state: 'TASK_STATE_WORKING', criteria: { met: 1, total: 2 } },
        { task_id: 'child-2', state: 'TASK_STATE_COMPLETED', criteria: { met: 0, total: 0 } },
      ],
    },
  },
};

describe('the terminal renderer and acceptance criteria', () => {
  it('shows each criterion with its id, the evidence or the rejection, and each row its count', () => {
    expect(renderTask(taskView(task), plain).split('\n')).toEqual([
      'Task · Release notes  input-required (awaiting-review)',
      '  id t-1',
      '  goal  Write them',
      '  acceptance criteria  1/2 met',
      '    [x] c1 Lists every breaking change',
      '        ✓ tiny-harness: the config moved',
      '    [ ] c2 Has an upgrade guide',
      '        ✗ rejected by alice: it stops at step 2',
      '  participants  alice (reporter)',
      '  sub-tasks',
      '    ◐ child-1  working  criteria 1/2',
      '    ● child-2  completed',
    ]);
  });

  it('shows what the task has spent of each limit of its budget, and no line without one', () => {
    const budgeted: Task = {
      ...task,
      metadata: {
        ...task.metadata,
        [TASK_METADATA_KEY]: {
          ...(task.metadata?.[TASK_METADATA_KEY] as object),
          budget: { usd: 5, model_calls: 40 },
        },
        [USAGE_METADATA_KEY]: {
          model_calls: 3,
          input_tokens: 1_200,
          cached_input_tokens: 0,
          output_tokens: 90,
          cost_usd: 0.0123,
        },
      },
    };
    expect(renderTask(taskView(budgeted), plain).split('\n')).toContain(
      '  budget  $0.0123 of $5.00 · model calls 3 of 40 spent'
    );
    expect(renderTask(taskView(task), plain)).not.toContain('budget');
  });

  it('counts the criteria on the one line per change', () => {
    expect(changeLine(taskView(task), new Date('2026-01-01T08:21:04Z'))).toBe(
      '08:21:04 · input-required (awaiting-review) · criteria 1/2 met · sub-tasks child-1 working (criteria 1/2), child-2 completed'
    );
  });
});

describe('the terminal renderer of a timeline', () => {
  const timeline = (traceId: string | null): Timeline => ({
    task_id: 't-1',
    trace_id: traceId,
    tasks: [
      {
        task_id: 't-1',
        depth: 0,
        parent_id: null,
        name: 'Release notes',
        state: 'TASK_STATE_COMPLETED',
        agent: null,
        generations: 1,
      },
    ],
    entries: [],
    gaps: [],
  });

  it('names the trace under the heading when the deployment traces, and says nothing of one otherwise', () => {
    const traced = 'a3f1c0de'.repeat(4);
    expect(renderTimeline(timeline(traced), plain).split('\n')).toEqual([
      'Timeline · t-1 · 0 entries · 1 task(s)',
      `trace ${traced}`,
    ]);
    expect(renderTimeline(timeline(null), plain).split('\n')).toEqual([
      'Timeline · t-1 · 0 entries · 1 task(s)',
    ]);
  });
});
