import { type Message, SendMessageRequest, SendMessageResponse, type Task } from '@a2a-js/sdk';
import type { HistoryEvent } from '@aws-sdk/client-sfn';
import { userTextMessage } from '../../functions/core/loop/messages.js';
import type { LocalStack } from '../../functions/local/local-stack.js';

export const PARTICIPANT = 'alice';
/** The benchmark's caller: a bearer token of its own, and no throttle in the way of its pace. */
export const TOKEN = 'bench-token-alice';

/** The environment the benchmark's local stack runs with. */
/**
 * The task type the bench stacks give a budget, far above what a run spends: a task of it checks
 * its budget before every call, and nothing else changes (the budget check's cost).
 */
export const BENCH_BUDGETED_TYPE = 'bench-budgeted';
export const BENCH_DEFAULT_BUDGETS = {
  [BENCH_BUDGETED_TYPE]: { model_calls: 1_000_000, output_tokens: 1_000_000_000 },
};

export const benchStackEnv = (maxTurns: number): Record<string, string> => ({
  TINY_HARNESS_LOG_LEVEL: 'error',
  TINY_HARNESS_MAX_TURNS: String(maxTurns),
  TINY_HARNESS_BEARER_TOKENS: `${TOKEN}=${PARTICIPANT}`,
  TINY_HARNESS_THROTTLE_PER_MINUTE: '1000000',
  TINY_HARNESS_THROTTLE_BURST: '100000',
  TINY_HARNESS_DEFAULT_BUDGET: JSON.stringify(BENCH_DEFAULT_BUDGETS),
});

let messageCounter = 0;
export const userMessage = (text: string, taskId = ''): Message =>
  userTextMessage({ messageId: `bench-${process.pid}-${++messageCounter}`, text, taskId });

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

export const historyOf = (stack: LocalStack, executionArn: string): HistoryEvent[] => {
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

/** The task's executions (one per generation), newest first. */
export const executionsOf = async (stack: LocalStack, taskId: string) => {
  const found = [];
  let nextToken: string | undefined;
  do {
    const page = await stack.engine.listExecutions({
      stateMachineArn: stack.stateMachineArn,
      maxResults: 1000,
      ...(nextToken === undefined ? {} : { nextToken }),
    });
    found.push(...(page.executions ?? []).filter((e) => e.name?.startsWith(taskId)));
    nextToken = page.nextToken;
  } while (nextToken !== undefined);
  return found;
};

/** Per execution: the newest history event read so far, and the parks (TaskSubmitted) up to it. */
const parksRead = new Map<string, { lastId: number; parks: number }>();

/**
 * How many times an execution has parked (its Park state's returns, TaskSubmitted), reading only
 * the events since the last call, newest first: the wait adds little to the stack it measures,
 * however long the conversation.
 */
const parksIn = (stack: LocalStack, executionArn: string): number => {
  const seen = parksRead.get(executionArn) ?? { lastId: 0, parks: 0 };
  let newest = seen.lastId;
  let parks = seen.parks;
  let nextToken: string | undefined;
  read: do {
    const page = stack.engine.getExecutionHistory({
      executionArn,
      reverseOrder: true,
      maxResults: 100,
      includeExecutionData: false,
      ...(nextToken === undefined ? {} : { nextToken }),
    });
    for (const event of page.events ?? []) {
      if ((event.id ?? 0) <= seen.lastId) break read;
      newest = Math.max(newest, event.id ?? 0);
      if (event.type === 'TaskSubmitted') parks++;
    }
    nextToken = page.nextToken;
  } while (nextToken !== undefined);
  parksRead.set(executionArn, { lastId: newest, parks });
  return parks;
};

/** How many times the task has parked, all generations. */
const parksOf = (stack: LocalStack, arns: readonly string[]) =>
  arns.reduce((sum, arn) => sum + parksIn(stack, arn), 0);

type Executions = ReadonlyArray<{ status?: string | undefined; executionArn?: string | undefined }>;

/** Whether the task's running execution waits in Park (its Lambda returned: TaskSubmitted last). */
export const isParked = (stack: LocalStack, executions: Executions): boolean => {
  const running = executions.find((execution) => execution.status === 'RUNNING');
  if (running?.executionArn === undefined) return false;
  const [last] =
    stack.engine.getExecutionHistory({
      executionArn: running.executionArn,
      reverseOrder: true,
      maxResults: 1,
    }).events ?? [];
  return last?.type === 'TaskSubmitted';
};

/**
 * Waits until the task has parked `parks` times in all (the Park Lambda returned: its
 * TaskSubmitted event), reading the engine only, so the wait adds no DynamoDB call.
 */
export const waitParked = async (
  stack: LocalStack,
  taskId: string,
  parks: number,
  timeoutMs = 120_000
): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  // The task's executions are listed again only when none of those known runs (a new
  // generation's may have started): listing reads every execution of the stack.
  let known = await executionsOf(stack, taskId);
  for (;;) {
    let executions: ReadonlyArray<{ status?: string; executionArn?: string; name?: string }> =
      known.map((execution) =>
        stack.engine.describeExecution({ executionArn: execution.executionArn ?? '' })
      );
    if (!executions.some((execution) => execution.status === 'RUNNING')) {
      known = await executionsOf(stack, taskId);
      executions = known;
    }
    for (const execution of executions) {
      if (execution.status === 'FAILED' || execution.status === 'ABORTED') {
        const last = historyOf(stack, execution.executionArn ?? '').at(-1);
        throw new Error(`execution ${execution.name} ${execution.status}: ${JSON.stringify(last)}`);
      }
    }
    if (isParked(stack, executions)) {
      const arns = executions.map((execution) => execution.executionArn ?? '');
      if (parksOf(stack, arns) >= parks) return;
    }
    if (Date.now() > deadline) throw new Error(`task ${taskId} did not park ${parks} times`);
    await sleep(1);
  }
};

export interface SendOptions {
  /** Answer at once (the default) or when the task stops working (a blocking SendMessage). */
  returnImmediately?: boolean;
  /** At most this many messages of the conversation in the answer. */
  historyLength?: number;
}

/** A JSON-RPC method called as the benchmark's participant: its result, or a failure. */
export const callJsonRpc = async (url: string, method: string, params: unknown) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'A2A-Version': '1.0',
      Authorization: `Bearer ${TOKEN}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++requestCounter, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: unknown };
  if (body.result === undefined) throw new Error(`${method} failed: ${JSON.stringify(body)}`);
  return body.result;
};

let requestCounter = 0;

/** SendMessage over JSON-RPC, as any A2A client sends it; the answer's task. */
export const sendMessage = async (
  url: string,
  message: Message,
  options: SendOptions = {}
): Promise<Task> => {
  const params = SendMessageRequest.toJSON({
    tenant: '',
    message,
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      returnImmediately: options.returnImmediately ?? true,
      ...(options.historyLength === undefined ? {} : { historyLength: options.historyLength }),
    },
    metadata: undefined,
  });
  const result = await callJsonRpc(url, 'SendMessage', params);
  const payload = SendMessageResponse.fromJSON(result).payload;
  if (payload?.$case !== 'task') throw new Error('SendMessage answered without a task');
  return payload.value;
};
