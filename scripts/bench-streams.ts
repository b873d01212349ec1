// The streams benchmark (`npm run bench:streams`): what an open SSE stream costs and how late its
// events arrive, on the local stack (DynamoDB Local, the real handlers, the HTTP shim, 250 ms
// polls as in the cloud). It prints figures; it asserts nothing. docs/benchmark.md explains them.
//
//   npm run bench:streams                      # 1, 10 and 50 concurrent subscribers
//   npm run bench:streams -- --streams 1,100   # other counts
//   npm run bench:streams -- --idle-seconds 10 # a longer idle window

import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { startLocalStack } from '../functions/local/local-stack.js';
import { DEFAULT_STREAM_TIMING } from '../functions/service/task-stream.js';

const TOKEN = 'bench-token-alice';
/**
 * DynamoDB on-demand, us-east-1, per read request unit. A strongly consistent Query of up to
 * 4 KB (what an idle poll is: no new event) costs one unit.
 */
const READ_REQUEST_PRICE = 0.125 / 1_000_000;
/** Lambda arm64, us-east-1, per GB-second. */
const LAMBDA_GB_SECOND_ARM64 = 0.0000133334;
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

const { values: flags } = parseArgs({
  options: {
    streams: { type: 'string', default: '1,10,50' },
    'idle-seconds': { type: 'string', default: '5' },
  },
});
const COUNTS = (flags.streams ?? '').split(',').map(Number);
const IDLE_MS = Number(flags['idle-seconds']) * 1000;
if (COUNTS.some((count) => !Number.isInteger(count) || count < 1) || !(IDLE_MS > 0)) {
  throw new Error('--streams takes positive integers, --idle-seconds a positive number');
}

let reads = 0;
const stack = await startLocalStack({
  port: 0,
  env: {
    TINY_HARNESS_BEARER_TOKENS: `${TOKEN}=alice`,
    TINY_HARNESS_LOG_LEVEL: 'warn',
    // The subscribers are one client: no throttle, and no cap on its open streams, in the way
    // of opening them.
    TINY_HARNESS_THROTTLE_PER_MINUTE: '100000',
    TINY_HARNESS_THROTTLE_BURST: '100000',
    TINY_HARNESS_STREAMS_PER_CALLER: '100000',
  },
  onDynamoDbCommand: ({ command }) => {
    if (command === 'Query' || command === 'GetItem') reads++;
  },
  // The cloud's streams: read on their poll alone (`npm start`'s also read when the task is written).
  pollStreamsOnly: true,
});

const headers = {
  'Content-Type': 'application/json',
  'A2A-Version': '1.0',
  Authorization: `Bearer ${TOKEN}`,
};
let counter = 0;
const send = async (text: string, taskId?: string) => {
  const message = {
    messageId: `bench-streams-${++counter}`,
    role: 'ROLE_USER',
    parts: [{ text }],
    ...(taskId === undefined ? {} : { taskId }),
  };
  const response = await fetch(`${stack.url}/message:send`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ message }),
  });
  return ((await response.json()) as { task: { id: string } }).task;
};

/** One subscriber: records when each status frame arrived, and how late after its timestamp. */
const subscribe = async (taskId: string) => {
  const response = await fetch(`${stack.url}/tasks/${taskId}:subscribe`, {
    method: 'POST',
    headers,
  });
  if (!response.ok) {
    throw new Error(`subscribing was refused (${response.status}): ${await response.text()}`);
  }
  const latencies: number[] = [];
  let opened: () => void = () => undefined;
  const first = new Promise<void>((resolve) => {
    opened = resolve;
  });
  const done = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      const frames = buffer.split('\n\n');
      buffer = frames.pop() ?? '';
      for (const frame of frames) {
        const data = frame.split('\n').find((line) => line.startsWith('data: '));
        if (data === undefined) continue;
        const event = JSON.parse(data.slice(6)) as {
          task?: unknown;
          statusUpdate?: { status: { timestamp: string } };
        };
        if (event.task !== undefined) opened();
        const stamp = event.statusUpdate?.status.timestamp;
        if (stamp !== undefined) latencies.push(Date.now() - Date.parse(stamp));
      }
    }
  })();
  await first;
  return { latencies, done };
};

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

console.log(
  `tiny-harness streams benchmark · ${new Date().toISOString()} · ${cpus().length} cores, load ${loadavg()[0]?.toFixed(2)} · poll ${DEFAULT_STREAM_TIMING.pollIntervalMs} ms`
);
console.log(
  '| subscribers | reads / stream-second (idle) | $ per stream-hour (idle reads) | heap per stream (server + client) | status latency p50 / p95 (ms) |'
);
console.log('| ---: | ---: | ---: | ---: | ---: |');
try {
  for (const count of COUNTS) {
    const task = await send('hello');
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const subscribers = await Promise.all(Array.from({ length: count }, () => subscribe(task.id)));
    // Replayed frames are not news: only what arrives after the message counts for latency.
    for (const subscriber of subscribers) subscriber.latencies.length = 0;
    const readsBefore = reads;
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idleReads = (reads - readsBefore) / count / (IDLE_MS / 1000);
    gc();
    const heapPerStream = (process.memoryUsage().heapUsed - heapBefore) / count;
    await send('and again', task.id);
    await Promise.all(subscribers.map((subscriber) => subscriber.done));
    const latencies = subscribers.flatMap((subscriber) => subscriber.latencies);
    console.log(
      `| ${count} | ${idleReads.toFixed(1)} | $${(idleReads * 3600 * READ_REQUEST_PRICE).toFixed(4)} | ${(heapPerStream / 1024).toFixed(0)} KiB | ${percentile(latencies, 50)} / ${percentile(latencies, 95)} |`
    );
  }
  // Not measured: in the cloud an open stream holds its Lambda invocation (and its memory) open.
  const lambdaPerHour = 0.5 * 3600 * LAMBDA_GB_SECOND_ARM64;
  console.log(
    `\nIn the cloud a stream also holds its A2A Lambda invocation: 512 MB for an hour is $${lambdaPerHour.toFixed(4)} (arm64 list price), which dominates the reads above.`
  );
} finally {
  await stack.close();
}
