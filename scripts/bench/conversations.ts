import { type ChildProcess, fork } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { TaskState } from '@a2a-js/sdk';
import { ownCpuMs } from './cpu.js';
import type { BenchFigures } from './figures.js';
import { fixed, orUnknown } from './format.js';
import { sendMessage, userMessage } from './local-client.js';
import type { MemorySample } from './memory.js';
import type { ParkStackReply, ParkStackRequest } from './park-stack.js';
import { percentile } from './stats.js';

const PARK_STACK = fileURLToPath(new URL('./park-stack.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface OpenedBatch {
  opened: number;
  seconds: number;
  /** Each conversation's SendMessage round trip: from the request to the parked task. */
  latenciesMs: number[];
  /** Why the batch stopped short, if it did. */
  stopped: string | undefined;
}

/**
 * `count` new conversations, `clients` at a time, each a blocking SendMessage (what a client
 * sends to hear the answer) that must come back parked (INPUT_REQUIRED) by the demo model.
 */
export const openConversations = async (
  url: string,
  count: number,
  clients: number,
  first: number
): Promise<OpenedBatch> => {
  const latenciesMs: number[] = [];
  let next = 0;
  let stopped: string | undefined;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (stopped === undefined && next < count) {
        const n = first + next++;
        const sent = performance.now();
        try {
          const task = await sendMessage(url, userMessage(`conversation ${n + 1}`), {
            returnImmediately: false,
            historyLength: 0,
          });
          if (task.status?.state !== TaskState.TASK_STATE_INPUT_REQUIRED) {
            throw new Error(`answered in state ${task.status?.state}`);
          }
          latenciesMs.push(performance.now() - sent);
        } catch (error) {
          stopped ??= `conversation ${n + 1}: ${(error as Error).message}`;
        }
      }
    })
  );
  return {
    opened: latenciesMs.length,
    seconds: (performance.now() - started) / 1000,
    latenciesMs,
    stopped,
  };
};

type CpuReading = { nodeCpuMs: number; dynamodbCpuMs: number | null; clientsCpuMs: number };
type CpuPerConversation = NonNullable<Figures['new_conversations']>['cpu_ms_per_conversation'];

/**
 * The CPU time one conversation cost each process, between two readings around `opened`
 * conversations: the stack's (Node), its DynamoDB Local's, and the clients' (this process).
 */
export const cpuPerConversation = (
  before: CpuReading,
  after: CpuReading,
  opened: number
): CpuPerConversation => {
  const per = (used: number) => (opened > 0 ? Math.max(0, used) / opened : 0);
  return {
    stack_node: per(after.nodeCpuMs - before.nodeCpuMs),
    dynamodb_local:
      before.dynamodbCpuMs === null || after.dynamodbCpuMs === null
        ? null
        : per(after.dynamodbCpuMs - before.dynamodbCpuMs),
    clients: per(after.clientsCpuMs - before.clientsCpuMs),
  };
};

/** How long the idle stack is watched, once every conversation is parked, and after what pause. */
const IDLE_SETTLE_MS = 1_000;
const IDLE_WINDOW_MS = 5_000;

type IdleCpu = NonNullable<NonNullable<Figures['parked']>['idle_cpu_ms_per_s']>;

/** The CPU each process of the stack used per second between two readings `seconds` apart. */
export const idleCpuPerSecond = (
  before: Omit<CpuReading, 'clientsCpuMs'>,
  after: Omit<CpuReading, 'clientsCpuMs'>,
  seconds: number
): IdleCpu => {
  const per = (used: number) => Math.max(0, used) / Math.max(seconds, 1e-9);
  return {
    seconds,
    stack_node: per(after.nodeCpuMs - before.nodeCpuMs),
    dynamodb_local:
      before.dynamodbCpuMs === null || after.dynamodbCpuMs === null
        ? null
        : per(after.dynamodbCpuMs - before.dynamodbCpuMs),
  };
};

/**
 * The most conversations a second this machine could open at that CPU cost, every core busy with
 * nothing else: an upper bound on the rate, whatever the number of clients.
 */
export const cpuCeiling = (cpu: CpuPerConversation, cores: number): number | null => {
  if (cpu.dynamodb_local === null) return null;
  const total = cpu.stack_node + cpu.dynamodb_local + cpu.clients;
  return total > 0 ? (cores * 1000) / total : null;
};

/** Memory is read at this many parked counts, evenly spaced. */
const CHECKPOINTS = 5;

/** Up to `steps` evenly spaced counts after `from`, ending at `to`, each above the last. */
export const checkpointCounts = (from: number, to: number, steps: number): number[] => {
  const counts: number[] = [];
  for (let step = 1; step <= steps; step++) {
    const count = from + Math.round(((to - from) * step) / steps);
    if (count > (counts.at(-1) ?? from)) counts.push(count);
  }
  return counts;
};

