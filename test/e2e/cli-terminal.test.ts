import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../functions/core/testing/scripted-model.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { BIN, cliEnv, ROOT } from '../support/cli.js';
import { startStack } from '../support/local-stack.js';
import { PerTaskModel } from '../support/per-task-model.js';
import { Terminal } from '../support/tmux.js';

const ESC = String.fromCharCode(27);

/**
 * What a snapshot keeps of a screen: ids and the port differ on every run, so they are named by
 * order of appearance; a new sub-task's first states race its parent's pane (submitted, then
 * parked a few milliseconds later), so those are left out (the test checks its end itself).
 */
const normalized = (screen: string) => {
  const ids = new Map<string, string>();
  return screen
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>')
    .replace(/^sub-task \S+ is now (submitted|input-required.*)\n/gm, '')
    .replace(/^ {4}\S (\S+) {2}(submitted|input-required.*)$/gm, '    · $1  <new>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
      if (!ids.has(id)) ids.set(id, `<task-${ids.size + 1}>`);
      return ids.get(id) as string;
    });
};

/** `tiny-harness ARGS` in a terminal of its own, as `you` on `stack`. */
const openTerminal = (
  stack: LocalStack,
  name: string,
  args: string[],
  extra: Record<string, string> = {}
) => {
  const env = cliEnv(stack, 'you');
  return new Terminal({
    name,
    cwd: ROOT,
    command: [process.execPath, BIN, ...args],
    env: {
      TINY_HARNESS_URL: env.TINY_HARNESS_URL as string,
      TINY_HARNESS_TOKEN: env.TINY_HARNESS_TOKEN as string,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...extra,
    },
  });
};

describe('tiny-harness chat in a terminal, as a person uses it', () => {
  let releaseSlowTurn: () => void = () => undefined;
  const slowTurn = new Promise<void>((done) => {
    releaseSlowTurn = done;
  });
  const model = new PerTaskModel([
    {
      replies: [
        {
          toolCalls: [
            {
              name: 'create_plan',
              arguments: {
                steps: [
                  { name: 'Flights', description: 'book the flights' },
                  { name: 'Hotel', description: 'book a ryokan', depends_on: ['Flights'] },
                ],
              },
            },
          ],
        },
        {
          toolCalls: [
            {
              name: 'ask_participant',
              arguments: {
                participant_id: 'you',
                question: 'Which month?',
                options: ['April', 'October'],
              },
            },
          ],
        },
        {
          toolCalls: [
            { name: 'complete_step', arguments: { step: 'Flights', output: 'booked for October' } },
          ],
        },
        { text: 'Flights booked for October; the hotel is next.' },
        { text: 'Noted: the ryokan is found.' },
        { text: 'Yes, still here.' },
      ],
      holds: { 5: slowTurn },
    },
    { replies: [{ text: 'On it.' }] },
  ]);
  let stack: LocalStack;
  const terminals: Terminal[] = [];
  const terminal = (name: string, args: string[], extra: Record<string, string> = {}) => {
    const opened = openTerminal(stack, name, args, extra);
    terminals.push(opened);
    return opened;
  };

  beforeAll(async () => {
    // Two terminals of one caller each follow a task and send on it, under the default cap of 4
    // streams: a stream whose client gave up before it was answered once kept its lease for good
    // (test/local/http-shim-streams.test.ts), which a loaded host turned into 429s here.
    stack = await startStack({ model });
  });
  afterAll(async () => {
    for (const opened of terminals) opened.close();
    await stack?.close();
  });

  it('plans, asks, takes an answer by number, shows a sub-task finished elsewhere, survives Ctrl-C, and completes', async () => {
    const chat = terminal('chat', ['chat']);
    await chat.waitFor(/type a message; \/help lists the commands\n+you ›/);

    chat.type('Plan a trip to Kyoto');
    let screen = await chat.waitFor(/2\) October[\s\S]*you ›\s*$/);
    expect(screen).toContain(
      'Plan · 2 steps\n  1. ○ Flights\n  2. ○ Hotel\n       depends on Flights'
    );
    expect(screen).toContain('agent asks › Which month?\n  1) April\n  2) October');
    await expect(normalized(screen)).toMatchFileSnapshot('__snapshots__/chat-1-question.txt');
    // Colours on a terminal.
    expect(chat.screen({ colors: true }).includes(`${ESC}[`)).toBe(true);

    chat.type('2');
    screen = await chat.waitFor(/Flights booked for October; the hotel is next\.\n+you ›\s*$/);
    expect(screen).toContain('  1. ● Flights\n       → booked for October\n  2. ○ Hotel');

    // A new sub-task says how to talk to it.
    chat.type('/sub-task find a ryokan');
    const started = /sub-task (\S+) started: `npx tiny-harness chat --task \1` talks to it/;
    screen = await chat.waitFor(started);
    const child = started.exec(screen)?.[1] as string;
    expect(screen).toMatch(new RegExp(`sub-tasks\\n {4}\\S ${child} `));

    // Someone finishes the sub-task in another terminal; this chat sees its row and the reply.
    const other = terminal('child', ['chat', '--task', child]);
    await other.waitFor(/Task · find a ryokan[\s\S]*you ›\s*$/);
    other.type('/complete found one');
    await other.waitFor(/task completed: found one/);
    screen = await chat.waitFor(/Noted: the ryokan is found\.\n+you ›\s*$/);
    expect(screen).toMatch(new RegExp(`sub-task ${child} is now completed`));
    // Each state the child passed through, once: never back to submitted, never twice the same.
    const moves = screen.match(new RegExp(`^sub-task ${child} is now .*$`, 'gm')) ?? [];
    expect(moves.filter((line) => line.includes('is now submitted'))).toEqual([]);
    expect(new Set(moves).size).toBe(moves.length);

    // Ctrl-C stops waiting for a turn, not the task; the reply shows up when it comes.
    chat.type('are you there?');
    await chat.waitFor(/working \d+s/);
    chat.key('C-c');
    screen = await chat.waitFor(
      /stopped waiting for this turn; the task goes on \(\/cancel cancels it\)\n+you ›\s*$/
    );
    releaseSlowTurn();
    await chat.waitFor(/agent › Yes, still here\.\n+you ›\s*$/);

    chat.type('/complete trip planned');
    screen = await chat.waitFor(/task completed: trip planned\n+\[exited 0\]/);
    await expect(normalized(screen)).toMatchFileSnapshot('__snapshots__/chat-2-completed.txt');
  });

  it('shows no colour under NO_COLOR, even on a terminal', async () => {
    const plain = terminal('plain', ['tasks'], { NO_COLOR: '1' });
    await plain.waitFor(/\[exited 0\]/);
    expect(plain.screen({ colors: true }).includes(`${ESC}[`)).toBe(false);
    expect(plain.screen()).toMatch(/completed/);
  });

  it('redraws watch in place on a terminal: one frame, not a line per change', async () => {
    const watch = terminal('watch', ['watch', (await firstTask(stack)) ?? 'none']);
    const screen = await watch.waitFor(/\[exited 0\]/);
    expect(screen.match(/Task · Plan a trip to Kyoto/g)).toHaveLength(1);
    expect(screen).toContain('Plan · 2 steps');
  });
});

