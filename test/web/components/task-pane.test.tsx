// @vitest-environment happy-dom
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { TaskPane } from '../../../web/src/panes/TaskPane.js';
import { viewWith } from './fixtures.js';

afterEach(cleanup);

const ROWS = [
  ['TASK_STATE_SUBMITTED', null, '○', 'submitted', 'idle'],
  ['TASK_STATE_WORKING', null, '◐', 'working', 'active'],
  [
    'TASK_STATE_INPUT_REQUIRED',
    'awaiting-answer',
    '◔',
    'input-required (awaiting-answer)',
    'waiting',
  ],
  [
    'TASK_STATE_INPUT_REQUIRED',
    'awaiting-next-message',
    '◔',
    'input-required (awaiting-next-message)',
    'waiting',
  ],
  ['TASK_STATE_AUTH_REQUIRED', null, '◔', 'auth-required', 'waiting'],
  ['TASK_STATE_COMPLETED', null, '●', 'completed', 'done'],
  ['TASK_STATE_FAILED', null, '✗', 'failed', 'failed'],
  ['TASK_STATE_CANCELED', null, '✗', 'canceled', 'failed'],
  ['TASK_STATE_REJECTED', null, '✗', 'rejected', 'failed'],
] as const;

const criterion = (id: string, text: string, met: boolean) => ({
  id,
  text,
  met,
  met_by: met ? 'tiny-harness' : null,
  evidence: met ? 'three sources cited' : null,
  rejection: null,
});

