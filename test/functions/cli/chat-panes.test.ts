import { Role, type Task, TaskState } from '@a2a-js/sdk';
import { createColors } from 'picocolors';
import { describe, expect, it } from 'vitest';
import { paneLines, statusLines, withRowsNotBehind } from '../../../functions/cli/chat/panes.js';
import { taskView } from '../../../functions/cli/task-view.js';
import { STATUS_METADATA_KEY, TASK_METADATA_KEY } from '../../../functions/core/a2a/identifiers.js';
import { textMessageFrom } from '../../../functions/core/loop/messages.js';

const plain = createColors(false);

/** A task's view in `state` (with `subState` and status text), with sub-task rows. */
const viewOf = (
  state: TaskState,
  options: {
    subState?: string;
    text?: string;
    rows?: Array<{ task_id: string; state: string }>;
  } = {}
) => {
  const task: Task = {
    id: 't-1',
    contextId: 'c-1',
    status: {
      state,
      message:
        options.text === undefined
          ? undefined
          : textMessageFrom(Role.ROLE_AGENT, { messageId: 'm', text: options.text }),
      timestamp: '',
    },
    artifacts: [],
    history: [],
    metadata: {
      ...(options.subState === undefined
        ? {}
        : { [STATUS_METADATA_KEY]: { sub_state: options.subState } }),
      [TASK_METADATA_KEY]: {
        name: 'Trip',
        goal: 'Plan a trip',
        acceptance_criteria: [],
        participants: [{ id: 'alice', kind: 'human', role: 'reporter' }],
        sub_tasks: options.rows ?? [],
        plan: null,
      },
    },
  };
  return taskView(task);
};

describe("the chat's status lines", () => {
  it('print a question with numbered options, which a number then picks', () => {
    const asking = viewOf(TaskState.TASK_STATE_INPUT_REQUIRED, {
      subState: 'awaiting-answer',
      text: 'Which city?\nOptions: Lisbon, Porto',
    });
    expect(statusLines(asking, undefined, plain)).toEqual({
      lines: [
        'agent asks › Which city?',
        '  1) Lisbon',
        '  2) Porto',
        '  (answer with a number or in your own words)',
      ],
      answers: ['Lisbon', 'Porto'],
    });
  });

  it('say what the agent is doing while it works, and leave the answers as they were', () => {
    const working = viewOf(TaskState.TASK_STATE_WORKING, { text: 'reading sources' });
    expect(statusLines(working, undefined, plain)).toEqual({
      lines: ['… reading sources'],
      note: 'reading sources',
    });
  });

  it('print nothing when neither the state nor the text moved', () => {
    const parked = viewOf(TaskState.TASK_STATE_INPUT_REQUIRED, { text: 'Hello.' });
    expect(statusLines(parked, parked, plain)).toEqual({ lines: [] });
  });

  it("print the agent's reply, and a task's end, and drop the answers of a question gone", () => {
    const replied = viewOf(TaskState.TASK_STATE_INPUT_REQUIRED, { text: 'Hello.' });
    expect(statusLines(replied, undefined, plain)).toEqual({
      lines: ['agent › Hello.'],
      answers: [],
    });
    const ended = viewOf(TaskState.TASK_STATE_COMPLETED, { text: 'Booked.' });
    expect(statusLines(ended, replied, plain).lines).toEqual(['task completed: Booked.']);
  });
});

describe("the chat's panes", () => {
  it('print the Task pane once, then one line per sub-task row that moved', () => {
    const first = viewOf(TaskState.TASK_STATE_WORKING, {
      rows: [{ task_id: 'child-1', state: 'TASK_STATE_WORKING' }],
    });
    const shown = paneLines(undefined, first, { task: '', plan: '' }, plain);
    expect(shown.lines).toHaveLength(1);
    expect(shown.lines[0]).toContain('Plan a trip');

    const moved = viewOf(TaskState.TASK_STATE_WORKING, {
      rows: [{ task_id: 'child-1', state: 'TASK_STATE_COMPLETED' }],
    });
    const next = paneLines(first, moved, shown.printed, plain);
    expect(next.lines).toHaveLength(1);
    expect(next.lines[0]).toMatch(/^sub-task .*child-1.* is now completed/);
    expect(paneLines(moved, moved, next.printed, plain).lines).toEqual([]);
  });

  it('print the Task pane again for a new budget, not for a change of spend alone', () => {
    const spent = (calls: number, budget: number) => ({
      ...viewOf(TaskState.TASK_STATE_INPUT_REQUIRED),
      budget: { model_calls: budget },
      usage: {
        model_calls: calls,
        input_tokens: 100 * calls,
        cached_input_tokens: 0,
        output_tokens: 10 * calls,
        cost_usd: 0,
        tree: null,
      },
    });
    const shown = paneLines(undefined, spent(0, 1), { task: '', plan: '' }, plain);
    expect(shown.lines[0]).toContain('model calls 0 of 1 spent');
    const turn = paneLines(spent(0, 1), spent(1, 1), shown.printed, plain);
    expect(turn.lines).toEqual([]);
    const raised = paneLines(spent(1, 1), spent(1, 2), turn.printed, plain);
    expect(raised.lines).toHaveLength(1);
    expect(raised.lines[0]).toContain('model calls 1 of 2 spent');
  });

  it('never shows a row back in submitted once it was seen past it', () => {
    const seen = viewOf(TaskState.TASK_STATE_WORKING, {
      rows: [{ task_id: 'child-1', state: 'TASK_STATE_WORKING' }],
    });
    const older = viewOf(TaskState.TASK_STATE_WORKING, {
      rows: [{ task_id: 'child-1', state: 'TASK_STATE_SUBMITTED' }],
    });
    expect(withRowsNotBehind(seen, older).sub_tasks[0]?.state).toBe('TASK_STATE_WORKING');
  });
});
