/**
 * `tiny-harness chat`: a conversation in a plain terminal. The agent's replies, a pending
 * question with its options, the Task and Plan panes printed when they change, progress while
 * the agent works; slash commands for the rest. Ctrl-C stops waiting for a turn (the task goes
 * on); at the prompt, it leaves (the task goes on too).
 */
import { clearLine, createInterface, cursorTo, type Interface } from 'node:readline';
import { type Message, Role } from '@a2a-js/sdk';
import { followTask, viewsOf } from '../../view/follow.js';
import type { HistoryPointRequest } from '../../view/fork.js';
import { isAwaitingApproval } from '../../view/labels.js';
import { messageText } from '../../view/messages.js';
import { isTerminal, type TaskView } from '../../view/task-view.js';
import { CHAT_HELP, type ChatAction, chatActionOf } from '../chat/commands.js';
import { type PrintedPanes, paneLines, statusLines, withRowsNotBehind } from '../chat/panes.js';
import { Spinner } from '../chat/spinner.js';
import { type Agent, CliError, describeError } from '../connection.js';
import { resolvePoint } from '../history-point.js';
import type { Output } from '../output.js';
import { renderHistory, renderPlan, renderTimeline } from '../render.js';
import { taskView } from '../task-view.js';
import { forkedLine } from './fork.js';

/**
 * One chat: its task (once it has one), the view last shown, and the turn it waits for. Lines
 * are taken one at a time; while the agent works, nothing is prompted for, and between turns the
 * task is followed, so what others do to it is shown too.
 */
class ChatSession {
  readonly #agent: Agent;
  readonly #output: Output;
  readonly #rl: Interface;
  readonly #terminal: boolean;
  readonly #spinner: Spinner;
  readonly #finish: (code: number) => void;
  #taskId: string | undefined;
  #view: TaskView | undefined;
  #printed: PrintedPanes = { task: '', plan: '' };
  #answers: string[] = [];
  /** A turn is being waited for: no prompt, and Ctrl-C stops the wait. */
  #busy = false;
  /** The chat ends once the line in hand is done. */
  #closing = false;
  #done = false;
  #turn: AbortController | undefined;
  #idle: AbortController | undefined;
  readonly #queue: string[] = [];
  #draining: Promise<void> | undefined;
  // Lines and the end of the input wait for the task to be read (`--task`): a piped chat whose
  // input ends at once still says that the task is not there.
  #ready: Promise<void> = Promise.resolve();

