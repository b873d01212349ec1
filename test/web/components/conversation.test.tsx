// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Approval } from '../../../web/src/conversation/Approval.js';
import { BudgetStop } from '../../../web/src/conversation/BudgetStop.js';
import { Composer, type ComposerAction } from '../../../web/src/conversation/Composer.js';
import { Messages } from '../../../web/src/conversation/Messages.js';
import { Progress } from '../../../web/src/conversation/Progress.js';
import { Question } from '../../../web/src/conversation/Question.js';
import { viewWith } from './fixtures.js';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('progress while the agent works', () => {
  it('shows how long, and the WORKING status message when there is one', () => {
    vi.useFakeTimers();
    const working = viewWith({ state: 'TASK_STATE_WORKING', sub_state: null, status_text: '' });
    const { rerender } = render(<Progress view={working} />);
    expect(screen.getByRole('status').textContent).toBe('Working · 0 s');
    act(() => {
      vi.advanceTimersByTime(3_000);
    });
    rerender(<Progress view={{ ...working, status_text: 'calling gpt-x' }} />);
    expect(screen.getByRole('status').textContent).toBe('Working · 3 s · calling gpt-x');
  });

  it('says nothing once the task waits or ends', () => {
    for (const state of ['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_COMPLETED']) {
      render(<Progress view={viewWith({ state, status_text: 'a reply' })} />);
      expect(screen.queryByRole('status')).toBeNull();
      cleanup();
    }
  });
});

describe('a pending question', () => {
  it('offers one button per option, and answers with the one pressed', () => {
    const onAnswer = vi.fn();
    render(
      <Question
        view={viewWith({
          sub_state: 'awaiting-answer',
          status_text: 'Which format?\nOptions: pdf, md, plain text',
        })}
        busy={false}
        onAnswer={onAnswer}
      />
    );
    expect(document.querySelector('.question-text')?.textContent).toBe('Which format?');
    const buttons = screen.getAllByRole('button').map((button) => button.textContent);
    expect(buttons).toEqual(['pdf', 'md', 'plain text']);
    fireEvent.click(screen.getByRole('button', { name: 'md' }));
    expect(onAnswer).toHaveBeenCalledWith('md');
  });

  it('shows an open question without buttons, and nothing when the task waits for a message', () => {
    render(
      <Question
        view={viewWith({ sub_state: 'awaiting-answer', status_text: 'What is it for?' })}
        busy={false}
        onAnswer={() => undefined}
      />
    );
    expect(screen.queryAllByRole('button')).toEqual([]);
    expect(screen.getByText('What is it for?')).toBeTruthy();
    cleanup();
    render(
      <Question view={viewWith({ status_text: 'Hello' })} busy={false} onAnswer={() => undefined} />
    );
    expect(document.querySelector('.question')).toBeNull();
  });
});

describe('tool calls waiting for approval', () => {
  const request =
    'Approval needed before this tool call can run:\n- c1: notes__delete_note {"id":"n1"} (approvers: reporter, admin)\nAnswer with a control envelope …\nOptions: approve, reject';

  it('shows the calls and answers approve or reject, with the reason typed', () => {
    const onAnswer = vi.fn();
    render(
      <Approval
        view={viewWith({ sub_state: 'awaiting-approval', status_text: request })}
        busy={false}
        onAnswer={onAnswer}
      />
    );
    expect(document.querySelector('.approval .question-text')?.textContent).toContain(
      'notes__delete_note {"id":"n1"} (approvers: reporter, admin)'
    );
    expect(document.querySelector('.approval')?.textContent).not.toContain('Options:');
    fireEvent.click(screen.getByRole('button', { name: 'Approve' }));
    expect(onAnswer).toHaveBeenLastCalledWith('approve', undefined);
    fireEvent.change(screen.getByRole('textbox'), { target: { value: 'keep it' } });
    fireEvent.click(screen.getByRole('button', { name: 'Reject' }));
    expect(onAnswer).toHaveBeenLastCalledWith('reject', 'keep it');
  });

  it('is not shown for any other wait, and the request is not repeated as a reply', () => {
    render(
      <Approval view={viewWith({ status_text: 'Hello' })} busy={false} onAnswer={() => undefined} />
    );
    expect(document.querySelector('.approval')).toBeNull();
    cleanup();
    render(
      <Messages
        messages={[]}
        view={viewWith({ sub_state: 'awaiting-approval', status_text: request })}
        me="you"
      />
    );
    expect(document.body.textContent).not.toContain('Approval needed');
  });
});

