import { describe, expect, it } from 'vitest';
import { type ChatPosition, chatActionOf } from '../../../functions/cli/chat/commands.js';
import { messageText } from '../../../functions/view/messages.js';

const noTask: ChatPosition = { taskId: undefined, answers: [], awaitingApproval: false };
const onTask: ChatPosition = {
  taskId: 't-1',
  answers: ['Lisbon', 'Porto'],
  awaitingApproval: false,
};
const approving: ChatPosition = { ...onTask, awaitingApproval: true };

/** The action, with a message shown as its text, its task and its control envelope. */
const described = (line: string, position: ChatPosition) => {
  const action = chatActionOf(line, position);
  if (action.kind !== 'send') return action;
  const { message } = action;
  const data = message.parts[0]?.content;
  return {
    kind: 'send',
    taskId: message.taskId,
    text: messageText(message),
    control:
      data?.$case === 'data'
        ? (data.value as { payload: unknown } | undefined)?.payload
        : undefined,
  };
};

describe('what a line typed in the chat asks for', () => {
  it.each([
    ['   ', noTask, { kind: 'nothing' }],
    ['hello', noTask, { kind: 'send', taskId: '', text: 'hello', control: undefined }],
    ['2', onTask, { kind: 'send', taskId: 't-1', text: 'Porto', control: undefined }],
    ['3', onTask, { kind: 'send', taskId: 't-1', text: '3', control: undefined }],
    ['/help', noTask, { kind: 'help' }],
    ['/quit', onTask, { kind: 'leave' }],
    ['/exit', noTask, { kind: 'leave' }],
    ['/plan', noTask, { kind: 'hint', text: 'no task yet: say something first, then /plan' }],
    ['/audit', onTask, { kind: 'show', pane: 'audit', taskId: 't-1' }],
    ['/plan', onTask, { kind: 'show', pane: 'plan', taskId: 't-1' }],
    [
      '/sub-task',
      onTask,
      { kind: 'hint', text: '/sub-task needs a description: /sub-task <what it is for>' },
    ],
    ['/approve', noTask, { kind: 'hint', text: 'no task yet: say something first, then /approve' }],
    [
      '/approve looks safe',
      onTask,
      {
        kind: 'send',
        taskId: 't-1',
        text: '',
        control: { action: 'approve', reason: 'looks safe' },
      },
    ],
    [
      '/reject',
      approving,
      { kind: 'send', taskId: 't-1', text: '', control: { action: 'reject' } },
    ],
    [
      '/reject c2',
      onTask,
      {
        kind: 'hint',
        text: '/reject needs a criterion and a reason: /reject c2 the figures are wrong',
      },
    ],
    [
      '/reject c2 the figures are wrong',
      onTask,
      {
        kind: 'send',
        taskId: 't-1',
        text: '',
        control: { action: 'reject_criterion', criterion: 'c2', reason: 'the figures are wrong' },
      },
    ],
    [
      '/complete',
      onTask,
      { kind: 'send', taskId: 't-1', text: '', control: { action: 'complete' } },
    ],
    [
      '/cancel not needed',
      onTask,
      {
        kind: 'send',
        taskId: 't-1',
        text: '',
        control: { action: 'cancel', reason: 'not needed' },
      },
    ],
    ['/cancel', noTask, { kind: 'hint', text: 'no task yet: say something first, then /cancel' }],
    [
      '/budget usd=$2.50 model_calls=40',
      onTask,
      {
        kind: 'send',
        taskId: 't-1',
        text: '',
        control: { action: 'set_budget', budget: { usd: 2.5, model_calls: 40 } },
      },
    ],
    [
      '/budget model_calls=3',
      noTask,
      { kind: 'hint', text: 'no task yet: say something first, then /budget' },
    ],
    ['/history', onTask, { kind: 'show', pane: 'history', taskId: 't-1' }],
    ['/history', noTask, { kind: 'hint', text: 'no task yet: say something first, then /history' }],
    ['/fork', onTask, { kind: 'fork', taskId: 't-1', point: {} }],
    ['/fork 5f1c2a9e', onTask, { kind: 'fork', taskId: 't-1', point: { messageId: '5f1c2a9e' } }],
    ['/fork before-turn 2', onTask, { kind: 'fork', taskId: 't-1', point: { beforeTurn: 2 } }],
    ['/fork', noTask, { kind: 'hint', text: 'no task yet: say something first, then /fork' }],
    [
      '/frobnicate',
      onTask,
      { kind: 'hint', text: 'unknown command /frobnicate: /help lists them' },
    ],
  ])('%j (task %#)', (line, position, expected) => {
    expect(described(line, position)).toEqual(expected);
  });

  it.each(['/budget', '/budget calls=4', '/budget usd=-1', '/budget usd', '/budget usd=a=b'])(
    '%j asks for limits as <limit>=<number>, sending nothing',
    (line) => {
      expect(described(line, onTask)).toEqual({
        kind: 'hint',
        text: '/budget needs limits as <limit>=<number>: /budget usd=5 model_calls=40 (usd, input_tokens, output_tokens, model_calls)',
      });
    }
  );

  it.each(['/fork before-turn', '/fork before-turn 0', '/fork before-turn 1.5', '/fork a b'])(
    '%j says how to name a point, forking nothing',
    (line) => {
      expect(described(line, onTask)).toEqual({
        kind: 'hint',
        text: '/fork takes a message id or before-turn <n>: /fork, /fork <message id>, /fork before-turn 2 (/history lists the ids)',
      });
    }
  );

  it('starts a sub-task with the words after /sub-task as its goal', () => {
    expect(described('/sub-task check the figures', onTask)).toEqual({
      kind: 'send',
      taskId: 't-1',
      text: '/sub-task check the figures',
      control: undefined,
    });
  });
});
