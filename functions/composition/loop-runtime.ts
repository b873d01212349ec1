import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDbEventLog } from '../adapters/dynamodb/dynamodb-event-log.js';
import { DynamoDbRemoteLinks } from '../adapters/dynamodb/dynamodb-remote-links.js';
import { DynamoDbTaskStore } from '../adapters/dynamodb/dynamodb-task-store.js';
import { RemoteAgentDirectory } from '../adapters/remote/remote-agent-directory.js';
import { SelfAgentDirectory } from '../adapters/self-agent-directory.js';
import { RemoteFollowExecutions } from '../adapters/stepfunctions/remote-follow-executions.js';
import { TurnExecutions } from '../adapters/stepfunctions/turn-executions.js';
import { pauseAfterConflict } from '../adapters/system/conflict-pause.js';
import { RandomIds } from '../adapters/system/random-ids.js';
import { SystemClock } from '../adapters/system/system-clock.js';
import { TranscriptCache } from '../adapters/system/transcript-cache.js';
import { tracedModel } from '../adapters/tracing/traced-model.js';
import { tracedTaskStore } from '../adapters/tracing/traced-store.js';
import { tracedToolRunner } from '../adapters/tracing/traced-tool-runner.js';
import type { Tracing } from '../adapters/tracing/tracing.js';
import { Hooks } from '../core/hooks/hooks.js';
import { defaultBudgetsNotice } from '../core/loop/budget.js';
import { DEFAULT_LOOP_CONFIG } from '../core/loop/config.js';
import type { LoopDeps } from '../core/loop/deps.js';
import type { HarnessHookPoints } from '../core/loop/hook-points.js';
import type { Logger } from '../core/ports/logger.js';
import type { Model } from '../core/ports/model.js';
import type { RemoteAgents } from '../core/ports/remote-agents.js';
import type { RemoteFollowers } from '../core/ports/remote-followers.js';
import type { RemoteLinks } from '../core/ports/remote-links.js';
import type { ToolRunner } from '../core/ports/tool-runner.js';
import { intrinsicsFor } from '../core/tools/intrinsics/index.js';
import { ToolRegistry } from '../core/tools/registry.js';
import type { Executions } from '../service/executions.js';
import { executionWaker } from '../service/follow-wake.js';
import { dynamoDbClientOf, sfnClientOf } from './aws-clients.js';
import { loggerOf } from './logger.js';
import type { RuntimeConfig } from './runtime-config.js';
import { buildTracing, providerNameOf } from './tracing.js';

/** The loop over the table and the turn executions: what every function driving tasks needs. */
export interface LoopRuntime {
  config: RuntimeConfig;
  loop: LoopDeps;
  executions: Executions;
  logger: Logger;
  /** Children on remote agents: the agents, their links, their stand-ins (follow executions). */
  remote: { agents: RemoteAgents; links: RemoteLinks; followers: RemoteFollowers };
  /**
   * Our public base URL, where remote agents push (TINY_HARNESS_BASE_URL; `npm start` sets it
   * once it listens). Unset: remote children are polled.
   */
  publicUrl: { current: string | undefined };
  /**
   * Spans of the steps, model and tool calls (docs/observability.md); `NO_TRACING` when off, and
   * absent (off) in a runtime a test puts together by hand.
   */
  tracing?: Tracing;
  /** The table's client: the audit read model reads through it too (one client, one meter). */
  dynamodb?: DynamoDBClient;
}

export interface LoopParts {
  /** The turn step's configured model; every other function, the tool step too, gets `NO_MODEL`. */
  model: Model;
  hooks?: Hooks<HarnessHookPoints> | undefined;
  /** The table's client, when the caller shares it (default: one from the configuration). */
  dynamodb?: DynamoDBClient | undefined;
  /**
   * The remote agents this function calls: the configured directory for the tool step and the
   * remote follow and push functions (`buildRemoteAgents`), their names only for the turn step
   * (`remoteAgentRoster`), `NO_REMOTE_AGENTS` for the others.
   */
  remoteAgents: RemoteAgents;
  /**
   * The external tools (the MCP servers', connected at cold start): the turn step lists them for
   * the model, the tool step runs them.
   */
  tools?: ToolRunner | undefined;
}

/** The tools the model is offered: the runner's external tools and the intrinsics. */
const registryOf = (runner: ToolRunner | undefined, agents: LoopDeps['agents']): ToolRegistry =>
  new ToolRegistry(runner?.tools() ?? [], intrinsicsFor(agents.agents()));

/**
 * The runtime with external tools connected after it was built (the turn-step Lambda connects
 * its MCP servers only for the steps that offer or run tools).
 */
