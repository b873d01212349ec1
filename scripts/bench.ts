// The orchestration benchmark (`npm run bench`): what a turn costs when the state machine drives
// it, measured on the local stack, against the same turns driven in-process by the core's
// driver. It prints figures; it asserts nothing. docs/benchmark.md explains every column.
//
//   npm run bench                          # K = 20 turns, 3 runs per scenario (the median)
//   npm run bench -- --turns 40 --runs 5   # or BENCH_TURNS / BENCH_RUNS
//   npm run bench -- --markdown            # the tables as Markdown (for docs/benchmark.md)

import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { type Message, SendMessageRequest, SendMessageResponse } from '@a2a-js/sdk';
import type { HistoryEvent } from '@aws-sdk/client-sfn';
import type { DynamoDbCommandObservation } from '../functions/composition/runtime.js';
import { DEFAULT_LOOP_CONFIG } from '../functions/core/loop/config.js';
import { userTextMessage } from '../functions/core/loop/messages.js';
import { InProcessHarness } from '../functions/core/testing/in-process-harness.js';
import { ScriptedModel, type ScriptedReply } from '../functions/core/testing/scripted-model.js';
import { type LocalStack, startLocalStack } from '../functions/local/local-stack.js';

// ---------------------------------------------------------------------------------------------
// Prices: us-east-1 list prices, per unit. Free tiers are ignored. DynamoDB on-demand is the
// price after AWS's cut of 1 November 2024. Check https://aws.amazon.com/{step-functions,lambda,
// dynamodb}/pricing/ before quoting a figure: these are not fetched.
const PRICES = {
  asOf: '2024-11-01 (DynamoDB on-demand cut); Step Functions and Lambda arm64 unchanged since',
  stateTransition: 0.025 / 1_000,
  lambdaRequest: 0.2 / 1_000_000,
  lambdaGbSecondArm64: 0.0000133334,
  readRequestUnit: 0.125 / 1_000_000,
  writeRequestUnit: 0.625 / 1_000_000,
};
/** Every function's memory (cdk/constructs/harness-function.ts: `memorySize ?? 512`). */
const LAMBDA_MEMORY_GB = 512 / 1024;
/** A Standard execution's history limit (Step Functions quotas). */
const HISTORY_LIMIT = 25_000;
const PARTICIPANT = 'alice';
/** The benchmark's caller: a bearer token of its own, and no throttle in the way of its pace. */
const TOKEN = 'bench-token-alice';

// ---------------------------------------------------------------------------------------------
// Options.
const { values: flags } = parseArgs({
  options: {
    turns: { type: 'string' },
    runs: { type: 'string' },
    markdown: { type: 'boolean', default: false },
  },
});
const positive = (raw: string | undefined, fallback: number, name: string): number => {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
};
const TURNS = positive(flags.turns ?? process.env.BENCH_TURNS, 20, 'turns');
const RUNS = positive(flags.runs ?? process.env.BENCH_RUNS, 3, 'runs');
const WARMUP_TURNS = Math.min(TURNS, 5);
const MAX_TURNS = Math.max(DEFAULT_LOOP_CONFIG.maxTurns, TURNS + 1);

// ---------------------------------------------------------------------------------------------
// Scenarios. A turn is one model invocation. With tool calls, one user message starts the task
// and each of the first K-1 turns makes `calls` tool calls; the K-th answers with text, so the
// conversation parks once. With none, a turn that makes no call ends in text and parks, so the
// task gets K user messages, each answered by one text turn: every turn parks and resumes.
interface Scenario {
  name: string;
  calls: number;
}
const SCENARIOS: Scenario[] = [
  { name: 'no tool call', calls: 0 },
  { name: '1 tool call', calls: 1 },
  { name: '4 tool calls', calls: 4 },
];

interface Script {
  messages: string[];
  replies: ScriptedReply[];
}

const STEPS = ['Gather', 'Draft', 'Review', 'Publish'];

