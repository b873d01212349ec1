// @vitest-environment happy-dom
/**
 * A task's history on the page: a message forked from (ForkTask), the task as it was at a message
 * (GetTaskAt), and where a fork came from and the forks of an original, against a stand-in agent.
 */
import { Task } from '@a2a-js/sdk';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TASK_METADATA_KEY } from '../../../functions/core/a2a/identifiers.js';
import type { ForkRequest, HistoryPointRequest } from '../../../functions/view/fork.js';
import type { Agent } from '../../../web/src/agent/agent.js';
import { lineageOf, viewOf } from '../../../web/src/agent/read.js';
import type { Followed, Said } from '../../../web/src/app/hooks.js';
import { TaskPage } from '../../../web/src/app/TaskPage.js';
import type { HistoryActions } from '../../../web/src/conversation/MessageActions.js';
import { Messages } from '../../../web/src/conversation/Messages.js';
import { TaskPane } from '../../../web/src/panes/TaskPane.js';
import { viewWith } from './fixtures.js';

afterEach(cleanup);

const said: Said[] = [
  { id: 'm1', from: 'participant', participant: 'you', text: 'Write a poem' },
  { id: 'm2', from: 'agent', participant: null, text: 'About what?' },
  { id: 'm3', from: 'participant', participant: 'you', text: 'The sea' },
  { id: 'm4', from: 'participant', participant: 'you', text: 'Short, please', pending: true },
];

const actions = (change: Partial<HistoryActions> = {}): HistoryActions => ({
  at: undefined,
  hrefAt: (messageId) => (messageId === undefined ? '#/tasks/t' : `#/tasks/t/at/${messageId}`),
  fork: async () => undefined,
  defaultName: 'A poem (fork)',
  ...change,
});

const item = (id: string) => document.querySelector(`li[data-message-id="${id}"]`) as HTMLElement;

describe('the actions at a message of the history', () => {
  it('offers, at each message the history holds, its past view and a fork, named by the message', () => {
    render(<Messages me="you" view={viewWith()} messages={said} history={actions()} />);
    const second = within(item('m2'));
    expect(second.getByRole('link', { name: 'As it was here (message 2, from agent)' })).toSatisfy(
      (link: HTMLAnchorElement) => link.getAttribute('href') === '#/tasks/t/at/m2'
    );
    expect(
      second
        .getByRole('button', { name: 'Fork from here… (message 2, from agent)' })
        .getAttribute('aria-expanded')
    ).toBe('false');
    expect(within(item('m1')).getAllByRole('link')).toHaveLength(1);
    // A message sent from the page and not in the history yet has no id the agent knows.
    expect(within(item('m4')).queryAllByRole('button')).toEqual([]);
    expect(within(item('m4')).queryAllByRole('link')).toEqual([]);
  });

  it('offers nothing when the agent offers no forks', () => {
    render(<Messages me="you" view={viewWith()} messages={said} />);
    expect(document.querySelectorAll('.message-actions')).toHaveLength(0);
  });

  it('marks the message the panes show the task at, and what was said after it', () => {
    render(<Messages me="you" view={viewWith()} messages={said} history={actions({ at: 'm2' })} />);
    expect(item('m1').className).toBe('message from-participant');
    expect(item('m2').className).toBe('message from-agent at');
    expect(item('m2').getAttribute('aria-current')).toBe('true');
    expect(item('m3').className).toBe('message from-participant later');
    expect(
      within(item('m2')).getByRole('link', { name: 'Back to live (from message 2, from agent)' })
    ).toSatisfy((link: HTMLAnchorElement) => link.getAttribute('href') === '#/tasks/t');
  });

  it('forks with the first message and name typed, Enter sending', async () => {
    const fork = vi.fn(async () => undefined);
    render(<Messages me="you" view={viewWith()} messages={said} history={actions({ fork })} />);
    fireEvent.click(within(item('m2')).getByRole('button', { name: /^Fork from here/ }));
    const form = screen.getByRole('form', { name: 'Fork from message 2, from agent' });
    const first = within(form).getByLabelText('First message of the fork (optional)');
    expect(document.activeElement).toBe(first);
    const name = within(form).getByLabelText('Name (optional)') as HTMLInputElement;
    expect([name.placeholder, name.maxLength]).toEqual(['A poem (fork)', 200]);
    fireEvent.change(first, { target: { value: '  The mountains instead ' } });
    fireEvent.change(name, { target: { value: 'Mountain poem' } });
    await act(async () => {
      fireEvent.keyDown(first, { key: 'Enter' });
    });
    expect(fork).toHaveBeenCalledWith('m2', {
      text: 'The mountains instead',
      name: 'Mountain poem',
    });
  });

  it('forks with nothing typed, and says why in the form when the agent refuses, ready to try again', async () => {
    const fork = vi.fn(async () => 'Could not fork the task: unknown message m2 (t)');
    render(<Messages me="you" view={viewWith()} messages={said} history={actions({ fork })} />);
    fireEvent.click(within(item('m2')).getByRole('button', { name: /^Fork from here/ }));
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Fork' }));
    });
    expect(fork).toHaveBeenCalledWith('m2', {});
    expect(screen.getByRole('alert').textContent).toBe(
      'Could not fork the task: unknown message m2 (t)'
    );
    expect(screen.getByRole('alert').className).toBe('error');
    expect((screen.getByRole('button', { name: 'Fork' }) as HTMLButtonElement).disabled).toBe(
      false
    );
    fireEvent.keyDown(screen.getByLabelText('Name (optional)'), { key: 'Escape' });
    expect(screen.queryByRole('form')).toBeNull();
  });
});

