import { type Message, type Task, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_METADATA_KEY, TASK_METADATA_KEY } from '../../functions/core/a2a/identifiers.js';
import type { SubTaskRow, TaskExtension } from '../../functions/core/task/extension.schema.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { textOf } from '../../functions/view/task-view.js';
import { tokenFor } from '../support/identity.js';
import { KeyedModel } from '../support/keyed-model.js';
import { asTask, clientFor, eventually, startStack } from '../support/local-stack.js';
import { envelopeMessage } from '../support/messages.js';
import { startLedger, UNTHROTTLED } from '../support/remote-agent.js';

/**
 * A budget over a delegation tree that spans two stacks: alpha's parent (type `research`, whose
 * deployment budget is 4 model calls) delegates two children on alpha and one on `ledger`, a
 * second local stack that is alpha's remote agent. Every model call on alpha takes its worst case
 * from the parent's budget before it is made; ledger's call is charged when its agent reports it.
 */

let sent = 0;
const send = (message: Message, task?: { id: string; contextId: string }) => ({
  tenant: '',
  message: {
    ...message,
    messageId: `budget-tree-${Date.now()}-${++sent}`,
    taskId: task?.id ?? '',
    contextId: task?.contextId ?? '',
  },
  configuration: undefined,
  metadata: undefined,
});

/** A child on alpha with one criterion; on ledger, none (its one reply ends it). */
const spawn = (name: string, goal: string, agent: string | null = null) => ({
  name: 'spawn_subtask',
  arguments: agent === null ? { name, goal, acceptance_criteria: ['done'] } : { name, goal, agent },
});

/** A child's two calls: its criterion met (a tool call), then its answer. */
const twoCalls = (answer: string) => [
  { toolCalls: [{ name: 'meet_criterion', arguments: { criterion: 'c1', evidence: 'done' } }] },
  { text: answer },
];

const extensionOf = (task: Task) => task.metadata?.[TASK_METADATA_KEY] as TaskExtension;