/** Valid intrinsic calls only: a first `create_plan`, then `complete_step`s round the plan. */
const scriptFor = (calls: number, turns: number): Script => {
  if (calls === 0) {
    return {
      messages: Array.from({ length: turns }, (_, i) => `message ${i + 1}`),
      replies: Array.from({ length: turns }, (_, i) => ({ text: `answer ${i + 1}` })),
    };
  }
  let n = 0;
  const call = () => {
    const index = n++;
    if (index === 0) {
      return {
        name: 'create_plan',
        arguments: { steps: STEPS.map((name) => ({ name, description: `${name} the report.` })) },
      };
    }
    const step = STEPS[(index - 1) % STEPS.length];
    return { name: 'complete_step', arguments: { step, output: `${step} done (call ${index}).` } };
  };
  const replies: ScriptedReply[] = Array.from({ length: turns - 1 }, () => ({
    toolCalls: Array.from({ length: calls }, call),
  }));
  replies.push({ text: 'All steps done.' });
  return { messages: ['write the report'], replies };
};

let messageCounter = 0;
const userMessage = (text: string, taskId = ''): Message =>
  userTextMessage({ messageId: `bench-${process.pid}-${++messageCounter}`, text, taskId });

// ---------------------------------------------------------------------------------------------
// What one run measures.
interface LocalRun {
  turns: number;
  messages: number;
  wallMs: number;
  transitions: number;
  events: number;
  statesEntered: Map<string, number>;
  /** Turn Step Lambda invocations the state machine made (LambdaFunctionScheduled + Park). */
  turnStepInvocations: number;
  /** Their handler wall times, summed; and each rounded up to 1 ms as Lambda bills. */
  turnStepMs: number;
  turnStepBilledMs: number;
  /** A2A Lambda invocations (one per SendMessage) and their round trips, rounded up. */
  a2aInvocations: number;
  a2aBilledMs: number;
  readRequests: number;
  writeRequests: number;
  readUnits: number;
  writeUnits: number;
  failedWrites: number;
  commands: Map<string, number>;
  /** Items touched, by command and item kind (the sort key's prefix: TASK, HIST#, ONCE#, ...). */
  items: Map<string, number>;
}

const increment = (map: Map<string, number>, key: string, by = 1) =>
  map.set(key, (map.get(key) ?? 0) + by);

