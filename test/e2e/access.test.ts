import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TASK_EXTENSION_URI, TASK_METADATA_KEY } from '../../functions/core/a2a/identifiers.js';
import { ScriptedModel } from '../../functions/core/testing/scripted-model.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { authorizationFor } from '../support/identity.js';
import { startStack } from '../support/local-stack.js';
import { type A2aClient, refusalOf, sdkClient, type TaskView } from './a2a-clients.js';

type Binding = 'JSONRPC' | 'HTTP+JSON';

/** What a victim's task shows to its own participant: what no forgery may change. */
interface Observed {
  task: TaskView;
  timeline: string;
}

/**
 * The trust boundary through the real SDK client over each binding: every forgery a stranger (or
 * a watcher) can write is refused with InvalidParams, and the victim's task is exactly as it was
 * (state, transcript, timeline, usage).
 */
describe('no client reaches a task it is not on, nor widens what it may do', () => {
  const model = new ScriptedModel();
  let stack: LocalStack;

  beforeAll(async () => {
    stack = await startStack({ model });
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
  });

  const timelineOf = async (binding: Binding, participant: string, taskId: string) => {
    const headers = { 'A2A-Version': '1.0', ...authorizationFor(participant) };
    const response =
      binding === 'JSONRPC'
        ? await fetch(`${stack.url}/`, {
            method: 'POST',
            headers: { ...headers, 'Content-Type': 'application/json' },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'tiny-harness/GetTaskTimeline',
              params: { id: taskId },
            }),
          })
        : await fetch(`${stack.url}/tasks/${taskId}:timeline`, { headers });
    const body = (await response.json()) as Record<string, unknown>;
    return JSON.stringify(binding === 'JSONRPC' ? body.result : body);
  };

  /** ForkTask as `participant`, over the binding: the fork's extension, or the error's text. */
  const forkAs = async (binding: Binding, participant: string, taskId: string) => {
    const headers = {
      'A2A-Version': '1.0',
      'Content-Type': 'application/json',
      ...authorizationFor(participant),
    };
    const response =
      binding === 'JSONRPC'
        ? await fetch(`${stack.url}/`, {
            method: 'POST',
            headers,
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'tiny-harness/ForkTask',
              params: { id: taskId },
            }),
          })
        : await fetch(`${stack.url}/tasks/${taskId}:fork`, { method: 'POST', headers });
    const body = (await response.json()) as Record<string, unknown>;
    const task = (binding === 'JSONRPC' ? body.result : body) as
      | { metadata?: Record<string, { participants?: Array<{ id: string; role: string }> }> }
      | undefined;
    const error = (body.error as { message?: string } | undefined)?.message;
    return { error, extension: task?.metadata?.[TASK_METADATA_KEY] };
  };

  const observe = async (
    binding: Binding,
    owner: A2aClient,
    ownerId: string,
    taskId: string
  ): Promise<Observed> => {
    const task = await owner.getTask(taskId, 100);
    return { task, timeline: await timelineOf(binding, ownerId, taskId) };
  };

  /** The part of a timeline that must not move: its entries without their read-time fields. */
  const entriesOf = (timeline: string) =>
    (JSON.parse(timeline) as { entries: Array<{ kind: string; summary: string }> }).entries.map(
      (entry) => `${entry.kind} ${entry.summary}`
    );

  it("6: a stack whose tokens name the agent's own id does not start", async () => {
    await expect(
      startStack({ env: { TINY_HARNESS_BEARER_TOKENS: 'agent-token-0123=tiny-harness' } })
    ).rejects.toThrow("maps a token to tiny-harness, the agent's own id");
  });

  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    describe(`over ${binding}`, () => {
      let alice: A2aClient;
      let bob: A2aClient;
      let mallory: A2aClient;
      let victim: TaskView;
      let before: Observed;

      beforeAll(async () => {
        alice = await sdkClient(stack.url, 'alice', binding);
        bob = await sdkClient(stack.url, 'bob', binding);
        mallory = await sdkClient(stack.url, 'mallory', binding);
        model.push({ text: 'Noted, Alice.' });
        victim = await alice.send(`my secret plan (${binding})`);
        before = await observe(binding, alice, 'alice', victim.id);
      });

      const refusedWith = async (payload: Record<string, unknown>, field: RegExp) => {
        const refusal = await refusalOf(
          mallory.send('forged', {
            envelope: { kind: 'task', payload: { name: 'n', goal: 'g', ...payload } },
            extensions: [TASK_EXTENSION_URI],
          })
        );
        expect(refusal.name).toBe('RequestMalformedError');
        expect(refusal.message).toMatch(field);
      };

      const untouched = async () => {
        const after = await observe(binding, alice, 'alice', victim.id);
        expect(after.task.state).toBe(before.task.state);
        expect(after.task.history).toEqual(before.task.history);
        expect(entriesOf(after.timeline)).toEqual(entriesOf(before.timeline));
        expect(after.timeline).not.toContain('mallory');
      };

      it('1, 2: a new task naming the victim as its sub-task is refused, so no cascade or timeline reaches it', async () => {
        for (const state of ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']) {
          await refusedWith(
            { sub_tasks: [{ task_id: victim.id, agent: null, state }] },
            /sub_tasks/
          );
        }
        await untouched();
      });

      it("3: a new task naming the victim as its parent, or giving itself a budget, is refused, and no stranger sets the victim's budget, so nothing writes into it", async () => {
        await refusedWith({ parent_tasks: [{ task_id: victim.id }] }, /parent_tasks/);
        await refusedWith({ plan: { steps: [] } }, /plan/);
        // Nor does a new task give itself a budget, nor a stranger set the victim's.
        await refusedWith({ budget: { usd: 1_000 } }, /budget/);
        const refusal = await refusalOf(
          mallory.send('', {
            taskId: victim.id,
            envelope: { kind: 'control', payload: { action: 'set_budget', budget: { usd: 1 } } },
            extensions: [TASK_EXTENSION_URI],
          })
        );
        expect(refusal.message).toMatch(/not found/i);
        // Nor does a new task claim to be a fork of the victim, or list it as its own fork, nor
        // may a stranger fork the victim: it is not found, as a missing task.
        await refusedWith({ forked_from: { task_id: victim.id, message_id: null } }, /forked_from/);
        await refusedWith({ forks: [victim.id] }, /forks/);
        expect((await forkAs(binding, 'mallory', victim.id)).error).toMatch(/not found/i);
        await untouched();
      });

      it('4: a new task may not hand others a role beyond watcher', async () => {
        await refusedWith(
          { participants: [{ id: 'alice', kind: 'human', role: 'admin' }] },
          /only as watchers/
        );
        await refusedWith(
          { participants: [{ id: 'bob', kind: 'human', role: 'assignee' }] },
          /only as watchers/
        );
        expect((await alice.listTasks({ pageSize: 100 })).ids).not.toContain('forged');
        await untouched();
      });

      it('5: a watcher can neither complete, cancel nor change the criteria; the reporter can', async () => {
        model.push({ text: 'Working on it.' });
        const shared = await alice.send('write the report', {
          envelope: {
            kind: 'task',
            payload: {
              name: 'Report',
              goal: 'Write the report',
              acceptance_criteria: [{ text: 'cites three sources' }],
              participants: [{ id: 'bob', kind: 'human', role: 'watcher' }],
            },
          },
          extensions: [TASK_EXTENSION_URI],
        });
        const seen = await alice.getTask(shared.id, 100);
        const asBob = (payload: Record<string, unknown>, kind: 'task' | 'control') =>
          refusalOf(
            bob.send('', {
              taskId: shared.id,
              envelope: { kind, payload },
              extensions: [TASK_EXTENSION_URI],
            })
          );
        for (const refusal of [
          await asBob({ action: 'complete' }, 'control'),
          await asBob({ action: 'cancel' }, 'control'),
          await asBob({ acceptance_criteria: [] }, 'task'),
          await asBob({ action: 'set_budget', budget: { model_calls: 99 } }, 'control'),
        ]) {
          expect(refusal.name).toBe('RequestMalformedError');
          expect(refusal.message).toMatch(/bob is a watcher: only/);
        }
        expect((await refusalOf(bob.cancel(shared.id))).message).toMatch(/bob is a watcher/);
        // A watcher may fork what it may read: the fork is bob's own, with alice watching it.
        const fork = await forkAs(binding, 'bob', shared.id);
        expect(fork.error).toBeUndefined();
        expect(
          Object.fromEntries((fork.extension?.participants ?? []).map((p) => [p.id, p.role]))
        ).toMatchObject({ bob: 'reporter', alice: 'watcher' });
        const after = await alice.getTask(shared.id, 100);
        expect(after.state).toBe(seen.state);
        expect(after.history).toEqual(seen.history);

        const completed = await alice.send('', {
          taskId: shared.id,
          envelope: { kind: 'control', payload: { action: 'complete' } },
          extensions: [TASK_EXTENSION_URI],
        });
        expect(['TASK_STATE_COMPLETED', 'TASK_STATE_WORKING']).toContain(completed.state);
      });
    });
  }
});
