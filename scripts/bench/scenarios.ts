import type { Message } from '@a2a-js/sdk';
import type { HistoryEvent } from '@aws-sdk/client-sfn';
import { DEFAULT_LOOP_CONFIG } from '../../functions/core/loop/config.js';
import { taskEnvelopePart } from '../../functions/core/task/envelope.js';
import { InProcessHarness } from '../../functions/core/testing/in-process-harness.js';
import { ScriptedModel, type ScriptedReply } from '../../functions/core/testing/scripted-model.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import {
  BENCH_BUDGETED_TYPE,
  BENCH_DEFAULT_BUDGETS,
  executionsOf,
  historyOf,
  PARTICIPANT,
  sendMessage,
  userMessage,
  waitParked,
} from './local-client.js';
import { type DynamoDbMeter, increment } from './meter.js';
import { type SwitchModel, TimedModel } from './models.js';

/**
 * The cost scenarios. A turn is one model invocation. With tool calls, one user message starts
 * the task and each of the first K-1 turns makes `calls` tool calls; the K-th answers with text,
 * so the conversation parks once. With none, a turn that makes no call ends in text and parks,
 * so the task gets K user messages, each answered by one text turn: every turn parks and resumes.
 */
export interface Scenario {
  /** The key in the JSON figures. */
  key: 'chat' | 'one_tool' | 'four_tools' | 'chat_budgeted';
  label: string;
  calls: number;
  /** The task has a budget (its type's, `BENCH_BUDGETED_TYPE`): every call is checked. */
  budgeted?: true;
}

export const SCENARIOS: readonly Scenario[] = [
  { key: 'chat', label: 'no tool call', calls: 0 },
  { key: 'one_tool', label: '1 tool call', calls: 1 },
  { key: 'four_tools', label: '4 tool calls', calls: 4 },
  { key: 'chat_budgeted', label: 'no tool call, under a budget', calls: 0, budgeted: true },
];

export interface Script {
  messages: string[];
  replies: ScriptedReply[];
  /** The task is started with a task envelope of the budgeted type. */
  budgeted?: boolean;
}

/** A script's first message: under a budget, with the envelope that gives its task the type. */
export const firstMessage = (script: Script, text: string): Message =>
  script.budgeted === true
    ? {
        ...userMessage(text),
        parts: [
          ...userMessage(text).parts,
          taskEnvelopePart({ name: 'Budgeted', goal: text, type: BENCH_BUDGETED_TYPE }),
        ],
      }
    : userMessage(text);

/** Turns of the warm-up conversation that precedes each measured part (not counted). */
export const WARMUP_TURNS = 5;

export const PLAN_STEPS = ['Gather', 'Draft', 'Review', 'Publish'] as const;

/** Valid intrinsic calls only: a first `create_plan`, then `complete_step`s round the plan. */
export const scriptFor = (calls: number, turns: number, budgeted = false): Script => {
  if (calls === 0) {
    return {
      messages: Array.from({ length: turns }, (_, i) => `message ${i + 1}`),
      replies: Array.from({ length: turns }, (_, i) => ({ text: `answer ${i + 1}` })),
      budgeted,
    };
  }
  let n = 0;
  const call = () => {
    const index = n++;
    if (index === 0) {
      return {
        name: 'create_plan',
        arguments: {
          steps: PLAN_STEPS.map((name) => ({ name, description: `${name} the report.` })),
        },
      };
    }
    const step = PLAN_STEPS[(index - 1) % PLAN_STEPS.length];
    return { name: 'complete_step', arguments: { step, output: `${step} done (call ${index}).` } };
  };
  const replies: ScriptedReply[] = Array.from({ length: turns - 1 }, () => ({
    toolCalls: Array.from({ length: calls }, call),
  }));
  replies.push({ text: 'All steps done.' });
  return { messages: ['write the report'], replies, budgeted };
};

/** What one conversation on the local stack measured. */
export interface LocalRun {
  turns: number;
  messages: number;
  wallMs: number;
  /** When each model call started (performance.now()): the turns' start times. */
  callTimes: number[];
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
  /** Write units as DynamoDB Local reported them, and as AWS bills them (billed-units.ts). */
  writeUnits: number;
  billedWriteUnits: number;
  failedWrites: number;
  /** Time spent in DynamoDB calls, summed. */
  ddbMs: number;
  commands: Map<string, number>;
  /** Items touched, by command and item kind (the sort key's prefix: TASK, HIST#, ONCE#, ...). */
  items: Map<string, number>;
}

const billedMs = (ms: number) => Math.max(1, Math.ceil(ms));

/** Handler durations from the history: Started → Succeeded (or → Submitted for Park). */
export const turnStepDurations = (events: readonly HistoryEvent[]): number[] => {
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

/**
 * One conversation on the local stack: each user message as a JSON-RPC SendMessage that returns
 * at once, then a wait (on the engine, no DynamoDB call) until the task has parked.
 */
export const runLocal = async (
  stack: LocalStack,
  model: SwitchModel,
  meter: DynamoDbMeter,
  script: Script
): Promise<LocalRun> => {
  const turns = script.replies.length;
  const scripted = new ScriptedModel(script.replies);
  const timed = new TimedModel(scripted);
  model.current = timed;
  meter.reset();
  meter.counting = true;
  let wallMs = 0;
  let a2aBilledMs = 0;
  let taskId = '';
  try {
    for (const [index, text] of script.messages.entries()) {
      const started = performance.now();
      const message = taskId === '' ? firstMessage(script, text) : userMessage(text, taskId);
      taskId = (await sendMessage(stack.url, message)).id;
      a2aBilledMs += billedMs(performance.now() - started);
      await waitParked(stack, taskId, index + 1, Math.max(120_000, turns * 1000));
      wallMs += performance.now() - started;
    }
  } finally {
    meter.counting = false;
  }
  if (scripted.requests.length !== turns || scripted.remaining !== 0) {
    throw new Error(`expected ${turns} model calls, saw ${scripted.requests.length}`);
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
    callTimes: timed.started,
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
    billedWriteUnits: meter.billedWriteUnits,
    failedWrites: meter.failedWrites,
    ddbMs: meter.ms,
    commands: meter.commands,
    items: meter.items,
  };
};

export interface InProcessRun {
  wallMs: number;
  callTimes: number[];
}

/** The same script through the in-process harness (in-memory ports, the core's driver). */
export const runInProcess = async (script: Script): Promise<InProcessRun> => {
  const turns = script.replies.length;
  const scripted = new ScriptedModel(script.replies);
  const model = new TimedModel(scripted);
  const harness = new InProcessHarness({
    model,
    config: {
      maxTurns: Math.max(DEFAULT_LOOP_CONFIG.maxTurns, turns + 1),
      defaultBudgets: BENCH_DEFAULT_BUDGETS,
    },
  });
  const started = performance.now();
  let taskId = '';
  for (const text of script.messages) {
    if (taskId === '') {
      taskId = (await harness.start(firstMessage(script, text), PARTICIPANT)).task.id;
    } else await harness.send(taskId, userMessage(text, taskId), PARTICIPANT);
  }
  const wallMs = performance.now() - started;
  if (scripted.requests.length !== turns || scripted.remaining !== 0) {
    throw new Error(`in-process: expected ${turns} model calls, saw ${scripted.requests.length}`);
  }
  if (harness.outcomes.at(-1)?.outcome.kind !== 'parked') {
    throw new Error('in-process: the conversation did not end parked');
  }
  return { wallMs, callTimes: model.started };
};
