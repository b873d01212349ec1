/**
 * `tiny-harness chat`: a conversation in a plain terminal. The agent's replies, a pending
 * question with its options, the Task and Plan panes printed when they change, progress while
 * the agent works; slash commands for the rest. Ctrl-C stops waiting for a turn (the task goes
 * on); at the prompt, it leaves (the task goes on too).
 */
import { clearLine, createInterface, cursorTo } from 'node:readline';
import { type Message, Role } from '@a2a-js/sdk';
import { followTask, viewsOf } from '../../view/follow.js';
import { isAwaitingApproval, questionOf } from '../../view/labels.js';
import { controlTo, messageText, subTaskTo, textTo } from '../../view/messages.js';
import { isTerminal, type TaskView } from '../../view/task-view.js';
import { type Agent, CliError, describeError } from '../connection.js';
import type { Output } from '../output.js';
import {
  approvalPrompt,
  criteriaText,
  renderPlan,
  renderTask,
  renderTimeline,
  rowLabel,
  stateLabel,
  stateText,
} from '../render.js';
import { taskView } from '../task-view.js';

export const CHAT_HELP = [
  'Type a message and press Enter. Commands:',
  '  /plan                 show the plan',
  '  /audit                show the timeline of this task and its sub-tasks',
  '  /sub-task <text>      start a sub-task (a conversation of its own) with <text> as its goal',
  '  /complete [reason]    complete the task (accepting any criterion still unmet)',
  '  /reject <criterion> <reason>  find a met acceptance criterion unmet (reporters and admins)',
  '  /approve [reason]     let the tool calls waiting for approval run (approvers only)',
  '  /reject [reason]      while tool calls wait for approval: refuse them; they never run',
  '  /cancel [reason]      cancel the task',
  '  /help                 this list',
  '  /quit                 leave (the task goes on; `tiny-harness chat --task ID` comes back)',
  'Ctrl-C while the agent works stops waiting for that turn; the task goes on.',
].join('\n');

/**
 * The view with no sub-task row back in `submitted` once it was seen past it: a task is submitted
 * only before its first turn, so such a row comes from a snapshot of the parent older than the
 * one shown (a stream's Task event stamped with the same status time), and would print the row's
 * state as changing back and forth.
 */