/** The local stack in its own process, and a way to ask it things over IPC. */
interface ParkStack {
  url: string;
  /** Both processes' resident memory, after a full collection in the stack's. */
  sample: () => Promise<MemorySample>;
  /** CPU time used so far by the stack's process and by its DynamoDB Local (null: unreadable). */
  cpu: () => Promise<{ nodeCpuMs: number; dynamodbCpuMs: number | null }>;
  /** The executions the engine holds running (each parked conversation is one). */
  running: () => Promise<number>;
  /** Set once the process has exited: why. */
  exited: () => string | undefined;
  close: () => Promise<void>;
}

const startParkStack = async (): Promise<ParkStack> => {
  const child: ChildProcess = fork(PARK_STACK, [], {
    cwd: ROOT,
    execArgv: ['--expose-gc', '--import', 'tsx'],
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const stderr: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr.push(chunk.toString('utf8'));
    if (stderr.length > 50) stderr.shift();
  });
  let exited: string | undefined;
  const waiters = new Set<(reply: ParkStackReply) => void>();
  const failures = new Set<(reason: string) => void>();
  child.on('message', (reply: ParkStackReply) => {
    for (const waiter of waiters) waiter(reply);
  });
  child.on('exit', (code, signal) => {
    exited = `the stack's process exited (${signal ?? `code ${code}`}): ${stderr.join('').trim().split('\n').slice(-5).join(' | ')}`;
    for (const fail of failures) fail(exited);
  });
  const next = <T extends ParkStackReply['type']>(type: T) =>
    new Promise<Extract<ParkStackReply, { type: T }>>((resolve, reject) => {
      if (exited !== undefined) return reject(new Error(exited));
      const waiter = (reply: ParkStackReply) => {
        if (reply.type !== type) return;
        waiters.delete(waiter);
        failures.delete(fail);
        resolve(reply as Extract<ParkStackReply, { type: T }>);
      };
      const fail = (reason: string) => {
        waiters.delete(waiter);
        reject(new Error(reason));
      };
      waiters.add(waiter);
      failures.add(fail);
    });
  const ready = await next('ready');
  return {
    url: ready.url,
    sample: async () => {
      const reply = next('sample');
      child.send({ type: 'sample' } satisfies ParkStackRequest);
      const { type: _, ...sample } = await reply;
      return sample;
    },
    cpu: async () => {
      const reply = next('cpu');
      child.send({ type: 'cpu' } satisfies ParkStackRequest);
      const { type: _, ...used } = await reply;
      return used;
    },
    running: async () => {
      const reply = next('count');
      child.send({ type: 'count' } satisfies ParkStackRequest);
      return (await reply).running;
    },
    exited: () => exited,
    close: async () => {
      if (exited !== undefined) return;
      const gone = new Promise((done) => child.once('exit', done));
      const within = (ms: number) =>
        Promise.race([gone, new Promise((done) => setTimeout(done, ms).unref())]);
      child.send({ type: 'close' } satisfies ParkStackRequest);
      await within(30_000);
      // SIGTERM first: the stack's process then stops its DynamoDB Local on the way out.
      if (exited === undefined) child.kill('SIGTERM');
      await within(5_000);
      if (exited === undefined) child.kill('SIGKILL');
    },
  };
};

type Figures = Pick<BenchFigures, 'new_conversations' | 'parked'>;

/** `count` conversations opened on the stack, and the CPU each cost each process meanwhile. */
const timedBatch = async (stack: ParkStack, count: number, clients: number, first: number) => {
  const before = { ...(await stack.cpu()), clientsCpuMs: ownCpuMs() };
  const batch = await openConversations(stack.url, count, clients, first);
  const after = { ...(await stack.cpu()), clientsCpuMs: ownCpuMs() };
  return { batch, cpu: cpuPerConversation(before, after, batch.opened) };
};

/**
 * New conversations per second, then parked conversations, on a local stack of its own (the
 * demo model, as `npm start` runs it): `warmUpConversations` are opened first and reported apart,
 * then `conversations` are opened by `clients` concurrent clients and timed; parking goes on
 * until `parked` conversations are parked, reading the stack's memory (Node and DynamoDB Local)
 * at a few counts on the way.
 */
