/**
 * `tiny-harness`: the terminal renderer, a plain A2A client (docs/cli.md).
 *
 *   tiny-harness chat [--task ID]     a conversation
 *   tiny-harness tasks                your tasks
 *   tiny-harness watch ID             a task, its plan and its sub-tasks as they change
 *   tiny-harness audit ID             the auditor's timeline
 *   tiny-harness send ID TEXT         one message
 *   tiny-harness fork ID              a new task from a point in the task's history
 *   tiny-harness show ID              the task and its history (--at: as it was then)
 */
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { auditTask } from './commands/audit.js';
import { chat } from './commands/chat.js';
import { forkTask } from './commands/fork.js';
import { sendToTask } from './commands/send.js';
import { showTask } from './commands/show.js';
import { listTasks, STATE_FILTERS } from './commands/tasks.js';
import { watchTask } from './commands/watch.js';
import { type Agent, connect, describeError, resolveConnection } from './connection.js';
import { pointOf } from './history-point.js';
import { type Output, outputFor } from './output.js';
import { resolveTaskId } from './task-id.js';

/** The package's version, as `npm ci` installed it. */
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

interface GlobalOptions {
  url?: string;
  token?: string;
  dataDir?: string;
}

const positive = (value: string) => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError('a whole number ≥ 1');
  return parsed;
};

/** The agent refuses a longer name; said before anything is asked of it. */
const FORK_NAME_MAX = 200;

const forkName = (value: string) => {
  if (value.trim() === '') throw new InvalidArgumentError('a name, not blank');
  if (value.length > FORK_NAME_MAX)
    throw new InvalidArgumentError(`at most ${FORK_NAME_MAX} characters`);
  return value;
};

/** `--at MESSAGE` or `--before-turn N`, never both: the two ways to name a point. */
const pointOptions = (verb: string) => [
  new Option(
    '--at <message>',
    `${verb} just after this message (an id \`show\` lists, or its start)`
  ).conflicts('beforeTurn'),
  new Option('--before-turn <n>', `${verb} just before the agent's Nth turn (1: before its first)`)
    .argParser(positive)
    .conflicts('at'),
];

interface PointFlags {
  at?: string;
  beforeTurn?: number;
  json: boolean;
}

/**
 * Commander's "error: unknown option '--x'" as the CLI's one line, pointing at the help. Its
 * guess at what was meant ("(Did you mean fork?)", on a line of its own) joins that line.
 */
const usageError = (text: string): string => {
  const [mistake = '', ...rest] = text
    .trim()
    .replace(/^error: /, '')
    .split('\n');
  const meant = /\(Did you mean (.+)\?\)/.exec(rest.join(' '))?.[1];
  return `tiny-harness: ${mistake.trim()}${meant === undefined ? '' : `: did you mean ${meant}?`} (tiny-harness --help says how to call it)\n`;
};