describe('a budget over a task tree on two stacks', () => {
  const alphaModel = new KeyedModel();
  const ledgerModel = new KeyedModel();
  let ledger: LocalStack;
  let alpha: LocalStack;
  let alice: Client;

  beforeAll(async () => {
    ledger = await startLedger(ledgerModel);
    alpha = await startStack({
      model: alphaModel,
      env: {
        TINY_HARNESS_AGENT_ID: 'alpha',
        TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS: 'true',
        TINY_HARNESS_DEFAULT_BUDGET: JSON.stringify({ research: { model_calls: 4 } }),
        ...UNTHROTTLED,
        LEDGER_TOKEN: tokenFor('alpha'),
        TINY_HARNESS_REMOTE_AGENTS: JSON.stringify({
          ledger: {
            card: `${ledger.url}/.well-known/agent-card.json`,
            auth: { type: 'bearer', token: { env: 'LEDGER_TOKEN' } },
            pollSeconds: 1,
            maxPollSeconds: 1,
          },
        }),
      },
    });
    alice = await clientFor(alpha, 'alice');
  }, 120_000);

  afterAll(async () => {
    await alpha?.close();
    await ledger?.close();
  });

  it('stops every task of the tree before a call that could pass the budget, and a raise finishes the work with no call repeated', async () => {
    alphaModel.script(
      '[tree-parent]',
      {
        toolCalls: [
          spawn('Sources', 'Find the sources [tree-a]'),
          spawn('Figures', 'Check the figures [tree-b]'),
          spawn('Books', 'Balance the books [tree-r]', 'ledger'),
        ],
      },
      { text: 'Waiting for the three.' },
      // Woken by its children's news: once or more, as they arrive.
      { text: 'Noted.' },
      { text: 'Noted.' },
      { text: 'Noted.' },
      { text: 'Noted.' }
    );
    alphaModel.script('[tree-a]', ...twoCalls('Sources found.'));
    alphaModel.script('[tree-b]', ...twoCalls('Figures checked.'));
    ledgerModel.script('[tree-r]', { text: 'The books balance.' });

    const parent = asTask(
      await alice.sendMessage(
        send(
          envelopeMessage(
            'task',
            {
              name: 'Quarter',
              goal: 'Close the quarter [tree-parent]',
              type: 'research',
              participants: [{ id: 'alice', kind: 'human', role: 'reporter' }],
            },
            { text: 'Close the quarter [tree-parent]' }
          )
        )
      )
    );
    expect(extensionOf(parent).budget).toEqual({ model_calls: 4 });

    const rowsOf = async (): Promise<SubTaskRow[]> =>
      extensionOf(await alice.getTask({ tenant: '', id: parent.id })).sub_tasks;
    const quiet = (row: SubTaskRow) =>
      row.agent === null
        ? row.sub_state === 'awaiting-budget' || row.state === 'TASK_STATE_COMPLETED'
        : row.state === 'TASK_STATE_COMPLETED';
    // The tree stops: four calls on alpha (the budget), the remote child done and charged.
    const stopped = await eventually(
      async () => {
        const rows = await rowsOf();
        const record = await alpha.runtime.loop.store.get(parent.id);
        const charged = Object.keys(record?.loop.remoteCharged ?? {}).length === 1;
        return rows.length === 3 && rows.every(quiet) && charged && record?.loop.parkToken
          ? rows
          : undefined;
      },
      60_000,
      async () => ({ rows: await rowsOf(), calls: alphaModel.requests.map((r) => r.key) })
    );
    // No call was made that could pass the budget: alpha's calls and ledger's one (charged when
    // its agent reported it, whenever that was) come to at least the budget, alpha's to no more.
    const made = alphaModel.requests.length;
    expect(made).toBeLessThanOrEqual(4);
    expect(made + 1).toBeGreaterThanOrEqual(4);
    expect(ledgerModel.requests).toHaveLength(1);
    // At least one local child waits for the budget, on its parent's row too.
    const waiting = stopped.filter((row) => row.sub_state === 'awaiting-budget');
    expect(waiting.length).toBeGreaterThan(0);
    for (const row of waiting) {
      const child = await alice.getTask({ tenant: '', id: row.task_id });
      expect(child.metadata?.[STATUS_METADATA_KEY]).toEqual({ sub_state: 'awaiting-budget' });
      expect(textOf(child.status)).toContain(`The budget of task ${parent.id}`);
    }
    expect((await alpha.runtime.loop.store.get(parent.id))?.budgetAvailable).toEqual({
      model_calls: 4 - made - 1,
    });

    await alice.sendMessage(
      send(
        envelopeMessage('control', { action: 'set_budget', budget: { model_calls: 12 } }),
        parent
      )
    );

    // Every child finishes; the parent, woken by their news, answers.
    await eventually(async () => {
      const rows = await rowsOf();
      return rows.every((row) => row.state === 'TASK_STATE_COMPLETED') ? rows : undefined;
    }, 60_000);
    const done = await eventually(async () => {
      const task = await alice.getTask({ tenant: '', id: parent.id });
      const record = await alpha.runtime.loop.store.get(parent.id);
      return task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED &&
        record?.loop.parkToken &&
        (await alpha.runtime.loop.store.readInbox(parent.id)).length === 0
        ? task
        : undefined;
    }, 60_000);
    expect(textOf(done.status)).toBe('Noted.');
    // Each child made its two calls once: none repeated, none lost.
    expect(alphaModel.requestsOf('[tree-a]')).toHaveLength(2);
    expect(alphaModel.requestsOf('[tree-b]')).toHaveLength(2);
    const calls = alphaModel.requests.length;
    expect((await alpha.runtime.loop.store.get(parent.id))?.budgetAvailable).toEqual({
      model_calls: 12 - calls - 1,
    });
  }, 180_000);
});
