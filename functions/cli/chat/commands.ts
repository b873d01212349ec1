/**
 * What a line typed in the chat asks for: a message to the agent, a control envelope, a pane to
 * show, help, leaving, or a one-line hint when the line cannot be done as typed. Pure: the chat
 * does what it says.
 */
import type { Message } from '@a2a-js/sdk';
import type { HistoryPointRequest } from '../../view/fork.js';
import { controlTo, subTaskTo, textTo } from '../../view/messages.js';

export const CHAT_HELP = [
  'Type a message and press Enter. Commands:',
  '  /plan                 show the plan',
  '  /audit                show the timeline of this task and its sub-tasks',
  '  /history              show the conversation, each message with its id',
  '  /fork [<message id> | before-turn <n>]  a new task from that point (default: now); the chat moves to it',
  '  /sub-task <text>      start a sub-task (a conversation of its own) with <text> as its goal',
  '  /complete [reason]    complete the task (accepting any criterion still unmet)',
  '  /reject <criterion> <reason>  find a met acceptance criterion unmet (reporters and admins)',
  '  /approve [reason]     let the tool calls waiting for approval run (approvers only)',
  '  /reject [reason]      while tool calls wait for approval: refuse them; they never run',
  '  /budget <limit>=<n>…  set or raise the budget: usd, input_tokens, output_tokens, model_calls (reporters and admins)',
  '  /cancel [reason]      cancel the task',
  '  /help                 this list',
  '  /quit                 leave (the task goes on; `tiny-harness chat --task ID` comes back)',
  'Ctrl-C while the agent works stops waiting for that turn; the task goes on.',
].join('\n');

export type ChatAction =
  | { kind: 'nothing' }
  | { kind: 'send'; message: Message }
  | { kind: 'show'; pane: 'plan' | 'audit' | 'history'; taskId: string }
  | { kind: 'fork'; taskId: string; point: HistoryPointRequest }
  | { kind: 'help' }
  | { kind: 'leave' }
  | { kind: 'hint'; text: string };

/** Where the chat stands when the line is typed. */
export interface ChatPosition {
  taskId: string | undefined;
  /** The answers to the pending question, picked by number. */
  answers: readonly string[];
  /** Tool calls wait for approval: `/reject` refuses them rather than a criterion. */
  awaitingApproval: boolean;
}

const needsTask = (command: string): ChatAction => ({
  kind: 'hint',
  text: `no task yet: say something first, then ${command}`,
});

const BUDGET_LIMITS = new Set(['usd', 'input_tokens', 'output_tokens', 'model_calls']);

/**
 * `usd=5 model_calls=40` as a budget; undefined when empty or any word is not a limit with a
 * positive number (the agent holds the numbers to its schema: whole tokens and calls).
 */
const budgetOf = (words: readonly string[]): Record<string, number> | undefined => {
  if (words.length === 0) return undefined;
  const budget: Record<string, number> = {};
  for (const word of words) {
    const [limit = '', value = '', ...extra] = word.split('=');
    const amount = Number(value.replace(/^\$/, ''));
    if (!BUDGET_LIMITS.has(limit) || extra.length > 0 || value === '' || !(amount > 0)) {
      return undefined;
    }
    budget[limit] = amount;
  }
  return budget;
};

const FORK_USAGE =
  '/fork takes a message id or before-turn <n>: /fork, /fork <message id>, /fork before-turn 2 (/history lists the ids)';

/** `/fork`'s words as a point: none (now), a message id, or `before-turn N`. */
const forkPointOf = (words: readonly string[]): HistoryPointRequest | undefined => {
  const [first, second, ...extra] = words;
  if (first === undefined) return {};
  if (first === 'before-turn') {
    const turn = Number(second);
    return extra.length === 0 && Number.isInteger(turn) && turn >= 1
      ? { beforeTurn: turn }
      : undefined;
  }
  return second === undefined ? { messageId: first } : undefined;
};

/** What `line` asks for, from where the chat stands. */
export function chatActionOf(line: string, position: ChatPosition): ChatAction {
  const text = line.trim();
  if (text === '') return { kind: 'nothing' };
  const { taskId } = position;
  if (!text.startsWith('/')) {
    const picked = /^\d+$/.test(text) ? position.answers[Number(text) - 1] : undefined;
    return { kind: 'send', message: textTo(taskId, picked ?? text) };
  }
  const [command = '', ...rest] = text.split(/\s+/);
  const argument = text.slice(command.length).trim();
  const sending = (message: Message): ChatAction => ({ kind: 'send', message });
  switch (command) {
    case '/help':
      return { kind: 'help' };
    case '/quit':
    case '/exit':
      return { kind: 'leave' };
    case '/sub-task':
      if (argument === '') {
        return { kind: 'hint', text: '/sub-task needs a description: /sub-task <what it is for>' };
      }
      return { kind: 'send', message: subTaskTo(taskId, argument) };
    case '/plan':
    case '/audit':
    case '/history':
      if (taskId === undefined) return needsTask(command);
      return { kind: 'show', pane: command.slice(1) as 'plan' | 'audit' | 'history', taskId };
    case '/fork': {
      const point = forkPointOf(rest);
      if (point === undefined) return { kind: 'hint', text: FORK_USAGE };
      if (taskId === undefined) return needsTask(command);
      return { kind: 'fork', taskId, point };
    }
    case '/approve':
      // The agent says whether a call waits (approval.not_pending): the view may be behind.
      if (taskId === undefined) return needsTask(command);
      return sending(
        controlTo(taskId, { action: 'approve', ...(argument === '' ? {} : { reason: argument }) })
      );
    case '/reject': {
      if (position.awaitingApproval) {
        if (taskId === undefined) return needsTask(command);
        return sending(
          controlTo(taskId, { action: 'reject', ...(argument === '' ? {} : { reason: argument }) })
        );
      }
      if (rest.length < 2) {
        return {
          kind: 'hint',
          text: '/reject needs a criterion and a reason: /reject c2 the figures are wrong',
        };
      }
      if (taskId === undefined) return needsTask(command);
      const [criterion = '', ...reason] = rest;
      return sending(
        controlTo(taskId, { action: 'reject_criterion', criterion, reason: reason.join(' ') })
      );
    }
    case '/complete':
    case '/cancel': {
      if (taskId === undefined) return needsTask(command);
      const reason = rest.join(' ');
      return sending(
        controlTo(taskId, {
          action: command === '/complete' ? 'complete' : 'cancel',
          ...(reason ? { reason } : {}),
        })
      );
    }
    case '/budget': {
      const budget = budgetOf(rest);
      if (budget === undefined) {
        return {
          kind: 'hint',
          text: '/budget needs limits as <limit>=<number>: /budget usd=5 model_calls=40 (usd, input_tokens, output_tokens, model_calls)',
        };
      }
      if (taskId === undefined) return needsTask(command);
      return sending(controlTo(taskId, { action: 'set_budget', budget }));
    }
    default:
      return { kind: 'hint', text: `unknown command ${command}: /help lists them` };
  }
}
