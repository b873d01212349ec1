// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Timeline } from '../../../web/src/generated/timeline.js';
import { Tabs } from '../../../web/src/panes/Tabs.js';
import { TracePane } from '../../../web/src/panes/TracePane.js';

afterEach(cleanup);

const TabsUnderTest = () => {
  const [selected, setSelected] = useState<'task' | 'plan' | 'trace'>('task');
  return (
    <Tabs<'task' | 'plan' | 'trace'>
      label="Task details"
      selected={selected}
      onSelect={setSelected}
      tabs={[
        { key: 'task', label: 'Task', panel: () => <p>the task</p> },
        { key: 'plan', label: 'Plan', panel: () => <p>the plan</p> },
        { key: 'trace', label: 'Trace', panel: () => <p>the trace</p> },
      ]}
    />
  );
};

describe('the tabs', () => {
  it('are one tab stop; arrow keys, Home and End move the selection and the focus', () => {
    render(<TabsUnderTest />);
    const tab = (name: string) => screen.getByRole('tab', { name });
    expect(['Task', 'Plan', 'Trace'].map((name) => tab(name).tabIndex)).toEqual([0, -1, -1]);
    tab('Task').focus();
    fireEvent.keyDown(tab('Task'), { key: 'ArrowRight' });
    expect(tab('Plan').getAttribute('aria-selected')).toBe('true');
    expect(document.activeElement).toBe(tab('Plan'));
    expect(screen.getByRole('tabpanel').textContent).toBe('the plan');
    expect(screen.getByRole('tabpanel').getAttribute('aria-labelledby')).toBe(tab('Plan').id);
    fireEvent.keyDown(tab('Plan'), { key: 'End' });
    expect(document.activeElement).toBe(tab('Trace'));
    fireEvent.keyDown(tab('Trace'), { key: 'ArrowRight' });
    expect(document.activeElement).toBe(tab('Task'));
    fireEvent.keyDown(tab('Task'), { key: 'ArrowLeft' });
    expect(document.activeElement).toBe(tab('Trace'));
    fireEvent.keyDown(tab('Trace'), { key: 'Home' });
    expect(tab('Task').getAttribute('aria-selected')).toBe('true');
    fireEvent.click(tab('Trace'));
    expect(screen.getByRole('tabpanel').textContent).toBe('the trace');
  });
});

const entry = (
  kind: Timeline['entries'][number]['kind'],
  summary: string,
  details: Record<string, unknown> = {},
  depth = 0
): Timeline['entries'][number] => ({
  at: '2026-12-03T10:00:01.250Z',
  task_id: depth === 0 ? 'task-1' : 'child-1',
  depth,
  kind,
  actor: kind === 'state_changed' ? { kind: 'participant', id: 'you' } : null,
  summary,
  details,
  source: { kind: 'record', ref: summary },
});

const TIMELINE: Timeline = {
  task_id: 'task-1',
  trace_id: null,
  tasks: [
    {
      task_id: 'task-1',
      parent_id: null,
      depth: 0,
      name: 'Report',
      state: 'TASK_STATE_WORKING',
      agent: null,
      generations: 1,
    },
    {
      task_id: 'child-1',
      parent_id: 'task-1',
      depth: 1,
      name: 'Research',
      state: 'TASK_STATE_COMPLETED',
      agent: null,
      generations: 1,
    },
  ],
  entries: [
    entry('state_changed', 'SUBMITTED → WORKING'),
    entry('model_call', 'gpt-x turn 1', {
      input_tokens: 1000,
      cached_input_tokens: 200,
      output_tokens: 50,
      cost_usd: 0.0012,
    }),
    entry('tool_call', 'create_plan(…) → plan attached'),
    entry(
      'model_call',
      'gpt-x turn 1 (child)',
      { input_tokens: 500, cached_input_tokens: 0, output_tokens: 20, cost_usd: 0.0004 },
      1
    ),
  ],
  gaps: ['the history of execution x-g1'],
};

describe('the Trace pane', () => {
  it('adds up the cost of the tree, lists the entries with their task, and names what is missing', () => {
    render(
      <TracePane
        timeline={TIMELINE}
        error={undefined}
        loading={false}
        audits
        onRefresh={() => undefined}
      />
    );
    const totals = Object.fromEntries(
      [...document.querySelectorAll('.totals div')].map((item) => [
        item.querySelector('dt')?.textContent,
        item.querySelector('dd')?.textContent,
      ])
    );
    expect(totals).toEqual({
      'model calls': '2',
      'tool calls': '1',
      'tokens in': '1,500 (200 cached)',
      'tokens out': '70',
      cost: '$0.001600',
    });
    expect(screen.getByRole('heading').textContent).toBe('Trace · 4 entries · 2 tasks');
    const child = document.querySelectorAll('li.entry')[3] as HTMLElement;
    expect(child.querySelector('.tag')?.textContent).toBe('Research');
    expect(child.querySelector('time')?.textContent).toBe('10:00:01.250');
    expect(document.querySelector('li.entry .actor')?.textContent).toBe('by you');
    expect(screen.getByText('missing: the history of execution x-g1')).toBeTruthy();
  });

  it('filters by kind', () => {
    render(
      <TracePane
        timeline={TIMELINE}
        error={undefined}
        loading={false}
        audits
        onRefresh={() => undefined}
      />
    );
    const kinds = () =>
      [...document.querySelectorAll('li.entry')].map((item) => item.getAttribute('data-kind'));
    expect(screen.getAllByRole('checkbox').map((box) => (box as HTMLInputElement).value)).toEqual([
      'state_changed',
      'model_call',
      'tool_call',
    ]);
    fireEvent.click(screen.getByRole('checkbox', { name: 'model call' }));
    expect(kinds()).toEqual(['state_changed', 'tool_call']);
    fireEvent.click(screen.getByRole('checkbox', { name: 'state changed' }));
    fireEvent.click(screen.getByRole('checkbox', { name: 'tool call' }));
    expect(kinds()).toEqual([]);
    expect(screen.getByText('No entry of the kinds shown.')).toBeTruthy();
    fireEvent.click(screen.getByRole('checkbox', { name: 'model call' }));
    expect(kinds()).toEqual(['model_call', 'model_call']);
  });

  it('reads again on demand, says when it cannot, and when the agent keeps no trace', () => {
    const onRefresh = vi.fn();
    render(
      <TracePane
        timeline={undefined}
        error="task not found"
        loading={false}
        audits
        onRefresh={onRefresh}
      />
    );
    fireEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    expect(onRefresh).toHaveBeenCalledOnce();
    expect(screen.getByRole('alert').textContent).toBe('task not found');
    cleanup();
    render(
      <TracePane
        timeline={undefined}
        error={undefined}
        loading={false}
        audits={false}
        onRefresh={onRefresh}
      />
    );
    expect(screen.getByText('This agent does not offer the audit extension.')).toBeTruthy();
  });
});