export const withToolRunner = (runtime: LoopRuntime, runner: ToolRunner): LoopRuntime => ({
  ...runtime,
  loop: {
    ...runtime.loop,
    tools: registryOf(runner, runtime.loop.agents),
    runner: tracedRunner(runner, runtime.tracing),
  },
});

// Each test of tinyHarnessBundledTracing is written out for esbuild to fold (tracing.ts).
const tracedRunner = (runner: ToolRunner | undefined, tracing: Tracing | undefined) =>
  !(globalThis.tinyHarnessBundledTracing ?? true) || runner === undefined || !tracing?.enabled
    ? runner
    : tracedToolRunner(runner, tracing);

export const buildLoopRuntime = (config: RuntimeConfig, parts: LoopParts): LoopRuntime => {
  const sfn = sfnClientOf(config);
  const executions = new TurnExecutions({
    client: sfn,
    stateMachineArn: config.TINY_HARNESS_STATE_MACHINE_ARN,
  });
  const table = {
    client: parts.dynamodb ?? dynamoDbClientOf(config),
    tableName: config.TINY_HARNESS_TABLE,
  };
  const logger = loggerOf(config);
  // Said once per instance, as it starts: a cost limit the model's missing price leaves open.
  const budgets = defaultBudgetsNotice(
    config.TINY_HARNESS_DEFAULT_BUDGET,
    config.TINY_HARNESS_MODEL || undefined,
    config.TINY_HARNESS_MODEL_PRICES
  );
  if (budgets?.warning !== undefined) logger.warn(budgets.warning, { budgets: budgets.line });
  const clock = new SystemClock();
  const remote = {
    agents: parts.remoteAgents,
    links: new DynamoDbRemoteLinks(table),
    followers: new RemoteFollowExecutions({
      client: sfn,
      stateMachineArn: config.TINY_HARNESS_FOLLOW_STATE_MACHINE_ARN,
    }),
  };
  const publicUrl = { current: config.TINY_HARNESS_BASE_URL };
  let loop: LoopDeps | undefined;
  // The self directory and the waker are parts of the loop that call back into it.
  const loopBuilt = (): LoopDeps => {
    if (loop === undefined) throw new Error('the runtime is not built yet');
    return loop;
  };
  const agents = new RemoteAgentDirectory({
    self: new SelfAgentDirectory({
      deps: loopBuilt,
      executions,
    }),
    ...remote,
    remote: remote.agents,
    clock,
    webhookBase: () => publicUrl.current,
    logger,
  });
  // A transcript read once is not read again: each turn asks only for what is new.
  const store = new TranscriptCache(
    new DynamoDbTaskStore({ ...table, agentId: config.TINY_HARNESS_AGENT_ID })
  );
  const tracing = buildTracing(config, (taskId) => store.get(taskId));
  loop = {
    store:
      (globalThis.tinyHarnessBundledTracing ?? true) && tracing.enabled
        ? tracedTaskStore(store, tracing)
        : store,
    events: new DynamoDbEventLog(table),
    model:
      (globalThis.tinyHarnessBundledTracing ?? true) && tracing.enabled
        ? tracedModel(parts.model, tracing, {
            provider: providerNameOf(config),
            defaultModel: config.TINY_HARNESS_MODEL || undefined,
            prices: config.TINY_HARNESS_MODEL_PRICES,
          })
        : parts.model,
    tools: registryOf(parts.tools, agents),
    runner: tracedRunner(parts.tools, tracing),
    agents,
    clock,
    ids: new RandomIds(),
    hooks: parts.hooks ?? new Hooks<HarnessHookPoints>(),
    pauseAfterConflict,
    waker: executionWaker({ loop: loopBuilt, executions, logger, remote }),
    config: {
      ...DEFAULT_LOOP_CONFIG,
      agentId: config.TINY_HARNESS_AGENT_ID,
      maxTurns: config.TINY_HARNESS_MAX_TURNS,
      criteriaReminders: config.TINY_HARNESS_CRITERIA_REMINDERS,
      turnsPerGeneration: config.TINY_HARNESS_TURNS_PER_GENERATION,
      defaultModel: config.TINY_HARNESS_MODEL || undefined,
      prices: config.TINY_HARNESS_MODEL_PRICES,
      defaultBudgets: config.TINY_HARNESS_DEFAULT_BUDGET,
      clientTaskLifecycle: config.TINY_HARNESS_TASK_LIFECYCLE,
    },
  };
  return {
    config,
    loop,
    executions,
    logger,
    remote,
    publicUrl,
    tracing,
    dynamodb: table.client,
  };
};