export const measureConversations = async (
  options: { conversations: number; warmUpConversations: number; parked: number; clients: number },
  progress: (message: string) => void
): Promise<Figures> => {
  const stack = await startParkStack();
  try {
    const runningBefore = await stack.running();
    const baseline = await stack.sample();
    // A fresh stack's first conversations also pay for compiling its code (V8's and the
    // DynamoDB Local JVM's): they are opened first and reported apart, not in the rate.
    const warmUp =
      options.warmUpConversations > 0
        ? await timedBatch(stack, options.warmUpConversations, options.clients, 0)
        : undefined;
    if (warmUp !== undefined) {
      const { stack_node, dynamodb_local } = warmUp.cpu;
      progress(
        `${warmUp.batch.opened} conversations to warm up, ${fixed(stack_node)} + ` +
          `${orUnknown(dynamodb_local)} ms of CPU each`
      );
    }
    const warmed = warmUp?.batch.opened ?? 0;
    const { batch: opened, cpu } =
      warmUp?.batch.stopped === undefined
        ? await timedBatch(stack, options.conversations, options.clients, warmed)
        : { batch: { ...warmUp.batch, opened: 0, seconds: 0, latenciesMs: [] }, cpu: warmUp.cpu };
    const cores = availableParallelism();
    const newConversations = {
      clients: options.clients,
      conversations: opened.opened,
      seconds: opened.seconds,
      per_s: opened.opened / Math.max(opened.seconds, 1e-9),
      p50_ms: percentile(opened.latenciesMs, 50),
      p95_ms: percentile(opened.latenciesMs, 95),
      stopped: opened.stopped ?? null,
      cpu_ms_per_conversation: cpu,
      cores,
      cpu_ceiling_per_s: cpuCeiling(cpu, cores),
      warm_up:
        warmUp === undefined
          ? null
          : {
              conversations: warmUp.batch.opened,
              seconds: warmUp.batch.seconds,
              cpu_ms_per_conversation: warmUp.cpu,
            },
    };
    progress(`${opened.opened} new conversations at ${fixed(newConversations.per_s)} per second`);

    const checkpoints: Array<MemorySample & { parked: number; seconds: number }> = [];
    let parked = warmed + opened.opened;
    let seconds = (warmUp?.batch.seconds ?? 0) + opened.seconds;
    let stopped = opened.stopped;
    const goals =
      stopped === undefined ? checkpointCounts(parked, options.parked, CHECKPOINTS) : [];
    for (const goal of goals) {
      const batch = await openConversations(stack.url, goal - parked, options.clients, parked);
      parked += batch.opened;
      seconds += batch.seconds;
      stopped = stack.exited() ?? batch.stopped;
      if (stack.exited() !== undefined) break;
      const point = { parked, seconds, ...(await stack.sample()) };
      checkpoints.push(point);
      progress(
        `${point.parked} parked in ${fixed(point.seconds)} s: Node ` +
          `${fixed(point.nodeRssBytes / 2 ** 20, 0)} MiB, DynamoDB Local ` +
          `${fixed(point.dynamodbRssBytes / 2 ** 20, 0)} MiB`
      );
      if (stopped !== undefined) break;
    }
    if (checkpoints.length === 0 && stack.exited() === undefined) {
      checkpoints.push({ parked, seconds, ...(await stack.sample()) });
    }
    // What the engine holds is the count that matters: every parked conversation is a running
    // execution waiting on its task token.
    const running = stack.exited() === undefined ? await stack.running() : parked;
    if (running !== parked + runningBefore && stopped === undefined) {
      stopped = `${parked} conversations parked but the engine holds ${running} running executions`;
    }
    let idle: IdleCpu | null = null;
    if (stack.exited() === undefined) {
      await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
      const before = await stack.cpu();
      const started = performance.now();
      await new Promise((resolve) => setTimeout(resolve, IDLE_WINDOW_MS));
      idle = idleCpuPerSecond(before, await stack.cpu(), (performance.now() - started) / 1000);
      progress(
        `idle with ${parked} parked: ${fixed(idle.stack_node)} ms of Node CPU a second, ` +
          `${idle.dynamodb_local === null ? 'unknown' : fixed(idle.dynamodb_local)} of DynamoDB Local`
      );
    }
    const last = checkpoints.at(-1);
    const perParked = (now: number, before: number) => (parked > 0 ? (now - before) / parked : 0);
    return {
      new_conversations: newConversations,
      parked: {
        target: options.parked,
        parked,
        seconds,
        clients: options.clients,
        running_executions_before: runningBefore,
        node_rss_bytes: last?.nodeRssBytes ?? 0,
        node_heap_used_bytes: last?.nodeHeapUsedBytes ?? 0,
        dynamodb_rss_bytes: last?.dynamodbRssBytes ?? 0,
        total_rss_bytes: (last?.nodeRssBytes ?? 0) + (last?.dynamodbRssBytes ?? 0),
        baseline: {
          node_rss_bytes: baseline.nodeRssBytes,
          node_heap_used_bytes: baseline.nodeHeapUsedBytes,
          dynamodb_rss_bytes: baseline.dynamodbRssBytes,
        },
        node_rss_bytes_per_parked: perParked(last?.nodeRssBytes ?? 0, baseline.nodeRssBytes),
        dynamodb_rss_bytes_per_parked: perParked(
          last?.dynamodbRssBytes ?? 0,
          baseline.dynamodbRssBytes
        ),
        idle_cpu_ms_per_s: idle,
        checkpoints: checkpoints.map((point) => ({
          parked: point.parked,
          seconds: point.seconds,
          node_rss_bytes: point.nodeRssBytes,
          node_heap_used_bytes: point.nodeHeapUsedBytes,
          dynamodb_rss_bytes: point.dynamodbRssBytes,
        })),
        stopped: stopped ?? null,
      },
    };
  } finally {
    await stack.close();
  }
};