describe('the forks of a task in the Task pane', () => {
  it('lists each fork by name, linked to it; nothing when there are none', () => {
    render(
      <TaskPane view={viewWith()} forks={['f-1', 'f-2']} names={{ 'f-1': 'Mountain poem' }} />
    );
    const list = within(screen.getByRole('region', { name: 'Forks · 2' }));
    expect(
      list.getAllByRole('link').map((link) => [link.textContent, link.getAttribute('href')])
    ).toEqual([
      ['Mountain poem', '#/tasks/f-1'],
      ['f-2', '#/tasks/f-2'],
    ]);
    cleanup();
    render(<TaskPane view={viewWith()} />);
    expect(screen.queryByRole('region', { name: /^Forks/ })).toBeNull();
  });
});

/** A task as the agent answers it, on the JSON wire form. */
const task = (
  id: string,
  extension: Record<string, unknown>,
  history: Array<[string, 'ROLE_USER' | 'ROLE_AGENT', string]>,
  state = 'TASK_STATE_INPUT_REQUIRED'
) =>
  Task.fromJSON({
    id,
    contextId: `ctx-${id}`,
    status: { state, timestamp: '2026-12-03T10:00:00.000Z' },
    history: history.map(([messageId, role, text]) => ({ messageId, role, parts: [{ text }] })),
    metadata: {
      [TASK_METADATA_KEY]: {
        goal: 'A poem',
        participants: [{ id: 'you', kind: 'human', role: 'reporter' }],
        ...extension,
      },
    },
  });

const HISTORY: Array<[string, 'ROLE_USER' | 'ROLE_AGENT', string]> = [
  ['m1', 'ROLE_USER', 'Write a poem'],
  ['m2', 'ROLE_AGENT', 'About what?'],
  ['m3', 'ROLE_USER', 'The sea'],
  ['m4', 'ROLE_AGENT', 'Done: waves.'],
];

