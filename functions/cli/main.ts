/**
 * `tiny-harness`: the terminal renderer, a plain A2A client (docs/cli.md).
 *
 *   tiny-harness chat [--task ID]     a conversation
 *   tiny-harness tasks                your tasks
 *   tiny-harness watch ID             a task, its plan and its sub-tasks as they change
 *   tiny-harness audit ID             the auditor's timeline
 *   tiny-harness send ID TEXT         one message
 */
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { auditTask } from './commands/audit.js';
import { chat } from './commands/chat.js';
import { sendToTask } from './commands/send.js';
import { listTasks, STATE_FILTERS } from './commands/tasks.js';
import { watchTask } from './commands/watch.js';
import { type Agent, connect, describeError, resolveConnection } from './connection.js';
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

/** Commander's "error: unknown option '--x'" as the CLI's one line, pointing at the help. */
const usageError = (text: string): string =>
  `tiny-harness: ${text.trim().replace(/^error: /, '')} (tiny-harness --help says how to call it)\n`;

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
