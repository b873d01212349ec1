/**
 * The bench's "1 tool call" conversation driven by LangGraph.js, for the side-by-side: a
 * two-node graph (agent → tools → agent ...) whose agent plays the same script as our scripted
 * model and whose tool node applies the same two plan tools to a plan in the graph's state,
 * validating their arguments with the same zod schemas. A checkpointer saves the state after
 * every step: LangGraph's MemorySaver (in memory) or its SqliteSaver on a file (durable).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import {
  Annotation,
  type BaseCheckpointSaver,
  END,
  MemorySaver,
  MessagesAnnotation,
  START,
  StateGraph,
} from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { CompleteStepInputSchema } from '../../functions/core/tools/intrinsics/complete-step.js';
import { CreatePlanInputSchema } from '../../functions/core/tools/intrinsics/create-plan.js';
import type { Script } from './scenarios.js';

interface PlanStep {
  name: string;
  description: string;
  done: boolean;
  output: string | null;
}

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  plan: Annotation<PlanStep[]>({ reducer: (_, next) => next, default: () => [] }),
});
type GraphState = typeof State.State;

/** One tool call applied to the plan: its result text and the next plan. */
const applyCall = (plan: PlanStep[], name: string, raw: unknown) => {
  if (name === 'create_plan') {
    const args = CreatePlanInputSchema.parse(raw);
    const steps = args.steps.map((step) => ({
      name: step.name,
      description: step.description,
      done: false,
      output: null,
    }));
    return { plan: steps, result: `plan created with ${steps.length} steps` };
  }
  if (name === 'complete_step') {
    const args = CompleteStepInputSchema.parse(raw);
    if (!plan.some((step) => step.name === args.step)) {
      return { plan, result: `unknown step ${args.step}` };
    }
    return {
      plan: plan.map((step) =>
        step.name === args.step ? { ...step, done: true, output: args.output } : step
      ),
      result: `step ${args.step} done`,
    };
  }
  return { plan, result: `unknown tool ${name}` };
};

export interface LangGraphRun {
  wallMs: number;
  /** When each agent step (a model turn) started (performance.now()). */
  callTimes: number[];
}

const buildGraph = (script: Script, callTimes: number[], checkpointer: BaseCheckpointSaver) => {
  let turn = 0;
  const agent = (_state: GraphState) => {
    callTimes.push(performance.now());
    const reply = script.replies[turn++];
    if (reply === undefined) throw new Error(`the script has no reply ${turn}`);
    const toolCalls = (reply.toolCalls ?? []).map((call, position) => ({
      id: `call-${turn}-${position + 1}`,
      name: call.name,
      args: call.arguments as Record<string, unknown>,
      type: 'tool_call' as const,
    }));
    return { messages: [new AIMessage({ content: reply.text ?? '', tool_calls: toolCalls })] };
  };
  const tools = (state: GraphState) => {
    const last = state.messages.at(-1) as AIMessage;
    let plan = state.plan;
    const messages: BaseMessage[] = [];
    for (const call of last.tool_calls ?? []) {
      // Arguments arrive as JSON text from a model: parsed, then validated, as ours are.
      const applied = applyCall(plan, call.name, JSON.parse(JSON.stringify(call.args)));
      plan = applied.plan;
      messages.push(new ToolMessage({ content: applied.result, tool_call_id: call.id ?? '' }));
    }
    return { messages, plan };
  };
  const route = (state: GraphState) => {
    const last = state.messages.at(-1) as AIMessage;
    return (last.tool_calls?.length ?? 0) > 0 ? 'tools' : END;
  };
  return new StateGraph(State)
    .addNode('agent', agent)
    .addNode('tools', tools)
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', route, ['tools', END])
    .addEdge('tools', 'agent')
    .compile({ checkpointer });
};

let threads = 0;

/** Runs the script's one message through a fresh graph on `checkpointer`; the wall time. */
const runWith = async (
  script: Script,
  checkpointer: BaseCheckpointSaver
): Promise<LangGraphRun> => {
  const callTimes: number[] = [];
  const graph = buildGraph(script, callTimes, checkpointer);
  const turns = script.replies.length;
  const started = performance.now();
  const final = await graph.invoke(
    { messages: [new HumanMessage(script.messages[0] ?? '')] },
    {
      configurable: { thread_id: `bench-${++threads}` },
      // Two supersteps per turn (agent, tools), and the first agent step.
      recursionLimit: 2 * turns + 5,
      // Each step's checkpoint is written before the next step starts, as our commits are.
      durability: 'sync',
    }
  );
  const wallMs = performance.now() - started;
  if (callTimes.length !== turns) {
    throw new Error(`LangGraph: expected ${turns} turns, saw ${callTimes.length}`);
  }
  if (!final.plan.every((step) => step.done) && turns > PLAN_DONE_AFTER) {
    throw new Error('LangGraph: the plan was not carried out');
  }
  return { wallMs, callTimes };
};

/** Turns after which the 1-tool-call script has completed every step of its 4-step plan. */
const PLAN_DONE_AFTER = 5;

export const runMemorySaver = (script: Script): Promise<LangGraphRun> =>
  runWith(script, new MemorySaver());

/** SQLite's durability settings as the saver leaves them (journal mode, synchronous level). */
export interface SqliteSettings {
  journal_mode: string;
  synchronous: string;
}

const SYNCHRONOUS = ['OFF', 'NORMAL', 'FULL', 'EXTRA'];

/** The conversation on a SqliteSaver over a new database file, removed afterwards. */
export const runSqliteSaver = async (
  script: Script
): Promise<LangGraphRun & { sqlite: SqliteSettings }> => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-langgraph-'));
  const saver = SqliteSaver.fromConnString(join(dir, 'checkpoints.db'));
  try {
    const run = await runWith(script, saver);
    const journal = saver.db.pragma('journal_mode', { simple: true });
    const synchronous = Number(saver.db.pragma('synchronous', { simple: true }));
    return {
      ...run,
      sqlite: {
        journal_mode: String(journal),
        synchronous: SYNCHRONOUS[synchronous] ?? String(synchronous),
      },
    };
  } finally {
    saver.db.close();
    rmSync(dir, { recursive: true, force: true });
  }
};

const require = createRequire(import.meta.url);

/** The installed versions of what the side-by-side runs (package.json pins them exactly). */
export const langGraphVersions = (): Record<string, string> =>
  Object.fromEntries(
    [
      '@langchain/langgraph',
      '@langchain/langgraph-checkpoint-sqlite',
      '@langchain/core',
      'better-sqlite3',
    ].map((name) => {
      const path = require.resolve(`${name}/package.json`);
      return [name, (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version];
    })
  );