describe('a task stopped at its budget', () => {
  const stop =
    'The budget is reached: the next model call could exceed it, so it was not made.\n- model calls: spent 2 of 2; the next call may need up to 1';

  it('says why, starts from the budget it has, and sets only the limits typed', () => {
    const onRaise = vi.fn();
    render(
      <BudgetStop
        view={viewWith({
          sub_state: 'awaiting-budget',
          status_text: stop,
          budget: { model_calls: 2, usd: 1.5 },
        })}
        busy={false}
        onRaise={onRaise}
      />
    );
    expect(document.querySelector('.budget-stop .question-text')?.textContent).toBe(stop);
    const calls = screen.getByRole('spinbutton', { name: 'Model calls' }) as HTMLInputElement;
    expect([
      calls.value,
      (screen.getByRole('spinbutton', { name: 'Cost (USD)' }) as HTMLInputElement).value,
    ]).toEqual(['2', '1.5']);
    const set = screen.getByRole('button', { name: 'Set budget' }) as HTMLButtonElement;
    // The budget as it is sets nothing: the button waits for a change.
    expect(set.disabled).toBe(true);
    fireEvent.change(calls, { target: { value: '5' } });
    fireEvent.click(set);
    expect(onRaise).toHaveBeenLastCalledWith({ model_calls: 5 });
    // A limit emptied keeps its value: it is not sent.
    fireEvent.change(screen.getByRole('spinbutton', { name: 'Cost (USD)' }), {
      target: { value: '' },
    });
    fireEvent.click(set);
    expect(onRaise).toHaveBeenLastCalledWith({ model_calls: 5 });
  });

  it('cannot send a budget with no limit, and is not shown for any other wait nor as a reply', () => {
    const onRaise = vi.fn();
    render(
      <BudgetStop
        view={viewWith({ sub_state: 'awaiting-budget', status_text: stop })}
        busy={false}
        onRaise={onRaise}
      />
    );
    const set = screen.getByRole('button', { name: 'Set budget' }) as HTMLButtonElement;
    expect(set.disabled).toBe(true);
    fireEvent.change(screen.getByRole('spinbutton', { name: 'Model calls' }), {
      target: { value: '-3' },
    });
    expect(set.disabled).toBe(true);
    cleanup();
    render(<BudgetStop view={viewWith({ status_text: 'Hi' })} busy={false} onRaise={onRaise} />);
    expect(document.querySelector('.budget-stop')).toBeNull();
    cleanup();
    render(
      <Messages
        messages={[]}
        view={viewWith({ sub_state: 'awaiting-budget', status_text: stop })}
        me="you"
      />
    );
    expect(document.body.textContent).not.toContain('The budget is reached');
    expect(onRaise).not.toHaveBeenCalled();
  });
});

describe('the messages', () => {
  it('names who said what, marks what is not in the history yet, and says how the task ended', () => {
    render(
      <Messages
        me="you"
        view={viewWith({ state: 'TASK_STATE_COMPLETED', sub_state: null, status_text: 'all good' })}
        messages={[
          { id: 'm1', from: 'participant', participant: 'you', text: 'Hi' },
          { id: 'm2', from: 'agent', participant: null, text: 'Hello' },
          { id: 'm3', from: 'participant', participant: 'rita', text: 'Looks fine' },
          { id: 'm4', from: 'participant', participant: 'you', text: 'Done?', pending: true },
        ]}
      />
    );
    const items = [...document.querySelectorAll('li.message')].map((item) => [
      item.className,
      item.querySelector('.who')?.textContent ?? '',
      item.querySelector('.text')?.textContent,
    ]);
    expect(items).toEqual([
      ['message from-participant', 'you', 'Hi'],
      ['message from-agent', 'agent', 'Hello'],
      ['message from-participant', 'rita', 'Looks fine'],
      ['message from-participant pending', 'you', 'Done?'],
      ['message ending', '', 'Task completed: all good'],
    ]);
  });

  it("shows the agent's reply from the status while the history has not caught up", () => {
    render(
      <Messages
        me="you"
        view={viewWith({ status_text: 'Here is the outline.' })}
        messages={[{ id: 'm1', from: 'participant', participant: 'you', text: 'Outline it' }]}
      />
    );
    expect([...document.querySelectorAll('li.message .text')].map((t) => t.textContent)).toEqual([
      'Outline it',
      'Here is the outline.',
    ]);
  });
});