  constructor(
    agent: Agent,
    output: Output,
    options: { taskId?: string | undefined; input?: NodeJS.ReadableStream },
    finish: (code: number) => void
  ) {
    this.#agent = agent;
    this.#output = output;
    this.#finish = finish;
    this.#taskId = options.taskId;
    const input = options.input ?? process.stdin;
    this.#terminal = output.tty && (input as { isTTY?: boolean }).isTTY === true;
    this.#spinner = new Spinner(output.out, this.#terminal, output.c);
    this.#rl = createInterface({
      input,
      output: output.out,
      terminal: this.#terminal,
      prompt: output.c.bold('you › '),
    });
  }

  /** Greets, shows the task it continues (if any), then takes lines until it ends. */
  begin(): void {
    this.#rl.on('line', (line) => {
      this.#queue.push(line);
      if (this.#draining === undefined) {
        this.#draining = this.#drain().finally(() => {
          this.#draining = undefined;
        });
      }
    });
    this.#rl.on('SIGINT', () => {
      if (this.#busy) this.#turn?.abort();
      else this.#close();
    });
    this.#rl.on('close', () => {
      this.#closing = true;
      if (this.#draining === undefined && !this.#busy) void this.#ready.then(() => this.#leave());
    });
    this.#ready = this.#greet();
  }

  async #greet(): Promise<void> {
    const { c } = this.#output;
    this.#print(
      `${c.bold('tiny-harness chat')} · ${this.#agent.card.name} at ${this.#agent.connection.url}\n${c.dim('type a message; /help lists the commands')}`
    );
    if (this.#taskId !== undefined) {
      try {
        const task = await this.#agent.client.getTask({
          tenant: '',
          id: this.#taskId,
          historyLength: 6,
        });
        for (const message of task.history) {
          const said = messageText(message);
          if (said === '') continue;
          const who = message.role === Role.ROLE_USER ? 'you ›' : 'agent ›';
          this.#print(`${c.dim(who)} ${c.dim(said)}`);
        }
        this.#show(taskView(task));
        this.#followWhileIdle();
      } catch (error) {
        this.#fail(error);
        return;
      }
    }
    if (this.#terminal) this.#rl.prompt();
  }

  #print(text: string): void {
    if (this.#terminal) {
      clearLine(this.#output.out, 0);
      cursorTo(this.#output.out, 0);
    }
    this.#output.out.write(`${text}\n`);
    if (this.#terminal && !this.#busy && !this.#closing) this.#rl.prompt(true);
  }

  #show(shown: TaskView): void {
    const before = this.#view;
    const next = before === undefined ? shown : withRowsNotBehind(before, shown);
    this.#view = next;
    const panes = paneLines(before, next, this.#printed, this.#output.c);
    this.#printed = panes.printed;
    const status = statusLines(next, before, this.#output.c);
    if (status.answers !== undefined) this.#answers = status.answers;
    if (status.note !== undefined && this.#spinner.running) this.#spinner.note = status.note;
    for (const line of [...panes.lines, ...status.lines]) this.#print(line);
  }

  #ended(): boolean {
    return this.#view !== undefined && isTerminal(this.#view);
  }

  /** Between turns, what happens to the task (another participant, a child) is shown. */
  #followWhileIdle(): void {
    const taskId = this.#taskId;
    if (this.#done || taskId === undefined || this.#view === undefined || this.#ended()) return;
    this.#idle?.abort();
    const controller = new AbortController();
    this.#idle = controller;
    void (async () => {
      try {
        for await (const next of followTask(this.#agent, taskId, controller.signal, {
          since: this.#view,
        })) {
          if (controller.signal.aborted) return;
          this.#show(next);
          if (isTerminal(next)) {
            this.#close();
            return;
          }
        }
      } catch (error) {
        if (error instanceof CliError) this.#fail(error);
        else if (!controller.signal.aborted) this.#print(this.#output.c.red(describeError(error)));
      }
    })();
  }

  #leave(): void {
    if (this.#done) return;
    this.#done = true;
    this.#idle?.abort();
    this.#spinner.stop();
    const taskId = this.#taskId;
    if (taskId !== undefined && this.#view !== undefined && !this.#ended()) {
      this.#output.out.write(
        `${this.#output.c.dim(`left the chat; task ${taskId} goes on: npx tiny-harness chat --task ${taskId}`)}\n`
      );
    }
    this.#finish(0);
  }

  #close(): void {
    this.#closing = true;
    if (!this.#busy) {
      this.#rl.close();
      this.#leave();
    }
  }

  /**
   * A failure the conversation cannot go on from (the agent refuses the token, the task is not
   * there): one line on stderr, and the chat ends with 1, as every command's error does.
   */
  #fail(error: unknown): void {
    if (this.#done) return;
    this.#done = true;
    this.#idle?.abort();
    this.#turn?.abort();
    this.#spinner.stop();
    this.#closing = true;
    this.#rl.close();
    this.#output.err.write(`tiny-harness: ${describeError(error)}\n`);
    this.#finish(1);
  }

  /** Sends `message` and shows the turn it starts until the task pauses or ends. */
  async #send(message: Message): Promise<void> {
    const { c } = this.#output;
    this.#idle?.abort();
    this.#busy = true;
    const controller = new AbortController();
    this.#turn = controller;
    this.#spinner.start();
    try {
      const stream = this.#agent.client.sendMessageStream(
        { tenant: '', message, configuration: undefined, metadata: undefined },
        { signal: controller.signal }
      );
      const said = (text: string) => {
        if (text !== '') this.#print(`${c.green('agent ›')} ${text}`);
      };
      const start = this.#taskId === undefined ? undefined : this.#view;
      for await (const next of viewsOf(this.#agent, stream, start, said)) {
        // A first message starts a task: its stream's first event is the new task.
        if (this.#taskId === undefined) {
          this.#taskId = next.id;
          this.#print(
            c.dim(
              `task ${next.id} started; \`tiny-harness chat --task ${next.id}\` comes back to it`
            )
          );
        }
        this.#show(next);
      }
    } catch (error) {
      if (controller.signal.aborted) {
        this.#spinner.stop();
        this.#print(
          c.yellow(
            `stopped waiting for this turn; the task goes on${this.#taskId === undefined ? '' : ' (/cancel cancels it)'}`
          )
        );
      } else if (error instanceof CliError) {
        this.#fail(error);
      } else {
        this.#spinner.stop();
        this.#print(c.red(describeError(error)));
      }
    } finally {
      this.#spinner.stop();
      this.#busy = false;
      this.#turn = undefined;
    }
    if (this.#ended()) this.#closing = true;
    else this.#followWhileIdle();
  }

  /** Shows the plan, the audit timeline or the conversation, as the agent has them now. */
  async #showPane(pane: 'plan' | 'audit' | 'history', taskId: string): Promise<void> {
    const { c } = this.#output;
    if (pane === 'audit') {
      this.#print(renderTimeline(await this.#agent.timeline(taskId, true), c));
      return;
    }
    const task = await this.#agent.client.getTask({ tenant: '', id: taskId });
    if (pane === 'history') {
      this.#print(renderHistory(task.history, c).join('\n'));
      return;
    }
    const current = taskView(task);
    this.#print(current.extension ? renderPlan(current, c) : 'this agent keeps no plan');
  }

  /**
   * Forks the task at `point` and goes on with the fork: its panes print afresh, and it is the
   * fork that is followed and written to from now on. The original goes on as it was.
   */
  async #fork(taskId: string, point: HistoryPointRequest): Promise<void> {
    const { c } = this.#output;
    const resolved = await resolvePoint(this.#agent, taskId, point);
    const fork = await this.#agent.fork({ taskId, point: resolved });
    this.#idle?.abort();
    this.#taskId = fork.id;
    this.#view = undefined;
    this.#printed = { task: '', plan: '' };
    this.#answers = [];
    this.#print(c.bold(forkedLine(fork.id, { taskId, point: resolved }, fork.metadata)));
    this.#print(
      c.dim(
        `this chat now talks to the fork; \`npx tiny-harness chat --task ${taskId}\` goes back to the original`
      )
    );
    const last = fork.history.at(-1);
    if (last !== undefined && messageText(last) !== '') {
      const who = last.role === Role.ROLE_USER ? 'you ›' : 'agent ›';
      this.#print(`${c.dim(who)} ${c.dim(messageText(last))}`);
    }
    this.#show(taskView(fork));
    this.#followWhileIdle();
  }

  async #do(action: ChatAction): Promise<void> {
    switch (action.kind) {
      case 'nothing':
        return;
      case 'help':
        this.#print(CHAT_HELP);
        return;
      case 'leave':
        this.#close();
        return;
      case 'hint':
        this.#print(this.#output.c.yellow(action.text));
        return;
      case 'send':
        await this.#send(action.message);
        return;
      case 'show':
      case 'fork':
        try {
          if (action.kind === 'show') await this.#showPane(action.pane, action.taskId);
          else await this.#fork(action.taskId, action.point);
        } catch (error) {
          if (error instanceof CliError) this.#fail(error);
          else this.#print(this.#output.c.red(describeError(error)));
        }
    }
  }

  async #drain(): Promise<void> {
    await this.#ready;
    while (this.#queue.length > 0 && !this.#done) {
      const line = this.#queue.shift() as string;
      await this.#do(
        chatActionOf(line, {
          taskId: this.#taskId,
          answers: this.#answers,
          awaitingApproval: this.#view !== undefined && isAwaitingApproval(this.#view),
        })
      );
      if (this.#ended()) this.#closing = true;
    }
    if (this.#closing) {
      this.#rl.close();
      this.#leave();
    } else if (this.#terminal) this.#rl.prompt();
  }
}

export function chat(
  agent: Agent,
  output: Output,
  options: { taskId?: string | undefined; input?: NodeJS.ReadableStream }
): Promise<number> {
  return new Promise((finish) => new ChatSession(agent, output, options, finish).begin());
}
