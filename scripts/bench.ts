// The orchestration benchmark (`npm run bench`): what a turn costs when the state machine drives
// it, on the local stack, against the same turns driven in-process by the core's driver and by
// LangGraph.js; what parked conversations, new conversations, children and the Lambda bundles
// cost. It prints figures and asserts nothing. docs/benchmark.md explains every figure and every
// option; `npm run bench -- --help` lists them.

import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { DEFAULT_LOOP_CONFIG } from '../functions/core/loop/config.js';
import { ScriptedModel } from '../functions/core/testing/scripted-model.js';
import { startLocalStack } from '../functions/local/local-stack.js';
import { measureBundles, measureStepVariants } from './bench/bundles.js';
import { childToParentFigures } from './bench/children.js';
import { measureConversations } from './bench/conversations.js';
import { writeMarkedBlocks } from './bench/docs-block.js';
import { type BenchFigures, BenchFiguresSchema } from './bench/figures.js';
import { forkFigures } from './bench/fork.js';
import { fixed } from './bench/format.js';
import { benchStackEnv } from './bench/local-client.js';
import { measureScenarios } from './bench/measure-scenarios.js';
import { DynamoDbMeter } from './bench/meter.js';
import { SwitchModel } from './bench/models.js';
import {
  BenchOptionError,
  type BenchOptions,
  type Part,
  parseBenchOptions,
  USAGE,
} from './bench/options.js';
import { renderReadme, renderReport } from './bench/report.js';
import { runInfo } from './bench/run-info.js';
import { sendersFigures } from './bench/senders.js';
import { measureSideBySide } from './bench/side-by-side.js';
import { renewalFigures, type ScenarioRuns, scenarioFigures } from './bench/summarize.js';
import { taskGrowthFigures } from './bench/task-growth.js';
import { measureTracing } from './bench/tracing.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DOCS = `${ROOT}docs/benchmark.md`;
const README = `${ROOT}README.md`;
/** The figures the docs' tables are rendered from (test/scripts/bench-docs.test.ts checks them). */
const DOCS_FIGURES = `${ROOT}docs/benchmark.json`;

/** Six significant digits are plenty for a figure, and keep the JSON readable. */
const roundFigures = (_key: string, value: unknown) =>
  typeof value === 'number' && !Number.isInteger(value) ? Number(value.toPrecision(6)) : value;

const progress = (message: string) => process.stderr.write(`  ${message}\n`);

/**
 * What `npm start` and `npm test` set up first, so a bench straight after `npm ci` runs: DynamoDB
 * Local's jar and the web renderer's build (the deployable stack whose bundles are measured
 * includes the page). Idempotent, and instant once done; its output goes to stderr, with ours.
 */
const prepare = () => {
  const setup = spawnSync(process.execPath, [`${ROOT}scripts/setup.mjs`], {
    stdio: ['ignore', 2, 2],
  });
  if (setup.status !== 0) throw new Error('npm run setup failed (above): the bench needs it');
};

type SharedStackFigures = Pick<
  BenchFigures,
  | 'scenarios'
  | 'renewal'
  | 'langgraph'
  | 'growth'
  | 'child_to_parent_ms'
  | 'concurrent_senders'
  | 'task_growth'
  | 'fork'
>;

/** The parts that share one local stack, each with the model it needs, one after another. */
const measureOnSharedStack = async (
  options: BenchOptions,
  skipped: (part: Part) => boolean
): Promise<SharedStackFigures> => {
  const meter = new DynamoDbMeter();
  const model = new SwitchModel(new ScriptedModel());
  const maxTurns = Math.max(
    DEFAULT_LOOP_CONFIG.maxTurns,
    options.turns + 1,
    options.longTurns + 1,
    options.senders * options.messagesPerSender + 10
  );
  const startedStack = performance.now();
  const stack = await startLocalStack({
    port: 0,
    model,
    env: benchStackEnv(maxTurns),
    onDynamoDbCommand: meter.observe,
  });
  progress(`local stack up in ${fixed((performance.now() - startedStack) / 1000)} s`);
  try {
    const runs = skipped('scenarios')
      ? undefined
      : await measureScenarios(stack, model, meter, options, progress);
    const scenarios =
      runs === undefined
        ? null
        : {
            chat: scenarioFigures(runs[0] as ScenarioRuns),
            one_tool: scenarioFigures(runs[1] as ScenarioRuns),
            four_tools: scenarioFigures(runs[2] as ScenarioRuns),
            chat_budgeted: scenarioFigures(runs[3] as ScenarioRuns),
          };
    const sideBySide = skipped('langgraph')
      ? undefined
      : await measureSideBySide(stack, model, meter, options, progress);
    const children = skipped('children')
      ? null
      : await childToParentFigures(stack, model, meter, options.children, progress);
    const senders = skipped('senders')
      ? null
      : await sendersFigures(stack, model, options.senders, options.messagesPerSender);
    if (senders !== null) progress('concurrent senders: done');
    const taskGrowth = skipped('task_growth')
      ? null
      : await taskGrowthFigures(stack, model, meter, progress);
    const fork = skipped('fork')
      ? null
      : await forkFigures(
          stack,
          model,
          meter,
          { lengths: [options.turns, options.longTurns], runs: options.runs },
          progress
        );
    return {
      scenarios,
      renewal: scenarios === null ? null : renewalFigures(scenarios),
      langgraph: sideBySide?.langgraph ?? null,
      growth: sideBySide?.growth ?? null,
      child_to_parent_ms: children,
      concurrent_senders: senders,
      task_growth: taskGrowth,
      fork,
    };
  } finally {
    await stack.close();
  }
};