describe('the composer', () => {
  const composer = (onSubmit: (action: ComposerAction) => Promise<boolean>, change = {}) =>
    render(
      <Composer
        newTask={false}
        ended={undefined}
        busy={false}
        identity="you"
        error={undefined}
        onSubmit={onSubmit}
        {...change}
      />
    );

  it('sends on Enter, keeps a new line on Shift+Enter, and clears once sent', async () => {
    const onSubmit = vi.fn(async () => true);
    composer(onSubmit);
    const box = screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement;
    fireEvent.change(box, { target: { value: 'first line' } });
    fireEvent.keyDown(box, { key: 'Enter', shiftKey: true });
    expect(onSubmit).not.toHaveBeenCalled();
    await act(async () => {
      fireEvent.keyDown(box, { key: 'Enter' });
    });
    expect(onSubmit).toHaveBeenCalledWith({ kind: 'message', text: 'first line' });
    expect(box.value).toBe('');
    expect(document.querySelector('.identity')?.textContent).toBe('as you');
  });

  it('keeps the text when the agent refused it, and says why', async () => {
    const onSubmit = vi.fn(async () => false);
    composer(onSubmit, { error: 'task not found' });
    const box = screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement;
    fireEvent.change(box, { target: { value: 'hello' } });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    });
    expect(box.value).toBe('hello');
    expect(screen.getByRole('alert').textContent).toBe('task not found');
  });

  for (const [button, label, submit, action] of [
    [
      'Complete…',
      'Why is it complete? (optional)',
      'Complete the task',
      { kind: 'complete', reason: 'all good' },
    ],
    [
      'Cancel task…',
      'Why cancel it? (optional)',
      'Cancel the task',
      { kind: 'cancel', reason: 'all good' },
    ],
    [
      'Sub-task…',
      'What is the sub-task for?',
      'Start the sub-task',
      { kind: 'sub-task', description: 'all good' },
    ],
  ] as const) {
    it(`${button} asks for its text, then sends ${action.kind}`, async () => {
      const onSubmit = vi.fn(async () => true);
      composer(onSubmit);
      fireEvent.click(screen.getByRole('button', { name: button }));
      const field = screen.getByLabelText(label);
      expect(document.activeElement).toBe(field);
      fireEvent.change(field, { target: { value: 'all good' } });
      await act(async () => {
        fireEvent.click(screen.getByRole('button', { name: submit }));
      });
      expect(onSubmit).toHaveBeenCalledWith(action);
      // Back to the message box.
      expect(screen.getByRole('textbox', { name: 'Message' })).toBeTruthy();
    });
  }

  it('goes back on Escape, and sends nothing once the task has ended', () => {
    const onSubmit = vi.fn(async () => true);
    composer(onSubmit);
    fireEvent.click(screen.getByRole('button', { name: 'Cancel task…' }));
    fireEvent.keyDown(screen.getByLabelText('Why cancel it? (optional)'), { key: 'Escape' });
    expect(screen.getByRole('textbox', { name: 'Message' })).toBeTruthy();
    cleanup();
    composer(onSubmit, { ended: 'completed' });
    expect(screen.queryByRole('textbox')).toBeNull();
    expect(
      screen.getByText('This task has ended (completed): nothing more can be sent.')
    ).toBeTruthy();
  });
});
