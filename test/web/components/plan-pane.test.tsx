// @vitest-environment happy-dom
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import PlanGraph from '../../../web/src/panes/PlanGraph.js';
import { PlanPane } from '../../../web/src/panes/PlanPane.js';
import { layoutPlan } from '../../../web/src/panes/plan-layout.js';
import { step, viewWith } from './fixtures.js';

afterEach(cleanup);

const stepItem = (id: string) =>
  document.querySelector(`li.step[data-step="${id}"]`) as HTMLElement;

describe('the Plan pane', () => {
  it('says there is no plan yet, or that the agent keeps none', () => {
    render(<PlanPane view={viewWith()} />);
    expect(screen.getByRole('heading').textContent).toBe('Plan · none yet');
    expect(screen.getByText('The agent has not made a plan for this task.')).toBeTruthy();
    cleanup();
    render(<PlanPane view={viewWith({ extension: false })} />);
    expect(screen.getByText('This agent keeps no plan.')).toBeTruthy();
  });

  const marks = { pending: '○', active: '◐', done: '●', failed: '✗' } as const;
  for (const state of ['pending', 'active', 'done', 'failed'] as const) {
    it(`draws a ${state} step: its state as a class, its mark, and the state in words`, () => {
      render(<PlanPane view={viewWith({ plan: { steps: [step('outline', { state })] } })} />);
      const item = stepItem('outline');
      expect([...item.classList]).toEqual(['step', state]);
      expect(item.querySelector('.mark')?.textContent).toBe(marks[state]);
      expect(item.querySelector('.mark')?.getAttribute('aria-hidden')).toBe('true');
      expect(item.querySelector('.visually-hidden')?.textContent).toBe(`(${state})`);
      expect(screen.getByRole('heading', { level: 3 }).textContent).toBe('Plan · 1 step · DAG');
    });
  }

  it('shows "output: …" for a step with output, else "depends on …" by name', () => {
    const steps = [
      step('outline', { state: 'done', output: 'three parts' }),
      step('draft', { depends_on: ['outline'] }),
      step('review', { name: 'Peer review', depends_on: ['draft', 'outline'], output: 'ok' }),
      step('sources'),
    ];
    render(<PlanPane view={viewWith({ plan: { steps } })} />);
    expect(stepItem('outline').querySelector('.step-detail')?.textContent).toBe(
      'output: three parts'
    );
    expect(stepItem('draft').querySelector('.step-detail')?.textContent).toBe('depends on Outline');
    expect(stepItem('review').querySelector('.step-detail')?.textContent).toBe('output: ok');
    expect(stepItem('sources').querySelector('.step-detail')).toBeNull();
    expect(screen.getByText('1 of 4 done')).toBeTruthy();
    // In order, as an ordered list.
    const items = within(document.querySelector('ol.steps') as HTMLElement).getAllByRole(
      'listitem'
    );
    expect(items.map((item) => item.getAttribute('data-step'))).toEqual([
      'outline',
      'draft',
      'review',
      'sources',
    ]);
  });

  it('links a step to its sub-tasks: on this harness to the task, on a remote agent to its row', () => {
    const steps = [
      step('research', {
        state: 'active',
        linked_tasks: [
          { task_id: 'child-1', agent: null },
          { task_id: 'remote-9', agent: 'librarian' },
        ],
      }),
    ];
    render(<PlanPane view={viewWith({ id: 'parent-1', plan: { steps } })} />);
    const links = within(stepItem('research')).getAllByRole('link');
    expect(links.map((link) => [link.textContent, link.getAttribute('href')])).toEqual([
      ['child-1', '#/tasks/child-1'],
      ['librarian/remote-9', '#/tasks/parent-1/remote/remote-9'],
    ]);
    expect(stepItem('research').textContent).toContain('sub-tasks: child-1 · librarian/remote-9');
  });
});

describe('the plan layout (dagre)', () => {
  it('places every step, one arrow per dependency, each dependency above the step that waits on it', () => {
    const layout = layoutPlan([
      step('outline'),
      step('draft', { depends_on: ['outline'] }),
      step('sources'),
      step('review', { depends_on: ['draft', 'sources', 'missing'] }),
    ]);
    expect(layout.steps.map((placed) => placed.id)).toEqual([
      'outline',
      'draft',
      'sources',
      'review',
    ]);
    // A dangling dependency is not drawn.
    expect(layout.edges.map((edge) => `${edge.from}->${edge.to}`).sort()).toEqual([
      'draft->review',
      'outline->draft',
      'sources->review',
    ]);
    const y = new Map(layout.steps.map((placed) => [placed.id, placed.y]));
    expect(y.get('outline')!).toBeLessThan(y.get('draft')!);
    expect(y.get('draft')!).toBeLessThan(y.get('review')!);
    expect(y.get('sources')!).toBeLessThan(y.get('review')!);
    for (const placed of layout.steps) {
      expect(placed.x).toBeGreaterThanOrEqual(0);
      expect(placed.x + placed.width).toBeLessThanOrEqual(layout.width);
      expect(placed.y + placed.height).toBeLessThanOrEqual(layout.height);
    }
    for (const edge of layout.edges) expect(edge.points.length).toBeGreaterThanOrEqual(2);
  });

  it('cuts a long name to fit its box', () => {
    const [placed] = layoutPlan([
      step('long', { name: 'Gather every primary source about the tides of the Bay of Fundy' }),
    ]).steps;
    expect(placed?.label).toBe('Gather every primary sour…');
  });
});

describe('the plan graph', () => {
  it('colours each box by its step state and describes the graph for screen readers', () => {
    const steps = (['pending', 'active', 'done', 'failed'] as const).map((state, index) =>
      step(`s${index}`, { state, depends_on: index === 0 ? [] : [`s${index - 1}`] })
    );
    render(<PlanGraph steps={steps} />);
    const nodes = [...document.querySelectorAll('g.node')];
    expect(nodes.map((node) => node.getAttribute('class'))).toEqual([
      'node pending',
      'node active',
      'node done',
      'node failed',
    ]);
    expect(nodes.map((node) => node.querySelector('.node-mark')?.textContent)).toEqual([
      '○',
      '◐',
      '●',
      '✗',
    ]);
    expect(document.querySelectorAll('path.edge')).toHaveLength(3);
    expect(screen.getByRole('img').getAttribute('aria-label')).toBe(
      'Plan graph: 4 steps (1 done, 1 active, 1 failed, 1 pending); the list below describes each step.'
    );
  });
});