/**
 * A deployment whose tasks may make one model call each (TINY_HARNESS_DEFAULT_BUDGET): the chat
 * says when a turn stops at the budget and `/budget` raises it; `watch` shows what the task's tree
 * has spent of it, read when it starts.
 */
describe('a budget in the chat, in a terminal', () => {
  const model = new ScriptedModel([{ text: 'The first answer.' }, { text: 'The second answer.' }]);
  let stack: LocalStack;
  const terminals: Terminal[] = [];
  const terminal = (name: string, args: string[]) => {
    const opened = openTerminal(stack, name, args);
    terminals.push(opened);
    return opened;
  };
  /** The budget line of `tiny-harness watch ID`'s first frame; its terminal is then closed. */
  const watchedBudget = async (taskId: string, name: string) => {
    const watch = openTerminal(stack, name, ['watch', taskId]);
    try {
      const screen = await watch.waitFor(/^ {2}budget {2}.*$/m);
      return /^ {2}budget {2}(.*)$/m.exec(screen)?.[1];
    } finally {
      watch.close();
    }
  };

  beforeAll(async () => {
    stack = await startStack({
      model,
      env: { TINY_HARNESS_DEFAULT_BUDGET: JSON.stringify({ '*': { model_calls: 1 } }) },
    });
  });
  afterAll(async () => {
    for (const opened of terminals) opened.close();
    await stack?.close();
  });

  it('stops a turn at the budget, shows what was spent, and /budget raises it so the turn goes on', async () => {
    const chat = terminal('budget', ['chat']);
    await chat.waitFor(/type a message; \/help lists the commands\n+you ›/);

    chat.type('Say two things');
    let screen = await chat.waitFor(/agent › The first answer\.\n+you ›\s*$/);
    expect(screen).toMatch(/^ {2}budget {2}model calls \d+ of 1 spent$/m);
    const taskId = /task (\S+) started;/.exec(screen)?.[1] as string;

    chat.type('and the second?');
    screen = await chat.waitFor(/\(\/budget <limit>=<n> to raise it[^\n]*\n+you ›\s*$/);
    expect(screen).toContain(
      'agent stopped at its budget › The budget is reached: the next model call could exceed it, so it was not made.\n- model calls: spent 1 of 1;'
    );
    expect(screen).not.toContain('The second answer.');
    expect(model.requests).toHaveLength(1);
    // The chat's Task pane is not printed again for a change of spend alone: `watch` reads it.
    await expect(watchedBudget(taskId, 'budget-watch-1')).resolves.toBe('model calls 1 of 1 spent');

    chat.type('/budget model_calls=2');
    screen = await chat.waitFor(/agent › The second answer\.\n+you ›\s*$/);
    expect(screen).toMatch(/^ {2}budget {2}model calls \d+ of 2 spent$/m);
    expect(model.requests).toHaveLength(2);
    await expect(watchedBudget(taskId, 'budget-watch-2')).resolves.toBe('model calls 2 of 2 spent');

    // Ended, the task ends the streams that follow it (the closed watches' too) before the stack
    // closes.
    chat.type('/complete said both');
    await chat.waitFor(/task completed: said both\n+\[exited 0\]/);
  });
});

/**
 * Forks, as a person makes them: `tiny-harness fork` from a point of a task's history (the fork
 * takes its turn on the message given), and `/fork` in the chat, which moves the chat to the fork
 * while the original stays as it was.
 */
describe('forks, in a terminal', () => {
  const model = new ScriptedModel([
    { text: 'Both are lovely. Which one?' },
    { text: 'Porto it is.' },
  ]);
  let stack: LocalStack;
  const terminals: Terminal[] = [];
  const terminal = (name: string, args: string[]) => {
    const opened = openTerminal(stack, name, args);
    terminals.push(opened);
    return opened;
  };

  beforeAll(async () => {
    stack = await startStack({ model });
  });
  afterAll(async () => {
    for (const opened of terminals) opened.close();
    await stack?.close();
  });

  it('forks before a turn with `fork`, and with /fork moves the chat to a fork of its task', async () => {
    const chat = terminal('fork-chat', ['chat']);
    await chat.waitFor(/type a message; \/help lists the commands\n+you ›/);
    chat.type('Lisbon or Porto?');
    let screen = await chat.waitFor(/agent › Both are lovely\. Which one\?\n+you ›\s*$/);
    const taskId = /task (\S+) started;/.exec(screen)?.[1] as string;
    chat.type('Porto, then');
    await chat.waitFor(/agent › Porto it is\.\n+you ›\s*$/);

    // `fork` in a terminal of its own: the fork takes a turn on its message, and prints it.
    model.push({ text: 'Lisbon it is.' });
    const fork = terminal('fork', [
      'fork',
      taskId.slice(0, 8),
      '--before-turn',
      '2',
      '--message',
      'Lisbon, then',
    ]);
    screen = await fork.waitFor(/\[exited \d+\]/);
    const forked = new RegExp(
      `^task (\\S+) forked from ${taskId} just before turn 2: its history through message ${taskId}:history:\\d+$`,
      'm'
    );
    expect(screen).toMatch(forked);
    const forkId = forked.exec(screen)?.[1] as string;
    expect(screen).toContain(
      'Task · Lisbon or Porto? (fork)  input-required (awaiting-next-message)'
    );
    expect(screen).toMatch(/^input-required \(awaiting-next-message\) {2}Lisbon it is\.$/m);
    expect(screen).toContain(`\`npx tiny-harness chat --task ${forkId}\` talks to it`);
    expect(screen).toContain('[exited 0]');

    // The chat lists the message ids; /fork at the first message moves the chat to a fork.
    chat.type('/history');
    screen = await chat.waitFor(
      /History · 4 messages[\s\S]*agent › Porto it is\. {2}· \S+\n+you ›\s*$/
    );
    const first = /^ {2}you › Lisbon or Porto\? {2}· (\S+)$/m.exec(screen)?.[1] as string;
    // A point the history does not hold is refused in the conversation, which goes on.
    chat.type('/fork no-such-message');
    await chat.waitFor(
      new RegExp(`task ${taskId} has no message no-such-message in its history.*\\n+you ›\\s*$`)
    );
    chat.type(`/fork ${first.slice(0, 8)}`);
    screen = await chat.waitFor(/goes back to the original\n[\s\S]*you ›\s*$/);
    const moved = new RegExp(`^task (\\S+) forked from ${taskId} at message ${first}$`, 'm');
    expect(screen).toMatch(moved);
    const chatFork = moved.exec(screen)?.[1] as string;
    expect(chatFork).not.toBe(forkId);
    expect(screen).toContain(
      `this chat now talks to the fork; \`npx tiny-harness chat --task ${taskId}\` goes back to the original`
    );
    expect(screen).toMatch(new RegExp(`Task · Lisbon or Porto\\? \\(fork\\)\\n {2}id ${chatFork}`));

    // What is said now goes to the fork: the original hears none of it.
    model.push({ text: 'Madrid it is.' });
    chat.type('Madrid, then?');
    await chat.waitFor(/agent › Madrid it is\.\n+you ›\s*$/);
    chat.type('/quit');
    screen = await chat.waitFor(/\[exited 0\]/);
    expect(screen).toContain(`left the chat; task ${chatFork} goes on`);

    // The original is as it was: its four messages, none said to the forks.
    const show = terminal('fork-show', ['show', taskId]);
    screen = await show.waitFor(/\[exited 0\]/);
    expect(screen).toMatch(/History · 4 messages/);
    expect(screen).not.toContain('Madrid');
    expect(screen).not.toContain('Lisbon, then');
  });
});

const firstTask = async (stack: LocalStack) =>
  (await stack.runtime.loop.store.list({ participantId: 'you' })).find(
    (record) =>
      record.task.metadata?.['io.github.madarauchiha-314.tiny-harness/task'] !== undefined &&
      JSON.stringify(record.task.metadata).includes('Plan a trip to Kyoto')
  )?.task.id;