/** Items a command reads or writes (a transaction's or a batch's items each count). */
const itemsOf = (observation: DynamoDbCommandObservation): number => {
  const input = observation.input as {
    TransactItems?: unknown[];
    RequestItems?: Record<string, unknown[] | { Keys?: unknown[] }>;
  };
  if (input.TransactItems !== undefined) return input.TransactItems.length;
  if (input.RequestItems !== undefined) {
    return Object.values(input.RequestItems).reduce<number>(
      (sum, entry) => sum + (Array.isArray(entry) ? entry.length : (entry.Keys?.length ?? 0)),
      0
    );
  }
  return 1;
};
/** The kinds of item a command touches, from the sort keys in its input (table.ts). */
const kindsOf = (input: unknown): string[] => {
  const kinds: string[] = [];
  const visit = (value: unknown, key: string) => {
    if (key === 'sk' && typeof value === 'object' && value !== null && 'S' in value) {
      kinds.push(String(value.S).replace(/#.*$/, '#'));
      return;
    }
    if (key === ':from' && typeof value === 'object' && value !== null && 'S' in value) {
      kinds.push(`${String(value.S).replace(/#.*$/, '#')} (range)`);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    for (const [child, inner] of Object.entries(value)) visit(inner, child);
  };
  visit(input, '');
  return kinds.length > 0 ? kinds : ['?'];
};

const READ_COMMANDS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
const WRITE_COMMANDS = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
]);

class DynamoDbMeter {
  counting = false;
  readRequests = 0;
  writeRequests = 0;
  readUnits = 0;
  writeUnits = 0;
  failedWrites = 0;
  commands = new Map<string, number>();
  items = new Map<string, number>();

  reset(): void {
    this.readRequests = this.writeRequests = this.readUnits = this.writeUnits = 0;
    this.failedWrites = 0;
    this.commands = new Map();
    this.items = new Map();
  }

  readonly observe = (observation: DynamoDbCommandObservation): void => {
    if (!this.counting) return;
    const { command } = observation;
    increment(this.commands, command);
    for (const kind of kindsOf(observation.input)) increment(this.items, `${command} ${kind}`);
    const items = itemsOf(observation);
    if (READ_COMMANDS.has(command)) this.readRequests += items;
    if (WRITE_COMMANDS.has(command)) this.writeRequests += items;
    if (observation.consumed !== undefined) {
      this.readUnits += observation.consumed.read;
      this.writeUnits += observation.consumed.write;
    } else if (WRITE_COMMANDS.has(command)) {
      // A refused condition reports no capacity, yet AWS bills it: at least one unit per item.
      this.failedWrites += items;
      this.writeUnits += items * (command === 'TransactWriteItems' ? 2 : 1);
    }
  };
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

const historyOf = (stack: LocalStack, executionArn: string): HistoryEvent[] => {
  const events: HistoryEvent[] = [];
  let nextToken: string | undefined;
  do {
    const page = stack.engine.getExecutionHistory({
      executionArn,
      maxResults: 1000,
      ...(nextToken === undefined ? {} : { nextToken }),
    });
    events.push(...(page.events ?? []));
    nextToken = page.nextToken;
  } while (nextToken !== undefined);
  return events;
};

const executionsOf = async (stack: LocalStack, taskId: string) => {
  const { executions } = await stack.engine.listExecutions({
    stateMachineArn: stack.stateMachineArn,
    maxResults: 1000,
  });
  return (executions ?? []).filter((execution) => execution.name?.startsWith(taskId));
};

/**
 * Waits until the task has parked `parks` times in all (the Park Lambda returned: its
 * TaskSubmitted event), reading the engine only, so the wait adds no DynamoDB call.
 */
const waitParked = async (stack: LocalStack, taskId: string, parks: number) => {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const executions = await executionsOf(stack, taskId);
    for (const execution of executions) {
      if (execution.status === 'FAILED' || execution.status === 'ABORTED') {
        const last = historyOf(stack, execution.executionArn ?? '').at(-1);
        throw new Error(`execution ${execution.name} ${execution.status}: ${JSON.stringify(last)}`);
      }
    }
    const running = executions.find((execution) => execution.status === 'RUNNING');
    const last =
      running?.executionArn === undefined
        ? undefined
        : stack.engine.getExecutionHistory({
            executionArn: running.executionArn,
            reverseOrder: true,
            maxResults: 1,
          }).events?.[0];
    if (last?.type === 'TaskSubmitted') {
      const submitted = executions
        .flatMap((execution) => historyOf(stack, execution.executionArn ?? ''))
        .filter((event) => event.type === 'TaskSubmitted').length;
      if (submitted >= parks) return;
    }
    if (Date.now() > deadline) throw new Error(`task ${taskId} did not park ${parks} times`);
    await sleep(1);
  }
};

/**
 * SendMessage over JSON-RPC, returning at once (the wait is ours: see waitParked); with
 * `historyLength`, the answer carries at most that many messages of the conversation.
 */
const sendMessage = async (
  stack: LocalStack,
  message: Message,
  historyLength?: number
): Promise<string> => {
  const params = SendMessageRequest.toJSON({
    tenant: '',
    message,
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      returnImmediately: true,
      ...(historyLength === undefined ? {} : { historyLength }),
    },
    metadata: undefined,
  });
  const response = await fetch(stack.url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'A2A-Version': '1.0',
      Authorization: `Bearer ${TOKEN}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: messageCounter, method: 'SendMessage', params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: unknown };
  if (body.result === undefined) throw new Error(`SendMessage failed: ${JSON.stringify(body)}`);
  const payload = SendMessageResponse.fromJSON(body.result).payload;
  if (payload?.$case !== 'task') throw new Error('SendMessage answered without a task');
  return payload.value.id;
};

const billedMs = (ms: number) => Math.max(1, Math.ceil(ms));

// ---------------------------------------------------------------------------------------------
// Concurrent senders: many clients write to one task at once.

const SENDERS = 50;
const MESSAGES_PER_SENDER = 8;

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
};

interface ConcurrentRun {
  latenciesMs: number[];
  refused: number;
  seconds: number;
}

/**
 * SENDERS clients each send MESSAGES_PER_SENDER messages to one task (returnImmediately), one
 * after another, all clients at once: how long a SendMessage takes while the task is busy with
 * the others, and whether any is refused (none should be: inbox seqs need no retry loop).
 */
const concurrentSenders = async (
  stack: LocalStack,
  model: ScriptedModel
): Promise<ConcurrentRun> => {
  model.push(...Array.from({ length: SENDERS * MESSAGES_PER_SENDER + 10 }, () => ({ text: 'ok' })));
  const taskId = await sendMessage(stack, userMessage('a task for many senders'));
  const latenciesMs: number[] = [];
  let refused = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: SENDERS }, async (_, sender) => {
      for (let n = 0; n < MESSAGES_PER_SENDER; n++) {
        const sent = performance.now();
        try {
          // A client firing messages asks for none of the conversation back.
          await sendMessage(stack, userMessage(`sender ${sender} message ${n}`, taskId), 0);
          latenciesMs.push(performance.now() - sent);
        } catch {
          refused++;
        }
      }
    })
  );
  return { latenciesMs, refused, seconds: (performance.now() - started) / 1000 };
};

/** Handler durations from the history: Started → Succeeded (or → Submitted for Park). */
const turnStepDurations = (events: readonly HistoryEvent[]): number[] => {
  const durations: number[] = [];
  let started: Date | undefined;
  for (const event of events) {
    if (event.type === 'LambdaFunctionStarted' || event.type === 'TaskStarted') {
      started = event.timestamp;
      continue;
    }
    const ended =
      event.type === 'LambdaFunctionSucceeded' ||
      event.type === 'LambdaFunctionFailed' ||
      event.type === 'LambdaFunctionTimedOut' ||
      event.type === 'TaskSubmitted' ||
      (event.type === 'TaskFailed' && started !== undefined);
    if (ended && started !== undefined && event.timestamp !== undefined) {
      durations.push(event.timestamp.getTime() - started.getTime());
      started = undefined;
    }
  }
  return durations;
};

const runLocal = async (
  stack: LocalStack,
  model: ScriptedModel,
  meter: DynamoDbMeter,
  script: Script,
  turns: number
): Promise<LocalRun> => {
  model.push(...script.replies);
  const before = model.requests.length;
  meter.reset();
  meter.counting = true;
  let wallMs = 0;
  let a2aBilledMs = 0;
  let taskId = '';
  for (const [index, text] of script.messages.entries()) {
    const started = performance.now();
    const sent = await sendMessage(stack, userMessage(text, taskId));
    a2aBilledMs += billedMs(performance.now() - started);
    taskId = sent;
    await waitParked(stack, taskId, index + 1);
    wallMs += performance.now() - started;
  }
  meter.counting = false;
  if (model.requests.length - before !== turns || model.remaining !== 0) {
    throw new Error(`expected ${turns} model calls, saw ${model.requests.length - before}`);
  }

  const statesEntered = new Map<string, number>();
  let transitions = 0;
  let events = 0;
  let turnStepInvocations = 0;
  let turnStepMs = 0;
  let turnStepBilledMs = 0;
  for (const execution of await executionsOf(stack, taskId)) {
    const history = historyOf(stack, execution.executionArn ?? '');
    events += history.length;
    for (const event of history) {
      if (event.type?.endsWith('StateEntered')) {
        transitions++;
        increment(statesEntered, event.stateEnteredEventDetails?.name ?? '?');
      }
      if (event.type === 'LambdaFunctionScheduled' || event.type === 'TaskScheduled') {
        turnStepInvocations++;
      }
    }
    for (const ms of turnStepDurations(history)) {
      turnStepMs += ms;
      turnStepBilledMs += billedMs(ms);
    }
  }
  return {
    turns,
    messages: script.messages.length,
    wallMs,
    transitions,
    events,
    statesEntered,
    turnStepInvocations,
    turnStepMs,
    turnStepBilledMs,
    a2aInvocations: script.messages.length,
    a2aBilledMs,
    readRequests: meter.readRequests,
    writeRequests: meter.writeRequests,
    readUnits: meter.readUnits,
    writeUnits: meter.writeUnits,
    failedWrites: meter.failedWrites,
    commands: meter.commands,
    items: meter.items,
  };
};

/** The same script through the in-process harness (in-memory ports, the core's driver). */
const runInProcess = async (script: Script, turns: number): Promise<number> => {
  const model = new ScriptedModel(script.replies);
  const harness = new InProcessHarness({ model, config: { maxTurns: MAX_TURNS } });
  const started = performance.now();
  let taskId = '';
  for (const text of script.messages) {
    if (taskId === '') taskId = (await harness.start(userMessage(text), PARTICIPANT)).task.id;
    else await harness.send(taskId, userMessage(text, taskId), PARTICIPANT);
  }
  const wallMs = performance.now() - started;
  if (model.requests.length !== turns || model.remaining !== 0) {
    throw new Error(`in-process: expected ${turns} model calls, saw ${model.requests.length}`);
  }
  if (harness.outcomes.at(-1)?.outcome.kind !== 'parked') {
    throw new Error('in-process: the conversation did not end parked');
  }
  return wallMs;
};

// ---------------------------------------------------------------------------------------------
// Aggregation and printing.
const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

interface Row {
  scenario: Scenario;
  local: LocalRun[];
  inProcessMs: number[];
}

const perTurn = (row: Row, pick: (run: LocalRun) => number) =>
  median(row.local.map((run) => pick(run) / run.turns));

const costs = (row: Row) => {
  const transitions = perTurn(row, (run) => run.transitions);
  const invocations = perTurn(row, (run) => run.turnStepInvocations + run.a2aInvocations);
  const billedSeconds = perTurn(row, (run) => run.turnStepBilledMs + run.a2aBilledMs) / 1000;
  const sfn = transitions * 1000 * PRICES.stateTransition;
  const lambda =
    invocations * 1000 * PRICES.lambdaRequest +
    billedSeconds * 1000 * LAMBDA_MEMORY_GB * PRICES.lambdaGbSecondArm64;
  const dynamodb =
    perTurn(row, (run) => run.readUnits) * 1000 * PRICES.readRequestUnit +
    perTurn(row, (run) => run.writeUnits) * 1000 * PRICES.writeRequestUnit;
  return { sfn, lambda, dynamodb, total: sfn + lambda + dynamodb };
};

const fixed = (value: number, digits = 1) => value.toFixed(digits);
const dollars = (value: number) => `$${value.toFixed(4)}`;

const table = (header: string[], rows: string[][]): string => {
  if (flags.markdown) {
    const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
    return [
      line(header),
      line(header.map((_, i) => (i === 0 ? '---' : '---:'))),
      ...rows.map(line),
    ].join('\n');
  }
  const widths = header.map((cell, i) =>
    Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length))
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
};

const print = (rows: Row[]) => {
  const countHeader = [
    'scenario',
    'turns',
    'msgs',
    'transitions/turn',
    'events/turn',
    `turns/gen (${HISTORY_LIMIT / 1000}k)`,
    'Lambda inv/turn',
    'DDB reads/turn',
    'DDB writes/turn',
    'RRU/turn',
    'WRU/turn',
  ];
  const countRows = rows.map((row) => {
    const events = perTurn(row, (run) => run.events);
    return [
      row.scenario.name,
      String(TURNS),
      String(row.local[0]?.messages ?? 0),
      fixed(perTurn(row, (run) => run.transitions)),
      fixed(events),
      String(Math.floor(HISTORY_LIMIT / events)),
      fixed(
        perTurn(row, (run) => run.turnStepInvocations + run.a2aInvocations),
        2
      ),
      fixed(perTurn(row, (run) => run.readRequests)),
      fixed(perTurn(row, (run) => run.writeRequests)),
      fixed(perTurn(row, (run) => run.readUnits)),
      fixed(perTurn(row, (run) => run.writeUnits)),
    ];
  });
  const costHeader = [
    'scenario',
    'Step Functions',
    'Lambda',
    'DynamoDB',
    '$ / 1,000 turns',
    'local ms/turn',
    'handlers ms/turn',
    'in-process ms/turn',
    'overhead ×',
  ];
  const costRows = rows.map((row) => {
    const cost = costs(row);
    const localMs = median(row.local.map((run) => run.wallMs / run.turns));
    const inProcessMs = median(row.inProcessMs.map((ms) => ms / TURNS));
    return [
      row.scenario.name,
      dollars(cost.sfn),
      dollars(cost.lambda),
      dollars(cost.dynamodb),
      dollars(cost.total),
      fixed(localMs),
      fixed(median(row.local.map((run) => run.turnStepMs / run.turns))),
      fixed(inProcessMs, 2),
      fixed(localMs / inProcessMs, 0),
    ];
  });
  console.log(`\nCounts per turn (median of ${RUNS} runs; a turn is one model invocation)\n`);
  console.log(table(countHeader, countRows));
  console.log('\nOrchestration cost per 1,000 turns (model excluded) and wall time per turn\n');
  console.log(table(costHeader, costRows));

  console.log('\nWhere the transitions go (states entered per turn, first run)\n');
  const stateNames = [
    ...new Set(rows.flatMap((row) => [...(row.local[0]?.statesEntered.keys() ?? [])])),
  ];
  console.log(
    table(
      ['state', ...rows.map((row) => row.scenario.name)],
      stateNames.map((name) => [
        name,
        ...rows.map((row) => fixed((row.local[0]?.statesEntered.get(name) ?? 0) / TURNS, 2)),
      ])
    )
  );
  console.log('\nDynamoDB commands per turn (first run)\n');
  const commandNames = [
    ...new Set(rows.flatMap((row) => [...(row.local[0]?.commands.keys() ?? [])])),
  ].sort();
  console.log(
    table(
      ['command', ...rows.map((row) => row.scenario.name)],
      commandNames.map((name) => [
        name,
        ...rows.map((row) => fixed((row.local[0]?.commands.get(name) ?? 0) / TURNS, 2)),
      ])
    )
  );

  console.log('\nDynamoDB items per turn, by command and kind of item (first run)\n');
  const itemNames = [
    ...new Set(rows.flatMap((row) => [...(row.local[0]?.items.keys() ?? [])])),
  ].sort();
  console.log(
    table(
      ['command and item', ...rows.map((row) => row.scenario.name)],
      itemNames.map((name) => [
        name,
        ...rows.map((row) => fixed((row.local[0]?.items.get(name) ?? 0) / TURNS, 2)),
      ])
    )
  );

  const threshold = DEFAULT_LOOP_CONFIG.turnsPerGeneration;
  const worst = Math.max(...rows.map((row) => perTurn(row, (run) => run.events)));
  const projected = Math.round(threshold * worst);
  console.log(
    `\nRenewal: the default threshold is ${threshold} turns per generation; at the worst ` +
      `${fixed(worst)} events per turn that is ${projected} events, ` +
      (projected < HISTORY_LIMIT
        ? `within the ${HISTORY_LIMIT} limit (${fixed((100 * projected) / HISTORY_LIMIT, 0)}%): safe for these scenarios.`
        : `over the ${HISTORY_LIMIT} limit: NOT safe.`)
  );
  const one = rows.find((row) => row.scenario.calls === 1);
  const four = rows.find((row) => row.scenario.calls === 4);
  if (one !== undefined && four !== undefined) {
    const perCall = (perTurn(four, (r) => r.events) - perTurn(one, (r) => r.events)) / 3;
    const base = perTurn(one, (r) => r.events) - perCall;
    const maxCalls = (HISTORY_LIMIT / threshold - base) / perCall;
    console.log(
      `History events per turn ≈ ${fixed(base)} + ${fixed(perCall)} per tool call: the default ` +
        `threshold holds while turns average fewer than ${fixed(maxCalls)} tool calls.`
    );
  }
  const failed = rows.reduce((sum, row) => sum + (row.local[0]?.failedWrites ?? 0), 0);
  if (failed > 0) console.log(`Refused conditional writes (first runs): ${failed}.`);
};

// ---------------------------------------------------------------------------------------------
// Main.
const machine = () => {
  const cpu = cpus();
  return [
    `node ${process.version} on ${platform()} ${release()}`,
    `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB`,
    `load average ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  ].join('; ');
};