const withRowsNotBehind = (before: TaskView, next: TaskView): TaskView => ({
  ...next,
  sub_tasks: next.sub_tasks.map((row) => {
    const old = before.sub_tasks.find((seen) => seen.task_id === row.task_id);
    return old !== undefined &&
      row.state === 'TASK_STATE_SUBMITTED' &&
      old.state !== 'TASK_STATE_SUBMITTED'
      ? old
      : row;
  }),
});

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export const chat = (
  agent: Agent,
  output: Output,
  options: { taskId?: string | undefined; input?: NodeJS.ReadableStream }
): Promise<number> =>
  new Promise((finish) => {
    const { c } = output;
    const input = options.input ?? process.stdin;
    const terminal = output.tty && (input as { isTTY?: boolean }).isTTY === true;
    const rl = createInterface({ input, output: output.out, terminal, prompt: c.bold('you › ') });
    let taskId = options.taskId;
    let view: TaskView | undefined;
    const printed = { task: '', plan: '' };
    let answers: string[] = [];
    let busy = false;
    let closing = false;
    let done = false;
    let turn: AbortController | undefined;
    let idle: AbortController | undefined;
    const queue: string[] = [];
    let spinner:
      | { timer: NodeJS.Timeout; started: number; note: string; frame: number }
      | undefined;

    const clearSpinnerLine = () => {
      if (spinner !== undefined && terminal) {
        clearLine(output.out, 0);
        cursorTo(output.out, 0);
      }
    };
    const print = (text: string) => {
      if (terminal) {
        clearLine(output.out, 0);
        cursorTo(output.out, 0);
      }
      output.out.write(`${text}\n`);
      if (terminal && !busy && !closing) rl.prompt(true);
    };
    const startSpinner = () => {
      if (!terminal) return;
      const started = Date.now();
      spinner = {
        started,
        note: '',
        frame: 0,
        timer: setInterval(() => {
          if (spinner === undefined) return;
          spinner.frame++;
          clearSpinnerLine();
          const seconds = Math.floor((Date.now() - spinner.started) / 1000);
          output.out.write(
            c.dim(
              `${SPINNER[spinner.frame % SPINNER.length]} working ${seconds}s${spinner.note ? ` · ${spinner.note}` : ''}  (Ctrl-C stops waiting)`
            )
          );
        }, 120),
      };
    };
    const stopSpinner = () => {
      if (spinner === undefined) return;
      clearInterval(spinner.timer);
      clearSpinnerLine();
      spinner = undefined;
    };

    /** Only rows' states moved: one line per row says so, instead of the whole pane again. */
    const rowChanges = (before: TaskView | undefined, next: TaskView): string[] | undefined => {
      if (before === undefined || printed.task === '') return undefined;
      const rows = (v: TaskView) => v.sub_tasks.map((row) => row.task_id).join(',');
      const rest = (v: TaskView) =>
        renderTask(
          {
            ...v,
            sub_tasks: v.sub_tasks.map((row) => ({
              ...row,
              state: '',
              sub_state: null,
              criteria: null,
            })),
          },
          c,
          { state: false }
        );
      if (rows(before) !== rows(next) || rest(before) !== rest(next)) return undefined;
      return next.sub_tasks.flatMap((row, index) => {
        const old = before.sub_tasks[index];
        if (old?.state === row.state && old.sub_state === row.sub_state) {
          if (criteriaText(old) === criteriaText(row)) return [];
          return [`${c.dim('sub-task')} ${rowLabel(row)}${criteriaText(row)} met`];
        }
        return [
          `${c.dim('sub-task')} ${rowLabel(row)} ${c.dim('is now')} ${stateText(c, row.state, row.sub_state)}${criteriaText(row)}`,
        ];
      });
    };

    const showPanes = (before: TaskView | undefined, next: TaskView) => {
      const task = renderTask(next, c, { state: false });
      if (task !== printed.task) {
        const changes = rowChanges(before, next);
        if (changes === undefined) print(task);
        else for (const line of changes) print(line);
        printed.task = task;
        if (before !== undefined) {
          for (const row of next.sub_tasks) {
            if (before.sub_tasks.some((old) => old.task_id === row.task_id)) continue;
            if (row.agent !== null) continue;
            print(
              c.dim(
                `sub-task ${row.task_id} started: \`npx tiny-harness chat --task ${row.task_id}\` talks to it`
              )
            );
          }
        }
      }
      if (!next.extension) return;
      const plan = renderPlan(next, c);
      if (plan !== printed.plan && next.plan !== null) {
        print(plan);
        printed.plan = plan;
      }
    };
    const showStatus = (next: TaskView, before: TaskView | undefined) => {
      const changed =
        before === undefined ||
        before.state !== next.state ||
        before.sub_state !== next.sub_state ||
        before.status_text !== next.status_text;
      if (!changed) return;
      if (next.state === 'TASK_STATE_WORKING') {
        if (next.status_text !== '') {
          if (spinner !== undefined) spinner.note = next.status_text;
          print(c.dim(`… ${next.status_text}`));
        }
        return;
      }
      if (next.state === 'TASK_STATE_INPUT_REQUIRED' && next.sub_state === 'awaiting-answer') {
        const { question, options } = questionOf(next.status_text);
        answers = options;
        print(`${c.yellow('agent asks ›')} ${question}`);
        answers.forEach((answer, index) => {
          print(`  ${index + 1}) ${answer}`);
        });
        if (answers.length > 0) print(c.dim('  (answer with a number or in your own words)'));
        return;
      }
      answers = [];
      if (isAwaitingApproval(next)) {
        const { calls, until } = approvalPrompt(next.status_text);
        print(`${c.yellow('agent asks for approval ›')} ${calls}`);
        print(
          c.dim(
            `  (/approve [reason] or /reject [reason]: for every call waiting${until === undefined ? '' : `; unanswered by ${until}, a call is rejected`})`
          )
        );
        return;
      }
      if (next.state === 'TASK_STATE_INPUT_REQUIRED' && next.sub_state === 'awaiting-review') {
        print(`${c.yellow('agent asks for a review ›')} ${next.status_text}`);
        print(c.dim('  (reply, /reject <criterion> <reason>, or /complete to accept it as it is)'));
        return;
      }
      if (isTerminal(next)) {
        print(
          `${c.bold(`task ${stateLabel(next.state)}`)}${next.status_text === '' ? '' : `: ${next.status_text}`}`
        );
        return;
      }
      if (next.status_text !== '') print(`${c.green('agent ›')} ${next.status_text}`);
      else if (next.state === 'TASK_STATE_INPUT_REQUIRED')
        print(c.dim(`(${stateText(c, next.state, next.sub_state)})`));
    };
    const show = (shown: TaskView) => {
      const before = view;
      const next = before === undefined ? shown : withRowsNotBehind(before, shown);
      view = next;
      showPanes(before, next);
      showStatus(next, before);
    };

    const followWhileIdle = () => {
      if (done || taskId === undefined || view === undefined || isTerminal(view)) return;
      idle?.abort();
      const controller = new AbortController();
      idle = controller;
      const id = taskId;
      void (async () => {
        try {
          for await (const next of followTask(agent, id, controller.signal, { since: view })) {
            if (controller.signal.aborted) return;
            show(next);
            if (isTerminal(next)) {
              close();
              return;
            }
          }
        } catch (error) {
          if (error instanceof CliError) fail(error);
          else if (!controller.signal.aborted) print(c.red(describeError(error)));
        }
      })();
    };

    const leave = () => {
      if (done) return;
      done = true;
      idle?.abort();
      stopSpinner();
      if (taskId !== undefined && view !== undefined && !isTerminal(view)) {
        output.out.write(
          `${c.dim(`left the chat; task ${taskId} goes on: npx tiny-harness chat --task ${taskId}`)}\n`
        );
      }
      finish(0);
    };
    const close = () => {
      closing = true;
      if (!busy) {
        rl.close();
        leave();
      }
    };

    /**
     * A failure the conversation cannot go on from (the agent refuses the token, the task is not
     * there): one line on stderr, and the chat ends with 1, as every command's error does.
     */
    const fail = (error: unknown) => {
      if (done) return;
      done = true;
      idle?.abort();
      turn?.abort();
      stopSpinner();
      closing = true;
      rl.close();
      output.err.write(`tiny-harness: ${describeError(error)}\n`);
      finish(1);
    };

    /** After a control envelope: its outcome comes after the answer; wait for it (bounded). */
    const awaitOutcome = async () => {
      if (taskId === undefined || view === undefined || isTerminal(view)) return;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 30_000);
      const before = view;
      try {
        for await (const next of followTask(agent, taskId, controller.signal, { since: view })) {
          show(next);
          if (next.state !== before.state || next.status_text !== before.status_text) break;
        }
      } catch (error) {
        if (!controller.signal.aborted) print(c.red(describeError(error)));
      } finally {
        clearTimeout(timer);
        controller.abort();
      }
    };

    const send = async (message: Message, options: { control?: boolean } = {}) => {
      idle?.abort();
      busy = true;
      const controller = new AbortController();
      turn = controller;
      startSpinner();
      try {
        const stream = agent.client.sendMessageStream(
          { tenant: '', message, configuration: undefined, metadata: undefined },
          { signal: controller.signal }
        );
        // A first message starts a task: its stream's first event is the new task.
        const said = (text: string) => {
          if (text !== '') print(`${c.green('agent ›')} ${text}`);
        };
        const start = taskId === undefined ? undefined : view;
        for await (const next of viewsOf(agent, stream, start, said)) {
          if (taskId === undefined) {
            taskId = next.id;
            print(
              c.dim(
                `task ${next.id} started; \`tiny-harness chat --task ${next.id}\` comes back to it`
              )
            );
          }
          show(next);
        }
      } catch (error) {
        if (controller.signal.aborted) {
          stopSpinner();
          print(
            c.yellow(
              `stopped waiting for this turn; the task goes on${taskId === undefined ? '' : ' (/cancel cancels it)'}`
            )
          );
        } else if (error instanceof CliError) {
          fail(error);
        } else {
          stopSpinner();
          print(c.red(describeError(error)));
        }
      } finally {
        if (options.control === true && !controller.signal.aborted) await awaitOutcome();
        stopSpinner();
        busy = false;
        turn = undefined;
      }
      if (view !== undefined && isTerminal(view)) {
        closing = true;
      } else {
        followWhileIdle();
      }
    };

    const handle = async (line: string): Promise<void> => {
      const text = line.trim();
      if (text === '') return;
      if (!text.startsWith('/')) {
        const picked = /^\d+$/.test(text) ? answers[Number(text) - 1] : undefined;
        await send(textTo(taskId, picked ?? text));
        return;
      }
      const [command = '', ...rest] = text.split(/\s+/);
      const argument = text.slice(command.length).trim();
      switch (command) {
        case '/help':
          print(CHAT_HELP);
          return;
        case '/quit':
        case '/exit':
          close();
          return;
        case '/approve':
          // The agent says whether a call waits (approval.not_pending): the view may be behind.
          if (taskId === undefined) {
            print(c.yellow(`no task yet: say something first, then ${command}`));
            return;
          }
          break;
        case '/reject':
          if (view !== undefined && isAwaitingApproval(view)) break;
          if (rest.length < 2) {
            print(
              c.yellow('/reject needs a criterion and a reason: /reject c2 the figures are wrong')
            );
            return;
          }
          if (taskId === undefined) {
            print(c.yellow(`no task yet: say something first, then ${command}`));
            return;
          }
          break;
        case '/plan':
        case '/audit':
        case '/complete':
        case '/cancel':
          if (taskId === undefined) {
            print(c.yellow(`no task yet: say something first, then ${command}`));
            return;
          }
          break;
        case '/sub-task':
          if (argument === '') {
            print(c.yellow('/sub-task needs a description: /sub-task <what it is for>'));
            return;
          }
          await send(subTaskTo(taskId, argument));
          return;
        default:
          print(c.yellow(`unknown command ${command}: /help lists them`));
          return;
      }
      const id = taskId as string;
      try {
        if (command === '/plan') {
          const current = taskView(await agent.client.getTask({ tenant: '', id }));
          print(current.extension ? renderPlan(current, c) : 'this agent keeps no plan');
        } else if (command === '/audit') {
          print(renderTimeline(await agent.timeline(id, true), c));
        } else if (
          command === '/approve' ||
          (command === '/reject' && view !== undefined && isAwaitingApproval(view))
        ) {
          await send(
            controlTo(id, {
              action: command === '/approve' ? 'approve' : 'reject',
              ...(argument === '' ? {} : { reason: argument }),
            })
          );
        } else if (command === '/reject') {
          const [criterion = '', ...reason] = rest;
          await send(
            controlTo(id, { action: 'reject_criterion', criterion, reason: reason.join(' ') })
          );
        } else {
          const reason = rest.join(' ');
          await send(
            controlTo(id, {
              action: command === '/complete' ? 'complete' : 'cancel',
              ...(reason ? { reason } : {}),
            })
          );
        }
      } catch (error) {
        if (error instanceof CliError) fail(error);
        else print(c.red(describeError(error)));
      }
    };

    // Lines and the end of the input wait for the task to be read (`--task`): a piped chat whose
    // input ends at once still says that the task is not there.
    let ready: Promise<void> = Promise.resolve();
    const drain = async () => {
      await ready;
      while (queue.length > 0 && !done) {
        const line = queue.shift() as string;
        await handle(line);
        if (view !== undefined && isTerminal(view)) closing = true;
      }
      if (closing) {
        rl.close();
        leave();
      } else if (terminal) rl.prompt();
    };
    let draining: Promise<void> | undefined;
    rl.on('line', (line) => {
      queue.push(line);
      if (draining === undefined) {
        draining = drain().finally(() => {
          draining = undefined;
        });
      }
    });
    rl.on('SIGINT', () => {
      if (busy) turn?.abort();
      else close();
    });
    rl.on('close', () => {
      closing = true;
      if (draining === undefined && !busy) void ready.then(leave);
    });

    ready = (async () => {
      print(
        `${c.bold('tiny-harness chat')} · ${agent.card.name} at ${agent.connection.url}\n${c.dim('type a message; /help lists the commands')}`
      );
      if (taskId !== undefined) {
        try {
          const task = await agent.client.getTask({ tenant: '', id: taskId, historyLength: 6 });
          for (const message of task.history) {
            const said = messageText(message);
            if (said !== '')
              print(
                `${c.dim(message.role === Role.ROLE_USER ? 'you ›' : 'agent ›')} ${c.dim(said)}`
              );
          }
          show(taskView(task));
          followWhileIdle();
        } catch (error) {
          fail(error);
          return;
        }
      }
      if (terminal) rl.prompt();
    })();
  });