const measure = async (options: BenchOptions): Promise<BenchFigures> => {
  const startedAt = new Date();
  const loadBefore = loadavg();
  const skipped = (part: Part) => options.skip.has(part);
  // First, while nothing else runs: the bundles are built in a child process.
  const bundles = skipped('bundles') ? null : await measureBundles(options.importRuns, progress);
  const stepBundles = skipped('bundles')
    ? null
    : await measureStepVariants(options.importRuns, progress);
  const shared = (
    ['scenarios', 'langgraph', 'children', 'senders', 'task_growth', 'fork'] as const
  ).every(skipped)
    ? undefined
    : await measureOnSharedStack(options, skipped);
  // On three stacks of their own: a turn without tracing and with each exporter.
  const tracing = skipped('tracing') ? null : await measureTracing(options, progress);
  // Last, on a stack of their own: new and parked conversations.
  const conversations = skipped('conversations')
    ? undefined
    : await measureConversations(options, progress);
  return {
    run: runInfo(options, startedAt, loadBefore),
    scenarios: shared?.scenarios ?? null,
    renewal: shared?.renewal ?? null,
    langgraph: shared?.langgraph ?? null,
    growth: shared?.growth ?? null,
    bundles,
    step_bundles: stepBundles,
    new_conversations: conversations?.new_conversations ?? null,
    parked: conversations?.parked ?? null,
    child_to_parent_ms: shared?.child_to_parent_ms ?? null,
    concurrent_senders: shared?.concurrent_senders ?? null,
    task_growth: shared?.task_growth ?? null,
    fork: shared?.fork ?? null,
    tracing,
  };
};

const main = async () => {
  // The AWS SDK's notice that its 2027 releases need Node 22 is not a figure.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  let options: BenchOptions;
  try {
    options = parseBenchOptions(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof BenchOptionError)) throw error;
    process.stderr.write(`bench: ${error.message}\n`);
    process.exitCode = 2;
    return;
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  let figures: BenchFigures;
  if (options.from !== undefined) {
    figures = BenchFiguresSchema.parse(JSON.parse(readFileSync(options.from, 'utf8')));
  } else {
    process.stderr.write(`tiny-harness benchmark, ${new Date().toISOString()}\n`);
    prepare();
    // Parsed on the way out: a figure the docs do not describe is a bug here, found now.
    figures = BenchFiguresSchema.parse(await measure(options));
  }
  // Rounded once, so the docs render exactly what the JSON file holds.
  figures = BenchFiguresSchema.parse(JSON.parse(JSON.stringify(figures, roundFigures)));
  const json = `${JSON.stringify(figures, null, 2)}\n`;
  if (options.json !== undefined) {
    writeFileSync(options.json, json);
    progress(`figures written to ${options.json}`);
  }
  if (options.writeDocs) {
    writeMarkedBlocks([
      { path: DOCS, block: renderReport(figures, 'markdown') },
      { path: README, block: renderReadme(figures) },
    ]);
    writeFileSync(DOCS_FIGURES, json);
    progress(
      'docs/benchmark.json written; docs/benchmark.md and README.md rewritten between their bench markers'
    );
  }
  process.stdout.write(`${renderReport(figures, options.markdown ? 'markdown' : 'text')}\n`);
};

await main();