console.log(`tiny-harness orchestration benchmark, ${new Date().toISOString()}`);
console.log(`K = ${TURNS} turns per conversation, ${RUNS} runs per scenario (median)`);
console.log(`machine: ${machine()}`);

const meter = new DynamoDbMeter();
const model = new ScriptedModel();
const startedStack = performance.now();
const stack = await startLocalStack({
  port: 0,
  model,
  env: {
    TINY_HARNESS_LOG_LEVEL: 'error',
    // The concurrent senders' task takes a turn for every few messages.
    TINY_HARNESS_MAX_TURNS: String(Math.max(MAX_TURNS, SENDERS * MESSAGES_PER_SENDER + 10)),
    TINY_HARNESS_BEARER_TOKENS: `${TOKEN}=${PARTICIPANT}`,
    TINY_HARNESS_THROTTLE_PER_MINUTE: '1000000',
    TINY_HARNESS_THROTTLE_BURST: '100000',
  },
  onDynamoDbCommand: meter.observe,
});
console.log(`local stack up in ${fixed((performance.now() - startedStack) / 1000)} s`);

try {
  const rows: Row[] = [];
  for (const scenario of SCENARIOS) {
    // A warm-up conversation (not counted): JIT, connections, DynamoDB Local's first writes.
    await runLocal(stack, model, meter, scriptFor(scenario.calls, WARMUP_TURNS), WARMUP_TURNS);
    await runInProcess(scriptFor(scenario.calls, WARMUP_TURNS), WARMUP_TURNS);
    const row: Row = { scenario, local: [], inProcessMs: [] };
    for (let run = 0; run < RUNS; run++) {
      row.local.push(await runLocal(stack, model, meter, scriptFor(scenario.calls, TURNS), TURNS));
      row.inProcessMs.push(await runInProcess(scriptFor(scenario.calls, TURNS), TURNS));
    }
    const varying = new Set(row.local.map((run) => `${run.transitions}/${run.events}`));
    if (varying.size > 1) console.log(`note: ${scenario.name}: counts varied between runs`);
    rows.push(row);
    process.stdout.write(`  ${scenario.name}: done\n`);
  }
  print(rows);

  const concurrent = await concurrentSenders(stack, model);
  console.log(
    `\nConcurrent senders: ${SENDERS} clients × ${MESSAGES_PER_SENDER} messages to one task ` +
      `(SendMessage, returnImmediately, historyLength 0), in ${fixed(concurrent.seconds)} s`
  );
  console.log(
    table(
      ['accepted', 'refused', 'p50 ms', 'p95 ms', 'max ms'],
      [
        [
          String(concurrent.latenciesMs.length),
          String(concurrent.refused),
          fixed(percentile(concurrent.latenciesMs, 50), 0),
          fixed(percentile(concurrent.latenciesMs, 95), 0),
          fixed(Math.max(...concurrent.latenciesMs), 0),
        ],
      ]
    )
  );
  console.log(
    `\nPrices (us-east-1, as of ${PRICES.asOf}): Step Functions Standard $0.025 per 1,000 ` +
      'state transitions; Lambda arm64 $0.0000133334 per GB-second at ' +
      `${LAMBDA_MEMORY_GB * 1024} MB + $0.20 per 1M requests; DynamoDB on-demand $0.125 per ` +
      'million read units, $0.625 per million write units. Excluded: the model, API Gateway, ' +
      'CloudWatch Logs and X-Ray, free tiers. Lambda seconds are local handler wall times ' +
      '(a rough proxy, not Lambda durations).'
  );
  console.log(`machine after the run: ${machine()}`);
} finally {
  await stack.close();
}
