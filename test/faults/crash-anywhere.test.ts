import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TASK_METADATA_KEY, USAGE_METADATA_KEY } from '../../functions/core/a2a/identifiers.js';
import { EXPECTED_REPLIES, type FaultModel, startFaultModel } from './fault-model.js';
import { freePort, javaOn, type StackProcess, startStackProcess } from './stack-process.js';

/**
 * Crash anywhere: `npm start`'s process is killed with SIGKILL at random moments while scripted
 * tasks run (inside model calls, between states, while parked), then started again on the same
 * data directory. Every task must reach its scripted end with nothing lost and nothing twice.
 *
 * `npm test` runs a small case; `npm run test:faults` a larger one (FAULT_CRASHES, FAULT_TASKS,
 * FAULT_SEED set the number of crashes per phase, of tasks, and the random seed).
 */
const CRASHES = Number(process.env.FAULT_CRASHES ?? 1);
const TASKS = Number(process.env.FAULT_TASKS ?? 3);
const SEED = Number(process.env.FAULT_SEED ?? Date.now() % 100_000);

/** A small seeded generator (mulberry32), so a failing run can be replayed with FAULT_SEED. */
const random = (() => {
  let state = SEED >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
})();
const between = (low: number, high: number) => Math.floor(low + random() * (high - low));
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

const TOKEN = 'fault-token';
type Json = Record<string, unknown>;

const rpc = async (url: string, method: string, params: Json): Promise<Json> => {
  const response = await fetch(`${url}/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'a2a-version': '1.0',
      authorization: `Bearer ${TOKEN}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: Json; error?: Json };
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result as Json;
};

/** A message the suite sends; its id is fixed, so a retry after a crash is the same message. */
const message = (messageId: string, text: string, taskId?: string) => ({
  message: { messageId, role: 'ROLE_USER', parts: [{ text }], ...(taskId ? { taskId } : {}) },
  configuration: { returnImmediately: true },
});

interface Task {
  id: string;
  status: { state: string; message?: { parts?: Array<{ text?: string }> } };
  history?: Array<{ role: string; parts: Array<{ text?: string }> }>;
  metadata?: Record<string, unknown>;
}

const textOf = (task: Task) => task.status.message?.parts?.map((part) => part.text ?? '').join('');

describe(`crash anywhere (seed ${SEED}: ${CRASHES} crash(es) per phase, ${TASKS} tasks)`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tiny-harness-faults-'));
  let model: FaultModel;
  let stack: StackProcess | undefined;
  let port: number;
  let crashes = 0;

  const start = async () => {
    stack = await startStackProcess({
      dataDir,
      port,
      env: {
        TINY_HARNESS_BEARER_TOKENS: `${TOKEN}=alice`,
        TINY_HARNESS_MODEL_PROVIDER: 'openai-chat',
        TINY_HARNESS_MODEL: 'fault-model',
        TINY_HARNESS_MODEL_BASE_URL: model.url,
        TINY_HARNESS_LOG_LEVEL: 'warn',
      },
    });
  };

  /**
   * Retries a call through crashes: the stack may be down (or coming back) when it is made. A
   * restart takes DynamoDB Local's and the synthesis's start-up, which a loaded machine (the rest
   * of `npm test` beside it) can stretch well past twenty seconds.
   */
  const call = async <T>(what: () => Promise<T>): Promise<T> => {
    const deadline = Date.now() + 90_000;
    for (;;) {
      try {
        return await what();
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await sleep(100);
      }
    }
  };

  /** Kills the stack at random moments while the tasks work, restarting it each time. */
  const crashWhileWorking = async (count: number) => {
    for (let i = 0; i < count; i++) {
      await sleep(between(30, 1200));
      await stack?.crash();
      crashes++;
      await start();
    }
  };

  const getTask = (id: string) =>
    call(() =>
      rpc(stack!.url, 'GetTask', { id, historyLength: 50 })
    ) as Promise<unknown> as Promise<Task>;

  const waitFor = async (ids: string[], reply: string) => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const tasks = await Promise.all(ids.map(getTask));
      const pending = tasks.filter(
        (task) => task.status.state !== 'TASK_STATE_INPUT_REQUIRED' || textOf(task) !== reply
      );
      if (pending.length === 0) return tasks;
      if (Date.now() > deadline) {
        throw new Error(
          `tasks not at "${reply}": ${JSON.stringify(pending.map((t) => [t.id, t.status.state, textOf(t)]))}\n${stack?.output().slice(-4000)}`
        );
      }
      await sleep(100);
    }
  };

  afterAll(async () => {
    await stack?.stop();
    await model?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'every task reaches its scripted end: no lost message, no model call or reply twice',
    async () => {
      model = await startFaultModel({ delayMs: () => between(20, 400) });
      port = await freePort();
      await start();

      // Phase 1: the tasks are created, then the stack is killed while they plan and work.
      const ids: string[] = [];
      for (let i = 0; i < TASKS; i++) {
        const created = await rpc(
          stack!.url,
          'SendMessage',
          message(`go-${i}`, `FAULT-GO task-tag:t${i}`)
        );
        ids.push((created.task as Task).id);
      }
      await crashWhileWorking(CRASHES);
      await waitFor(ids, EXPECTED_REPLIES.go);

      // Phase 2: each task is told to go on, while the stack is killed again.
      const continuing = Promise.all(
        ids.map((id, i) =>
          call(() =>
            rpc(
              stack!.url,
              'SendMessage',
              message(`continue-${i}`, `FAULT-CONTINUE task-tag:t${i}`, id)
            )
          )
        )
      );
      await crashWhileWorking(CRASHES);
      await continuing;
      const done = await waitFor(ids, EXPECTED_REPLIES.continue);

      for (const task of done) {
        // The conversation, each message once and in order.
        expect(
          (task.history ?? []).map((entry) => [entry.role, entry.parts.map((p) => p.text).join('')])
        ).toEqual([
          ['ROLE_USER', expect.stringContaining('FAULT-GO')],
          ['ROLE_AGENT', EXPECTED_REPLIES.go],
          ['ROLE_USER', expect.stringContaining('FAULT-CONTINUE')],
          ['ROLE_AGENT', EXPECTED_REPLIES.continue],
        ]);
        // Five model turns committed, whatever was lost to the crashes: none counted twice.
        const metadata = task.metadata ?? {};
        expect((metadata[USAGE_METADATA_KEY] as { model_calls: number }).model_calls).toBe(5);
        const plan = (metadata[TASK_METADATA_KEY] as { plan: { steps: Json[] } }).plan;
        expect(plan.steps.map((step) => [step.id, step.state, step.output])).toEqual([
          ['alpha', 'done', 'alpha output'],
          ['beta', 'done', 'beta output'],
        ]);
      }
      const repeated = [...model.calls.values()].reduce((sum, n) => sum + n - 1, 0);
      console.info(
        `crash anywhere (seed ${SEED}): ${crashes} crashes, ${TASKS} tasks, ${repeated} model call(s) made again after a crash lost them`
      );

      // A clean stop leaves no DynamoDB Local behind, whatever the crashes left.
      await stack?.stop();
      stack = undefined;
      expect(javaOn(dataDir)).toEqual([]);
    },
    /* every restart takes DynamoDB Local's and the synthesis's start-up */ (2 * CRASHES + 2) *
      45_000
  );
});
