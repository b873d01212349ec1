import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Message, TaskState } from '@a2a-js/sdk';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TASK_METADATA_KEY } from '../../functions/core/a2a/identifiers.js';
import { userTextMessage } from '../../functions/core/loop/messages.js';
import { ScriptedModel } from '../../functions/core/testing/scripted-model.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { cliEnv, ROOT, runCli, startCli } from '../support/cli.js';
import { asTask, clientFor, eventually, startStack, temporaryDir } from '../support/local-stack.js';
import { serveNotesOverHttp } from '../support/mcp-notes-stateless-http.js';
import { envelopeMessage } from '../support/messages.js';

const schema = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as object;
const ajv = new Ajv2020.default({ strict: false, allErrors: true });
const validTaskView = ajv.compile(schema('schemas/task-view.v1.json'));
const validTimeline = ajv.compile(schema('docs/a2a/ext/timeline.json'));
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[`);

const send = (message: Message) => ({
  tenant: '',
  message,
  configuration: undefined,
  metadata: undefined,
});
let counter = 0;
const say = (text: string, taskId = '') =>
  userTextMessage({ messageId: `cli-${++counter}`, text, taskId });

describe('tiny-harness, not on a terminal', () => {
  const model = new ScriptedModel();
  let stack: LocalStack;
  let env: NodeJS.ProcessEnv;
  let taskId = '';
  let notes: Awaited<ReturnType<typeof serveNotesOverHttp>>;

  beforeAll(async () => {
    notes = await serveNotesOverHttp();
    stack = await startStack({
      model,
      env: {
        TINY_HARNESS_MCP_SERVERS: JSON.stringify({
          notes: { url: notes.url, tools: ['delete_note'] },
        }),
      },
    });
    env = cliEnv(stack, 'you');
    model.push(
      {
        toolCalls: [
          {
            name: 'create_plan',
            arguments: {
              steps: [
                { name: 'Outline', description: 'o' },
                { name: 'Draft', description: 'd', depends_on: ['Outline'] },
              ],
            },
          },
        ],
      },
      { text: 'Planned.' }
    );
    const you = await clientFor(stack, 'you');
    taskId = asTask(await you.sendMessage(send(say('Write an essay')))).id;
  });
  afterAll(async () => {
    await stack?.close();
    await notes?.close();
  });

  it("lists the caller's tasks as JSON that the published schema accepts, and as plain rows", async () => {
    const json = await runCli(['tasks', '--json'], env);
    expect(json.code, json.stderr).toBe(0);
    const tasks = JSON.parse(json.stdout) as unknown[];
    expect(tasks.length).toBeGreaterThanOrEqual(1);
    for (const task of tasks)
      expect(validTaskView(task), ajv.errorsText(validTaskView.errors)).toBe(true);
    expect(tasks).toContainEqual(
      expect.objectContaining({
        id: taskId,
        state: 'TASK_STATE_INPUT_REQUIRED',
        name: 'Write an essay',
      })
    );

    const plain = await runCli(['tasks', '--state', 'input-required'], env);
    expect(plain.stdout).toMatch(
      new RegExp(`^${taskId}  input-required \\(awaiting-next-message\\)`, 'm')
    );
    expect(plain.stdout).not.toMatch(ANSI);
    const none = await runCli(['tasks'], cliEnv(stack, 'carol'));
    expect(none.stdout).toContain('no tasks yet');
  });

  it('prints the timeline as JSON that the published schema accepts, and as text', async () => {
    const json = await runCli(['audit', taskId, '--json'], env);
    expect(json.code, json.stderr).toBe(0);
    const timeline = JSON.parse(json.stdout);
    expect(validTimeline(timeline), ajv.errorsText(validTimeline.errors)).toBe(true);
    expect(timeline.entries.map((entry: { kind: string }) => entry.kind)).toEqual(
      expect.arrayContaining([
        'task_created',
        'model_call',
        'tool_call',
        'plan_changed',
        'state_changed',
      ])
    );
    const text = await runCli(['audit', taskId], env);
    expect(text.stdout).toMatch(/tool\s+create_plan\(/);
    expect(text.stdout).toMatch(/plan\s+plan attached: 2 steps \(Outline, Draft\)/);
  });

  it('sends one message and prints where the task stands, or its JSON', async () => {
    model.push({ text: 'Outline first.' }, { text: 'Still here.' });
    const plain = await runCli(['send', taskId, 'what', 'next?'], env);
    expect(plain.stdout).toBe(
      `${taskId}  input-required (awaiting-next-message)\nOutline first.\n`
    );
    const json = await runCli(['send', taskId, 'and?', '--json'], env);
    const view = JSON.parse(json.stdout);
    expect(validTaskView(view), ajv.errorsText(validTaskView.errors)).toBe(true);
    expect(view).toMatchObject({
      status_text: 'Still here.',
      plan: {
        steps: [
          { name: 'Outline', state: 'pending' },
          { name: 'Draft', depends_on: ['outline'] },
        ],
      },
    });
  });

  it('watch prints one line per change when its output is not a terminal, and ends with the task', async () => {
    model.push(
      {
        toolCalls: [
          { name: 'complete_step', arguments: { step: 'Outline', output: 'three parts' } },
        ],
      },
      { text: 'Outlined.' }
    );
    const watch = startCli(['watch', taskId], env);
    const json = startCli(['watch', taskId, '--json'], env);
    await eventually(async () =>
      watch.lines().length > 0 && json.lines().length > 0 ? true : undefined
    );
    const you = await clientFor(stack, 'you');
    await you.sendMessage(send(say('outline it', taskId)));
    await eventually(async () =>
      watch.lines().some((line) => line.includes('1/2 done')) ? true : undefined
    );
    await you.sendMessage(send({ ...envelopeMessage('control', { action: 'complete' }), taskId }));
    expect(await watch.exited).toBe(0);
    expect(await json.exited).toBe(0);

    const lines = watch.lines();
    const bodies = lines.map((line) => line.slice(9));
    // One line per change: no line repeats the one before it.
    expect(bodies.filter((body, index) => body === bodies[index - 1])).toEqual([]);
    expect(lines[0]).toMatch(
      /^\d\d:\d\d:\d\d · input-required \(awaiting-next-message\) · plan 0\/2 done · Still here\.$/
    );
    expect(lines.some((line) => / · working · plan 0\/2 done/.test(line))).toBe(true);
    expect(
      lines.some((line) =>
        /input-required \(awaiting-next-message\) · plan 1\/2 done · Outlined\.$/.test(line)
      )
    ).toBe(true);
    expect(lines.at(-1)).toMatch(/ · completed · plan 1\/2 done/);
    expect(lines.join('\n')).not.toMatch(ANSI);

    const views = json.lines().map((line) => JSON.parse(line));
    for (const view of views)
      expect(validTaskView(view), ajv.errorsText(validTaskView.errors)).toBe(true);
    expect(views.at(-1)?.state).toBe('TASK_STATE_COMPLETED');
    const record = await stack.runtime.loop.store.get(taskId);
    expect(record?.task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('chats through piped input: a message, then /complete; the task ends and so does the chat', async () => {
    model.push({ text: 'Hello, you.' });
    const ran = await runCli(['chat'], env, { input: 'hello\n/complete all good\n' });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^task \S+ started/m);
    expect(ran.stdout).toContain('agent › Hello, you.');
    expect(ran.stdout).toContain('task completed: all good');
    expect(ran.stdout).not.toMatch(ANSI);
  });

  it('chats a review: /reject a met criterion (the agent reads why), then /complete accepts the rest', async () => {
    model.push(
      {
        toolCalls: [
          { name: 'meet_criterion', arguments: { criterion: 'c1', evidence: 'the config moved' } },
        ],
      },
      { text: 'c1 holds.' },
      { text: 'I will add the v1 removal.' }
    );
    const you = await clientFor(stack, 'you');
    const brief = envelopeMessage(
      'task',
      {
        name: 'Release notes',
        goal: 'Write the release notes',
        acceptance_criteria: [{ text: 'Lists every breaking change' }, { text: 'Has a guide' }],
      },
      { text: 'Write the release notes', messageId: `cli-${++counter}` }
    );
    const task = asTask(await you.sendMessage(send(brief)));

    const ran = await runCli(['chat', '--task', task.id], env, {
      input: '/reject c1 the v1 removal is missing\n/complete\n',
    });

    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('[x] c1 Lists every breaking change');
    expect(ran.stdout).toContain('agent › I will add the v1 removal.');
    expect(ran.stdout).toContain('task completed');
    const done = await you.getTask({ tenant: '', id: task.id });
    const extension = done.metadata?.[TASK_METADATA_KEY] as
      | { acceptance_criteria: Array<{ met_by: string; evidence: { text: string } }> }
      | undefined;
    const criteria = extension?.acceptance_criteria ?? [];
    // Rejected, then accepted as it was by the reporter who completed it; so was c2.
    expect(criteria.map((criterion) => criterion.met_by)).toEqual(['you', 'you']);
    expect(criteria[0]?.evidence.text).toBe('accepted unmet by you on completing the task');
  });

  it('chats an approval: shows the call waiting, /approve runs it once, the agent goes on', async () => {
    model.push(
      { toolCalls: [{ name: 'notes__delete_note', arguments: { id: 'draft' } }] },
      { text: 'The draft note is gone.' }
    );
    const you = await clientFor(stack, 'you');
    const task = asTask(await you.sendMessage(send(say('delete the draft note'))));

    const ran = await runCli(['chat', '--task', task.id], env, {
      input: '/approve it is obsolete\n/complete\n',
    });

    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(
      /agent asks for approval › Approval needed before this tool call can run:\n- \S+: notes__delete_note \{"id":"draft"\} \(approvers: reporter, admin\)/
    );
    // The friendly commands, not the control envelope an A2A client would send.
    expect(ran.stdout).toMatch(
      /\(\/approve \[reason\] or \/reject \[reason\]: for every call waiting; unanswered by \S+, a call is rejected\)/
    );
    expect(ran.stdout).not.toContain('control envelope');
    expect(ran.stdout).toContain('agent › The draft note is gone.');
    expect(notes.calls).toEqual([{ tool: 'delete_note', args: { id: 'draft' } }]);
  });

  it('forks a task at a point and shows it as it was then, as text and as JSON', async () => {
    model.push({ text: 'Both are lovely. Which one?' }, { text: 'Porto it is.' });
    const you = await clientFor(stack, 'you');
    const trip = asTask(await you.sendMessage(send(say('Lisbon or Porto?')))).id;
    await you.sendMessage(send(say('Porto, then', trip)));

    // Every message with its id: the ids `--at` takes.
    const shown = await runCli(['show', trip], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^History · 4 messages$/m);
    expect(shown.stdout).toMatch(/^ {2}you › Lisbon or Porto\? {2}· \S+$/m);
    expect(shown.stdout).toMatch(/^ {2}agent › Porto it is\. {2}· \S+$/m);
    const json = await runCli(['show', trip, '--json'], env);
    const history = (JSON.parse(json.stdout) as { history: { messageId: string }[] }).history;
    expect(history).toHaveLength(4);

    // Before the second turn: the first question and its answer, no more.
    const then = await runCli(['show', trip, '--before-turn', '2'], env);
    expect(then.code, then.stderr).toBe(0);
    expect(then.stdout.split('\n')[0]).toBe(`task ${trip} as it was just before turn 2`);
    expect(then.stdout).toMatch(/^History · 2 messages$/m);
    expect(then.stdout).toContain('Both are lovely. Which one?');
    expect(then.stdout).not.toContain('Porto, then');

    model.push({ text: 'Lisbon it is.' });
    const forked = await runCli(
      ['fork', trip.slice(0, 8), '--before-turn', '2', '--message', 'Lisbon, then', '--json'],
      env
    );
    expect(forked.code, forked.stderr).toBe(0);
    const view = JSON.parse(forked.stdout);
    expect(validTaskView(view), ajv.errorsText(validTaskView.errors)).toBe(true);
    expect(view).toMatchObject({
      state: 'TASK_STATE_INPUT_REQUIRED',
      name: 'Lisbon or Porto? (fork)',
      status_text: 'Lisbon it is.',
    });
    expect(view.id).not.toBe(trip);

    // A fork at a message named by its first characters, waiting for its first message.
    const first = history[0]?.messageId as string;
    const plain = await runCli(['fork', trip, '--at', first.slice(0, 8), '--name', 'Lisbon'], env);
    expect(plain.code, plain.stderr).toBe(0);
    const [line, title] = plain.stdout.split('\n');
    expect(line).toMatch(new RegExp(`^task \\S+ forked from ${trip} at message ${first}$`));
    expect(title).toBe('Task · Lisbon  input-required (awaiting-next-message)');
    expect(plain.stdout).toMatch(/`npx tiny-harness chat --task \S+` talks to it\n$/);
    expect(plain.stdout).not.toMatch(ANSI);

    // The original is as it was, and lists its forks.
    const original = await you.getTask({ tenant: '', id: trip });
    expect(original.history.map((message) => message.messageId)).toEqual(
      history.map((message) => message.messageId)
    );
    const forks = (original.metadata?.[TASK_METADATA_KEY] as { forks?: string[] } | undefined)
      ?.forks;
    expect(forks).toHaveLength(2);
    expect(forks?.[0]).toBe(view.id);
  });

  it('says why a point is not there, and forks no task of a stranger', async () => {
    model.push({ text: 'Noted.' });
    const you = await clientFor(stack, 'you');
    const task = asTask(await you.sendMessage(send(say('one turn only')))).id;

    const unknown = await runCli(['fork', task, '--at', 'no-such-message'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(
      new RegExp(
        `^tiny-harness: task ${task} has no message no-such-message in its history\\b.*\\n$`
      )
    );
    const past = await runCli(['show', task, '--before-turn', '9'], env);
    expect(past.code).toBe(1);
    expect(past.stderr).toMatch(
      new RegExp(
        `^tiny-harness: task ${task} has taken 1 turn: before turn 9 is past its end\\b.*\\n$`
      )
    );
    const both = await runCli(['fork', task, '--at', 'm', '--before-turn', '1'], env);
    expect(both.code).toBe(1);
    expect(both.stderr).toBe(
      "tiny-harness: option '--at <message>' cannot be used with option '--before-turn <n>' (tiny-harness --help says how to call it)\n"
    );
    const stranger = await runCli(['fork', task], cliEnv(stack, 'mallory'));
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toMatch(/not found/);
    const strangerAt = await runCli(['show', task, '--before-turn', '1'], cliEnv(stack, 'mallory'));
    expect(strangerAt.code).toBe(1);
    expect(strangerAt.stderr).toMatch(/not found/);
    const mine = await you.getTask({ tenant: '', id: task });
    expect(
      (mine.metadata?.[TASK_METADATA_KEY] as { forks?: string[] } | undefined)?.forks ?? []
    ).toEqual([]);
  });

  it('says what to do when there is no agent to talk to, or no such task', async () => {
    const { dir, remove } = temporaryDir();
    try {
      const nowhere = { ...env, TINY_HARNESS_URL: '', TINY_HARNESS_DATA_DIR: dir };
      const ran = await runCli(['tasks'], nowhere);
      expect(ran.code).toBe(1);
      expect(ran.stderr).toContain(`no agent to talk to: ${dir}/endpoint.json does not exist`);
      expect(ran.stderr).toContain('npm start');
    } finally {
      remove();
    }
    const missing = await runCli(['audit', 'no-such-task'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/not found/);
    // A chat with a task that is not there says so once, on stderr, even with its input done.
    const nope = await runCli(['chat', '--task', 'nope'], env);
    expect(nope.code).toBe(1);
    expect(nope.stderr).toBe(
      'tiny-harness: task not found: none of your tasks has an id that starts with nope\n'
    );
    // A mistyped command: one line naming the mistake and where the usage is, no help dump.
    for (const [args, mistake] of [
      [['tasks', '--bogus'], "unknown option '--bogus'"],
      [['watch'], "missing required argument 'id'"],
      [['frob'], "unknown command 'frob': did you mean fork?"],
    ] as const) {
      const mistyped = await runCli([...args], env);
      expect(mistyped.code, args.join(' ')).toBe(1);
      expect(mistyped.stderr).toBe(
        `tiny-harness: ${mistake} (tiny-harness --help says how to call it)\n`
      );
    }
    const stranger = await runCli(['watch', taskId], cliEnv(stack, 'mallory'));
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toMatch(/not found/);
  });

  it('names a refused token as a 401 and says what to do, in one line on stderr, exit 1', async () => {
    const wrong = { ...env, TINY_HARNESS_TOKEN: 'wrong' };
    for (const args of [['tasks'], ['chat'], ['audit', taskId]]) {
      const ran = await runCli(args, wrong, { input: 'hello\nagain\n' });
      expect(ran.code, args.join(' ')).toBe(1);
      expect(ran.stderr.split('\n')).toEqual([
        `tiny-harness: 401 Unauthorized: the agent at ${stack.url} refused the bearer token from TINY_HARNESS_TOKEN: pass the right one with --token (or TINY_HARNESS_TOKEN), or leave both out to use the one \`npm start\` wrote`,
        '',
      ]);
    }
  });

  it('takes the first characters of an id when they name one task, and says when they do not', async () => {
    const short = taskId.slice(0, 8);
    const audit = await runCli(['audit', short, '--no-sub-tasks'], env);
    expect(audit.code, audit.stderr).toBe(0);
    expect(audit.stdout).toContain(`Timeline · ${taskId}`);
    const unknown = await runCli(['watch', 'ffffffff'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      'tiny-harness: task not found: none of your tasks has an id that starts with ffffffff\n'
    );
    // Ids are hex: among 17 tasks, two share their first character.
    const you = await clientFor(stack, 'you');
    const ids = async () =>
      (await stack.runtime.loop.store.list({ participantId: 'you' })).map(
        (record) => record.task.id
      );
    const sharedFirst = (all: string[]) =>
      [...'0123456789abcdef'].find((first) => all.filter((id) => id.startsWith(first)).length > 1);
    while (sharedFirst(await ids()) === undefined) {
      model.push({ text: 'Noted.' });
      await you.sendMessage(send(say('one more task')));
    }
    const shared = sharedFirst(await ids()) as string;
    const ambiguous = await runCli(['send', shared, 'hello'], env);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toMatch(
      new RegExp(
        `^tiny-harness: ${shared} is ambiguous: \\d+ of your tasks start with it .*: type more of the id\\n$`
      )
    );
  });

  it('says when a filter matches nothing, and prints its version', async () => {
    const none = await runCli(['tasks', '--state', 'rejected'], env);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toBe(
      'no tasks in state rejected (`npx tiny-harness tasks` lists them all)\n'
    );
    const version = await runCli(['--version'], env);
    expect(version.code).toBe(0);
    expect(version.stdout).toBe(
      `${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}\n`
    );
  });
});