describe('the Task pane', () => {
  for (const [state, subState, mark, label, tone] of ROWS) {
    it(`draws a sub-task row ${label}: mark ${mark}, its state in words, tone ${tone}`, () => {
      render(
        <TaskPane
          view={viewWith({
            sub_tasks: [
              { task_id: 'child-1', agent: null, state, sub_state: subState, criteria: null },
            ],
          })}
        />
      );
      const row = document.querySelector('li.row') as HTMLElement;
      expect(row.getAttribute('data-state')).toBe(state);
      expect(row.querySelector('.mark')?.textContent).toBe(mark);
      const badge = row.querySelector('.state') as HTMLElement;
      expect(badge.textContent).toBe(label);
      expect(badge.className).toBe(`state tone-${tone}`);
      const link = within(row).getByRole('link');
      expect([link.textContent, link.getAttribute('href')]).toEqual(['child-1', '#/tasks/child-1']);
    });
  }

  it("names a row by the child's name once it is read, keeping its id", () => {
    render(
      <TaskPane
        view={viewWith({
          sub_tasks: [
            {
              task_id: 'child-1',
              agent: null,
              state: 'TASK_STATE_INPUT_REQUIRED',
              sub_state: 'awaiting-next-message',
              criteria: null,
            },
          ],
        })}
        names={{ 'child-1': 'Find sources' }}
      />
    );
    const row = document.querySelector('li.row') as HTMLElement;
    expect(row.getAttribute('data-task-id')).toBe('child-1');
    expect(within(row).getByRole('link').textContent).toBe('Find sources');
  });

  it('tags a row on a remote agent and links it to what the parent knows of it', () => {
    render(
      <TaskPane
        view={viewWith({
          id: 'parent-1',
          sub_tasks: [
            {
              task_id: 'r-9',
              agent: 'librarian',
              state: 'TASK_STATE_WORKING',
              sub_state: null,
              criteria: null,
            },
          ],
        })}
      />
    );
    const row = document.querySelector('li.row') as HTMLElement;
    expect(row.querySelector('.tag')?.textContent).toBe('on librarian');
    const link = within(row).getByRole('link');
    expect([link.textContent, link.getAttribute('href')]).toEqual([
      'librarian/r-9',
      '#/tasks/parent-1/remote/r-9',
    ]);
    expect(screen.getByRole('heading', { name: 'Sub-tasks · 1' })).toBeTruthy();
  });

  it('shows the goal, the criteria as checkboxes with the met ones ticked, and the participants with roles, agents tagged A2A', () => {
    render(
      <TaskPane
        view={viewWith({
          goal: 'A report on tides',
          description: 'For the class',
          acceptance_criteria: [
            criterion('c1', 'Cites three sources', true),
            criterion('c2', 'Under two pages', false),
          ],
          participants: [
            { id: 'you', kind: 'human', role: 'reporter', display_name: '' },
            { id: 'reviewer', kind: 'human', role: 'watcher', display_name: 'Rita' },
            { id: 'tiny-harness', kind: 'agent', role: 'assignee', display_name: '' },
          ],
          parent_tasks: [{ task_id: 'parent-0', agent: null }],
        })}
      />
    );
    expect(document.querySelector('.goal')?.textContent).toBe('A report on tides');
    expect(screen.getByText('For the class')).toBeTruthy();
    const met = screen.getByRole('checkbox', { name: 'Cites three sources (met)' });
    const unmet = screen.getByRole('checkbox', { name: 'Under two pages (not met)' });
    expect([(met as HTMLInputElement).checked, (unmet as HTMLInputElement).checked]).toEqual([
      true,
      false,
    ]);
    const participants = [...document.querySelectorAll('.participants li')].map((item) =>
      item.textContent?.replace(/\s+/g, ' ')
    );
    expect(participants).toEqual([
      'you (reporter)',
      'Rita (watcher)',
      'tiny-harness (assignee)A2A',
    ]);
    expect(screen.getByRole('link', { name: 'parent-0' }).getAttribute('href')).toBe(
      '#/tasks/parent-0'
    );
    expect(screen.getAllByText('None.')).toHaveLength(1);
  });

  it("shows who met a criterion and the evidence, a reviewer's rejection, and each row's criteria met / total", () => {
    render(
      <TaskPane
        view={viewWith({
          acceptance_criteria: [
            criterion('c1', 'Cites three sources', true),
            {
              ...criterion('c2', 'Under two pages', false),
              rejection: { by: 'you', reason: 'it is three pages' },
            },
          ],
          sub_tasks: [
            {
              task_id: 'child-1',
              agent: null,
              state: 'TASK_STATE_WORKING',
              sub_state: null,
              criteria: { met: 1, total: 2 },
            },
            {
              task_id: 'child-2',
              agent: null,
              state: 'TASK_STATE_WORKING',
              sub_state: null,
              criteria: { met: 0, total: 0 },
            },
          ],
        })}
      />
    );
    expect(document.querySelector('.criteria .evidence')?.textContent).toBe(
      'Met by tiny-harness: three sources cited'
    );
    expect(document.querySelector('.criteria .rejection')?.textContent).toBe(
      'Rejected by you: it is three pages'
    );
    const counts = [...document.querySelectorAll('li.row')].map(
      (row) => row.querySelector('.criteria-count')?.textContent ?? null
    );
    // A child without criteria shows no count.
    expect(counts).toEqual(['criteria 1/2', null]);
  });

  it('shows what the task has spent of its budget, and nothing of a budget it has not', () => {
    render(
      <TaskPane
        view={viewWith({
          budget: { output_tokens: 10_000 },
          usage: {
            model_calls: 2,
            input_tokens: 300,
            cached_input_tokens: 0,
            output_tokens: 2_500,
            cost_usd: 0,
            tree: null,
          },
        })}
      />
    );
    expect(document.querySelector('.budget')?.textContent).toBe('output tokens 2,500 of 10,000');
    cleanup();
    // A budget holds the tree: its sub-tasks' spend counts, and the task's own share is named.
    render(
      <TaskPane
        view={viewWith({
          budget: { output_tokens: 10_000, model_calls: 40 },
          usage: {
            model_calls: 2,
            input_tokens: 300,
            cached_input_tokens: 0,
            output_tokens: 2_500,
            cost_usd: 0,
            tree: {
              model_calls: 5,
              input_tokens: 900,
              cached_input_tokens: 0,
              output_tokens: 4_000,
              cost_usd: 0,
              unknown: [],
            },
          },
        })}
      />
    );
    expect(document.querySelector('.budget')?.textContent).toBe(
      'output tokens 4,000 of 10,000 · model calls 5 of 40 (with sub-tasks; this task 2 calls)'
    );
    cleanup();
    render(<TaskPane view={viewWith()} />);
    expect(document.querySelector('.budget')).toBeNull();
  });

  it("says so when the agent does not speak the task extension, with the task's state", () => {
    render(
      <TaskPane
        view={viewWith({ extension: false, state: 'TASK_STATE_WORKING', sub_state: null })}
      />
    );
    expect(
      screen.getByText('This agent does not speak the tiny-harness task extension.')
    ).toBeTruthy();
    expect(document.querySelector('.state')?.textContent).toBe('working');
  });
});