export const program = (output: Output = outputFor()): Command => {
  const cli = new Command('tiny-harness')
    .description('Talk to a tiny-harness (or any A2A 1.0) agent from a terminal.')
    .version(VERSION, '--version', 'the version of tiny-harness')
    .option(
      '--url <url>',
      "the agent's A2A URL (default: the one `npm start` wrote; env TINY_HARNESS_URL)"
    )
    .option(
      '--token <token>',
      'bearer token (env TINY_HARNESS_TOKEN; default: the one `npm start` generated)'
    )
    .option(
      '--data-dir <dir>',
      "`npm start`'s data directory, where it wrote its URL and token",
      undefined
    )
    .configureOutput({
      writeOut: (text) => output.out.write(text),
      writeErr: (text) => output.err.write(text),
      // A mistyped command is an error like any other: one line, and where to read the usage.
      outputError: (text, write) => write(usageError(text)),
    });

  const agent = async (): Promise<Agent> => {
    const options = cli.opts<GlobalOptions>();
    return connect(resolveConnection(options));
  };
  /** The agent, and the task `id` names (a whole id, or its first characters). */
  const agentAndTask = async (id: string) => {
    const connected = await agent();
    return { agent: connected, id: await resolveTaskId(connected, id) };
  };

  cli
    .command('chat')
    .description('a conversation: replies, questions, the Task and Plan panes, slash commands')
    .option('--task <id>', 'continue this task instead of starting a new one')
    .action(async (options: { task?: string }) => {
      if (options.task === undefined) {
        process.exitCode = await chat(await agent(), output, {});
        return;
      }
      const { agent: connected, id } = await agentAndTask(options.task);
      process.exitCode = await chat(connected, output, { taskId: id });
    });

  cli
    .command('tasks')
    .description('your tasks, newest first')
    .addOption(new Option('--state <state>', 'only tasks in this state').choices(STATE_FILTERS))
    .option('--context <id>', 'only tasks of this context')
    .option('--limit <n>', 'at most this many', positive, 50)
    .option('--json', 'JSON (an array of tasks)', false)
    .action(async (options: { state?: string; context?: string; limit: number; json: boolean }) => {
      await listTasks(await agent(), output, options);
    });

  cli
    .command('watch')
    .description(
      'a task, its plan and its sub-tasks as they change (one line per change when piped)'
    )
    .argument('<id>', 'the task')
    .option('--json', 'one JSON object per change', false)
    .action(async (id: string, options: { json: boolean }) => {
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      try {
        const found = await agentAndTask(id);
        await watchTask(found.agent, output, found.id, {
          json: options.json,
          signal: controller.signal,
        });
      } finally {
        process.off('SIGINT', stop);
      }
    });

  cli
    .command('audit')
    .description("the auditor's timeline of a task and its sub-tasks")
    .argument('<id>', 'the task')
    .option('--json', 'the timeline as JSON (docs/a2a/audit.md)', false)
    .option('--no-sub-tasks', 'this task only')
    .action(async (id: string, options: { json: boolean; subTasks: boolean }) => {
      const found = await agentAndTask(id);
      await auditTask(found.agent, output, found.id, options);
    });

  cli
    .command('send')
    .description('send one message to a task and print where it stands once it settles')
    .argument('<id>', 'the task')
    .argument('<text...>', 'the message')
    .option('--json', 'the task as JSON', false)
    .action(async (id: string, text: string[], options: { json: boolean }) => {
      const found = await agentAndTask(id);
      await sendToTask(found.agent, output, found.id, text.join(' '), options);
    });

  const fork = cli
    .command('fork')
    .description("a new task from a point in a task's history; the task itself goes on as it was")
    .argument('<id>', 'the task to fork');
  for (const option of pointOptions('fork')) fork.addOption(option);
  fork
    .option('--name <name>', 'the fork\'s name (default: the task\'s, with " (fork)")', forkName)
    .option(
      '--message <text>',
      "the fork's first message: it takes a turn on it (without one, it waits for yours)"
    )
    .option('--json', 'the fork as JSON', false)
    .action(async (id: string, options: PointFlags & { name?: string; message?: string }) => {
      const found = await agentAndTask(id);
      await forkTask(
        found.agent,
        output,
        { taskId: found.id, point: pointOf(options), name: options.name, text: options.message },
        { json: options.json }
      );
    });

  const show = cli
    .command('show')
    .description(
      'a task and its history with message ids; with --at or --before-turn, as it was then'
    )
    .argument('<id>', 'the task');
  for (const option of pointOptions('as it was')) show.addOption(option);
  show
    .option('--json', 'the A2A Task as JSON (its history, the extension in its metadata)', false)
    .action(async (id: string, options: PointFlags) => {
      const found = await agentAndTask(id);
      const asked = options.at !== undefined || options.beforeTurn !== undefined;
      await showTask(found.agent, output, found.id, asked ? pointOf(options) : undefined, {
        json: options.json,
      });
    });

  return cli;
};

export const run = async (argv: string[], output: Output = outputFor()): Promise<void> => {
  try {
    await program(output).parseAsync(argv);
  } catch (error) {
    output.err.write(`tiny-harness: ${describeError(error)}\n`);
    process.exitCode = 1;
  }
};
