import { type Message, Role, type Task, TaskState } from '@a2a-js/sdk';
import type { Command } from 'commander';
import { createColors } from 'picocolors';
import { describe, expect, it } from 'vitest';
import { forkedLine, forkTask } from '../../../functions/cli/commands/fork.js';
import { showTask } from '../../../functions/cli/commands/show.js';
import type { Agent } from '../../../functions/cli/connection.js';
import { matchMessageId, pointOf, pointText } from '../../../functions/cli/history-point.js';
import { program } from '../../../functions/cli/main.js';
import type { Output } from '../../../functions/cli/output.js';
import { renderFrame, renderHistory } from '../../../functions/cli/render.js';
import { taskView } from '../../../functions/cli/task-view.js';
import { STATUS_METADATA_KEY, TASK_METADATA_KEY } from '../../../functions/core/a2a/identifiers.js';
import type { ForkRequest, HistoryPointRequest } from '../../../functions/view/fork.js';

const plain = createColors(false);

const message = (messageId: string, role: Role, text: string): Message => ({
  messageId,
  contextId: 'c-1',
  taskId: 't-1',
  role,
  parts: [
    { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' },
  ],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

const ORIGINAL = '11111111-1111-4111-8111-111111111111';
const FORK = '22222222-2222-4222-8222-222222222222';
const history = [
  message('5f1c2a9e-0d3c-4a7e-9a43-3c1f0f5f8a11', Role.ROLE_USER, 'Plan a trip to Kyoto'),
  message(`${ORIGINAL}:history:2`, Role.ROLE_AGENT, 'Which month?'),
  message('5f1c77aa-0d3c-4a7e-9a43-3c1f0f5f8a12', Role.ROLE_USER, 'October'),
  message(`${ORIGINAL}:history:4`, Role.ROLE_AGENT, 'Flights booked for October.'),
];

const taskOf = (id: string, extension: Record<string, unknown>, messages = history): Task => ({
  id,
  contextId: 'c-1',
  status: {
    state: TaskState.TASK_STATE_INPUT_REQUIRED,
    message: undefined,
    timestamp: '2026-01-01T00:00:00.000Z',
  },
  artifacts: [],
  history: messages,
  metadata: {
    [STATUS_METADATA_KEY]: { sub_state: 'awaiting-next-message' },
    [TASK_METADATA_KEY]: {
      name: 'Trip',
      goal: 'Plan a trip to Kyoto',
      participants: [{ id: 'you', kind: 'human', role: 'reporter' }],
      ...extension,
    },
  },
});

/** What a command wrote, out and err, without colours. */
const captured = () => {
  const written = { out: '', err: '' };
  const stream = (key: 'out' | 'err') =>
    ({
      write: (text: string) => {
        written[key] += text;
        return true;
      },
    }) as unknown as NodeJS.WriteStream;
  const output: Output = {
    out: stream('out'),
    err: stream('err'),
    c: plain,
    tty: false,
    line: (text = '') => {
      written.out += `${text}\n`;
    },
    json: (value) => {
      written.out += `${JSON.stringify(value, null, 2)}\n`;
    },
  };
  return { output, written };
};

/** An agent that answers GetTask with the original, and records the forks and reads asked of it. */
const fakeAgent = () => {
  const asked: { forks: ForkRequest[]; at: HistoryPointRequest[] } = { forks: [], at: [] };
  const agent = {
    client: { getTask: async () => taskOf(ORIGINAL, {}) },
    view: taskView,
    fork: async (request: ForkRequest) => {
      asked.forks.push(request);
      return taskOf(FORK, {
        name: 'Trip (fork)',
        forked_from: { task_id: ORIGINAL, message_id: `${ORIGINAL}:history:2` },
      });
    },
    taskAt: async (_taskId: string, point: HistoryPointRequest) => {
      asked.at.push(point);
      return taskOf(ORIGINAL, {}, history.slice(0, 2));
    },
  } as unknown as Agent;
  return { agent, asked };
};

describe('a point in a task history, as typed', () => {
  it('is a message, a turn, or the latest', () => {
    expect(pointOf({ at: 'm-1' })).toEqual({ messageId: 'm-1' });
    expect(pointOf({ beforeTurn: 2 })).toEqual({ beforeTurn: 2 });
    expect(pointOf({})).toEqual({});
    expect(pointText({ messageId: 'm-1' })).toBe('at message m-1');
    expect(pointText({ beforeTurn: 2 })).toBe('just before turn 2');
    expect(pointText({})).toBe('at its latest point');
  });

  it('takes a message id whole or by its first characters, and refuses characters that start several', () => {
    expect(matchMessageId(history, `${ORIGINAL}:history:4`)).toBe(`${ORIGINAL}:history:4`);
    expect(matchMessageId(history, '5f1c2a')).toBe('5f1c2a9e-0d3c-4a7e-9a43-3c1f0f5f8a11');
    // Nothing starts with it: the agent is asked as typed, and says it has no such message.
    expect(matchMessageId(history, 'nope')).toBe('nope');
    expect(() => matchMessageId(history, '5f1c')).toThrow(
      '5f1c is ambiguous: 2 messages of the task start with it (5f1c2a9e-0d3c-4a7e-9a43-3c1f0f5f8a11, 5f1c77aa-0d3c-4a7e-9a43-3c1f0f5f8a12): type more of the id'
    );
  });
});

describe('the terminal renderer of a history and a fork', () => {
  it('lists each message with its id after its first line', () => {
    const lines = [
      ...history.slice(0, 2),
      message('m-3', Role.ROLE_AGENT, 'Two options:\nApril\nOctober'),
      message('m-4', Role.ROLE_USER, ''),
    ];
    expect(renderHistory(lines, plain)).toEqual([
      'History · 4 messages',
      '  you › Plan a trip to Kyoto  · 5f1c2a9e-0d3c-4a7e-9a43-3c1f0f5f8a11',
      `  agent › Which month?  · ${ORIGINAL}:history:2`,
      '  agent › Two options:  · m-3',
      '          April',
      '          October',
      '  you › (no text)  · m-4',
    ]);
  });

  it('prints the history between the task and where it stands', () => {
    const frame = renderFrame(
      taskView(taskOf(ORIGINAL, {})),
      plain,
      renderHistory(history.slice(0, 1), plain)
    );
    expect(frame.split('\n')).toEqual([
      'Task · Trip  input-required (awaiting-next-message)',
      `  id ${ORIGINAL}`,
      '  goal  Plan a trip to Kyoto',
      '  participants  you (reporter)',
      '',
      'Plan · none yet',
      '',
      'History · 1 message',
      '  you › Plan a trip to Kyoto  · 5f1c2a9e-0d3c-4a7e-9a43-3c1f0f5f8a11',
      '',
      'input-required (awaiting-next-message)',
    ]);
  });

  it('says where a fork came from: the point asked, and the message the agent kept through', () => {
    const from = (message_id: string | null) => ({
      [TASK_METADATA_KEY]: { forked_from: { task_id: ORIGINAL, message_id } },
    });
    expect(forkedLine(FORK, { taskId: ORIGINAL, point: { beforeTurn: 2 } }, from('m-2'))).toBe(
      `task ${FORK} forked from ${ORIGINAL} just before turn 2: its history through message m-2`
    );
    expect(forkedLine(FORK, { taskId: ORIGINAL, point: { messageId: 'm-2' } }, from('m-2'))).toBe(
      `task ${FORK} forked from ${ORIGINAL} at message m-2`
    );
    expect(forkedLine(FORK, { taskId: ORIGINAL, point: { beforeTurn: 1 } }, from(null))).toBe(
      `task ${FORK} forked from ${ORIGINAL} just before turn 1: none of its history`
    );
    // An agent that does not say: the point as asked.
    expect(forkedLine(FORK, { taskId: ORIGINAL, point: {} }, undefined)).toBe(
      `task ${FORK} forked from ${ORIGINAL} at its latest point`
    );
  });
});

describe('tiny-harness fork and show, against an agent', () => {
  it('forks at a message, named whole or by its first characters, and prints the fork and how to talk to it', async () => {
    const { agent, asked } = fakeAgent();
    const { output, written } = captured();
    await forkTask(
      agent,
      output,
      { taskId: ORIGINAL, point: { messageId: `${ORIGINAL}:history:2` }, name: undefined },
      { json: false }
    );
    expect(asked.forks).toEqual([
      { taskId: ORIGINAL, point: { messageId: `${ORIGINAL}:history:2` }, name: undefined },
    ]);
    const lines = written.out.split('\n');
    expect(lines[0]).toBe(`task ${FORK} forked from ${ORIGINAL} at message ${ORIGINAL}:history:2`);
    expect(lines[1]).toBe('Task · Trip (fork)  input-required (awaiting-next-message)');
    expect(lines.at(-2)).toBe(`\`npx tiny-harness chat --task ${FORK}\` talks to it`);

    // Characters that start two messages: nothing is forked.
    await expect(
      forkTask(agent, output, { taskId: ORIGINAL, point: { messageId: '5f1c' } }, { json: false })
    ).rejects.toThrow('5f1c is ambiguous');
    expect(asked.forks).toHaveLength(1);
    await forkTask(
      agent,
      output,
      { taskId: ORIGINAL, point: { messageId: '5f1c77' } },
      {
        json: true,
      }
    );
    expect(asked.forks[1]?.point).toEqual({ messageId: '5f1c77aa-0d3c-4a7e-9a43-3c1f0f5f8a12' });
  });

  it('shows the task now with every message id, or as it was at a point', async () => {
    const { agent, asked } = fakeAgent();
    const now = captured();
    await showTask(agent, now.output, ORIGINAL, undefined, { json: false });
    expect(now.written.out).toContain('History · 4 messages\n');
    expect(now.written.out).toContain(
      `  agent › Flights booked for October.  · ${ORIGINAL}:history:4\n`
    );
    expect(asked.at).toEqual([]);

    const then = captured();
    await showTask(agent, then.output, ORIGINAL, { beforeTurn: 2 }, { json: false });
    expect(asked.at).toEqual([{ beforeTurn: 2 }]);
    expect(then.written.out.split('\n')[0]).toBe(`task ${ORIGINAL} as it was just before turn 2`);
    expect(then.written.out).toContain('History · 2 messages\n');
    expect(then.written.out).not.toContain('October');

    const json = captured();
    await showTask(agent, json.output, ORIGINAL, { messageId: '5f1c2a' }, { json: true });
    expect(asked.at[1]).toEqual({ messageId: '5f1c2a9e-0d3c-4a7e-9a43-3c1f0f5f8a11' });
    const shown = JSON.parse(json.written.out) as { id: string; history: { messageId: string }[] };
    expect(shown.id).toBe(ORIGINAL);
    expect(shown.history.map((m) => m.messageId)).toEqual(
      history.slice(0, 2).map((m) => m.messageId)
    );
  });
});

describe('tiny-harness fork and show, mistyped', () => {
  /** The usage error `args` make, before any agent is asked. */
  const mistyped = async (args: string[]) => {
    const { output, written } = captured();
    const cli = program(output);
    const exitOverride = (command: Command) => {
      command.exitOverride();
      for (const sub of command.commands) exitOverride(sub);
    };
    exitOverride(cli);
    await expect(cli.parseAsync(['node', 'tiny-harness', ...args])).rejects.toThrow();
    return written.err;
  };

  it.each([
    [
      ['fork', 't-1', '--at', 'm-1', '--before-turn', '2'],
      "option '--at <message>' cannot be used with option '--before-turn <n>'",
    ],
    [
      ['show', 't-1', '--before-turn', '2', '--at', 'm-1'],
      "option '--at <message>' cannot be used with option '--before-turn <n>'",
    ],
    [
      ['fork', 't-1', '--before-turn', '0'],
      "option '--before-turn <n>' argument '0' is invalid. a whole number ≥ 1",
    ],
    [
      ['fork', 't-1', '--name', 'x'.repeat(201)],
      `option '--name <name>' argument '${'x'.repeat(201)}' is invalid. at most 200 characters`,
    ],
    [['fork'], "missing required argument 'id'"],
    [['frok', 't-1'], "unknown command 'frok': did you mean fork?"],
    [
      ['fork', 't-1', '--befor-turn', '2'],
      "unknown option '--befor-turn': did you mean --before-turn?",
    ],
  ])('mistake %# is one line naming it', async (args, mistake) => {
    expect(await mistyped(args)).toBe(
      `tiny-harness: ${mistake} (tiny-harness --help says how to call it)\n`
    );
  });
});