describe('the task page, with an agent that offers forks', () => {
  const original = task(
    'orig',
    {
      name: 'A poem',
      acceptance_criteria: [{ text: 'rhymes', met: true, evidence: { text: 'it does' } }],
      plan: { steps: [{ id: 's1', name: 'Write', state: 'done' }] },
      forks: ['fork-1'],
    },
    HISTORY
  );
  const then = task(
    'orig',
    {
      name: 'A poem',
      acceptance_criteria: [{ text: 'rhymes' }],
      plan: { steps: [{ id: 's1', name: 'Write', state: 'active' }] },
    },
    HISTORY.slice(0, 2),
    'TASK_STATE_WORKING'
  );
  const forked = task(
    'fork-1',
    { name: 'Mountain poem', forked_from: { task_id: 'orig', message_id: 'm2' } },
    HISTORY.slice(0, 2)
  );
  const tasks: Record<string, Task> = { orig: original, 'fork-1': forked };
  let fork: ReturnType<typeof vi.fn<(request: ForkRequest) => Promise<Task>>>;
  let taskAt: ReturnType<typeof vi.fn<(id: string, point: HistoryPointRequest) => Promise<Task>>>;
  let agent: Agent;

  beforeEach(() => {
    window.location.hash = '#/tasks/orig';
    fork = vi.fn(async () => forked);
    taskAt = vi.fn(async () => then);
    agent = {
      card: { name: 'stand-in' },
      client: {
        getTask: async ({ id }: { id: string }) => {
          const found = tasks[id];
          if (found === undefined) throw new Error(`task not found: ${id}`);
          return found;
        },
        resubscribeTask: () => {
          throw new Error('not followed here');
        },
      },
      view: viewOf,
      audits: false,
      timeline: async () => {
        throw new Error('no timeline');
      },
      forks: true,
      fork,
      taskAt,
    } as unknown as Agent;
  });

  const followed = (t: Task): Followed => ({
    view: viewOf(t),
    error: undefined,
    retry: () => undefined,
    awaitChange: () => undefined,
  });

  const page = (t: Task, at?: string) =>
    render(
      <TaskPage
        agent={agent}
        taskId={t.id}
        followed={followed(t)}
        me="you"
        identity="you"
        outbox={[]}
        onSent={() => undefined}
        pane="task"
        onPane={() => undefined}
        at={at}
      />
    );

  it('reads where a fork came from and the forks of an original from the task extension', () => {
    expect(lineageOf(forked)).toEqual({
      forkedFrom: { task_id: 'orig', message_id: 'm2' },
      forks: [],
    });
    expect(lineageOf(original)).toEqual({ forkedFrom: null, forks: ['fork-1'] });
  });

  it('forks at a message and goes to the fork', async () => {
    page(original);
    await screen.findByText('The sea');
    fireEvent.click(within(item('m2')).getByRole('button', { name: /^Fork from here/ }));
    fireEvent.change(screen.getByLabelText('First message of the fork (optional)'), {
      target: { value: 'The mountains' },
    });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Fork' }));
    });
    expect(fork).toHaveBeenCalledWith({
      taskId: 'orig',
      point: { messageId: 'm2' },
      text: 'The mountains',
    });
    expect(window.location.hash).toBe('#/tasks/fork-1');
  });

  it("says in the page's error style why a fork failed, and stays", async () => {
    fork.mockRejectedValueOnce(new Error('message m2 is not in the history of orig (orig)'));
    page(original);
    await screen.findByText('The sea');
    fireEvent.click(within(item('m2')).getByRole('button', { name: /^Fork from here/ }));
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Fork' }));
    });
    expect(screen.getByRole('alert').textContent).toBe(
      'Could not fork the task: message m2 is not in the history of orig (orig)'
    );
    expect(window.location.hash).toBe('#/tasks/orig');
  });

  it('lists the forks of an original, by name', async () => {
    page(original);
    const forks = within(await screen.findByRole('region', { name: 'Forks · 1' }));
    await forks.findByRole('link', { name: 'Mountain poem' });
  });

  it('says where a fork came from: the original by name, and the message, as it was then', async () => {
    page(forked);
    const line = await screen.findByText(/^Forked from/);
    await within(line).findByRole('link', { name: 'A poem' });
    expect(within(line).getByRole('link', { name: 'A poem' }).getAttribute('href')).toBe(
      '#/tasks/orig'
    );
    expect(within(line).getByRole('link', { name: '“About what?”' }).getAttribute('href')).toBe(
      '#/tasks/orig/at/m2'
    );
    expect(taskAt).toHaveBeenCalledWith('orig', { messageId: 'm2' });
  });

  it('shows the task as it was at a message, marked as past, with the way back to live', async () => {
    page(original, 'm2');
    const panes = screen.getByRole('complementary', { name: 'Task details, as it was' });
    await within(panes).findByText('working');
    expect(taskAt).toHaveBeenCalledWith('orig', { messageId: 'm2' });
    const banner = within(panes).getByRole('status');
    expect(banner.textContent).toContain('As it was at “About what?”');
    expect(within(banner).getByRole('link', { name: 'Back to live' }).getAttribute('href')).toBe(
      '#/tasks/orig'
    );
    // The criterion unmet then, though met now.
    expect(
      (within(panes).getByRole('checkbox', { name: /rhymes/ }) as HTMLInputElement).checked
    ).toBe(false);
    // The conversation is live: every message, the later ones marked.
    expect(item('m4').className).toContain('later');
  });

  it('says so when the task cannot be read as it was there', async () => {
    taskAt.mockRejectedValueOnce(new Error('no message m9 in orig (orig)'));
    page(original, 'm9');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe(
      'Could not read the task as it was there: no message m9 in orig (orig)'
    );
    expect(screen.getByText('Not available.')).toBeTruthy();
  });
});
