import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDbEventLog } from '../adapters/dynamodb/dynamodb-event-log.js';
import { DynamoDbTaskStore } from '../adapters/dynamodb/dynamodb-task-store.js';
import { DemoModel } from '../adapters/model/demo-model.js';
import { loadModelScript } from '../adapters/model/script-file.js';
import { SelfAgentDirectory } from '../adapters/self-agent-directory.js';
import { TurnExecutions } from '../adapters/stepfunctions/turn-executions.js';
import { createLogger, type Logger } from '../adapters/system/logger.js';
import { RandomIds } from '../adapters/system/random-ids.js';
import { SystemClock } from '../adapters/system/system-clock.js';
import { Hooks } from '../core/hooks/hooks.js';
import { DEFAULT_LOOP_CONFIG } from '../core/loop/config.js';
import type { LoopDeps } from '../core/loop/deps.js';
import type { HarnessHookPoints } from '../core/loop/hook-points.js';
import type { Model } from '../core/ports/model.js';
import { ToolRegistry } from '../core/tools/registry.js';
import { type RuntimeConfig, readRuntimeConfig } from './runtime-config.js';

/** What every handler needs, built once per cold start (or once per local process). */
export interface Runtime {
  config: RuntimeConfig;
  loop: LoopDeps;
  executions: TurnExecutions;
  logger: Logger;
}

const buildModel = (config: RuntimeConfig): Model => {
  switch (config.TINY_HARNESS_MODEL_PROVIDER) {
    case 'demo':
      return new DemoModel();
    case 'scripted':
      return loadModelScript(config.TINY_HARNESS_MODEL_SCRIPT ?? '');
  }
};

export interface RuntimeOverrides {
  model?: Model;
  hooks?: Hooks<HarnessHookPoints>;
}

export const buildRuntime = (config: RuntimeConfig, overrides: RuntimeOverrides = {}): Runtime => {
  const region = config.AWS_REGION;
  const local = { region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  const dynamodb = new DynamoDBClient(
    config.TINY_HARNESS_DYNAMODB_ENDPOINT
      ? { ...local, endpoint: config.TINY_HARNESS_DYNAMODB_ENDPOINT }
      : { region }
  );
  const sfn = new SFNClient(
    config.TINY_HARNESS_SFN_ENDPOINT
      ? { ...local, endpoint: config.TINY_HARNESS_SFN_ENDPOINT }
      : { region }
  );
  const executions = new TurnExecutions({
    client: sfn,
    stateMachineArn: config.TINY_HARNESS_STATE_MACHINE_ARN,
  });
  const table = { client: dynamodb, tableName: config.TINY_HARNESS_TABLE };
  let loop: LoopDeps | undefined;
  const agents = new SelfAgentDirectory({
    deps: () => {
      if (loop === undefined) throw new Error('the runtime is not built yet');
      return loop;
    },
    executions,
  });
  loop = {
    store: new DynamoDbTaskStore(table),
    events: new DynamoDbEventLog(table),
    model: overrides.model ?? buildModel(config),
    tools: new ToolRegistry(),
    agents,
    clock: new SystemClock(),
    ids: new RandomIds(),
    hooks: overrides.hooks ?? new Hooks<HarnessHookPoints>(),
    config: {
      ...DEFAULT_LOOP_CONFIG,
      agentId: config.TINY_HARNESS_AGENT_ID,
      maxTurns: config.TINY_HARNESS_MAX_TURNS,
      turnsPerGeneration: config.TINY_HARNESS_TURNS_PER_GENERATION,
      defaultModel: config.TINY_HARNESS_MODEL || undefined,
    },
  };
  const logger = createLogger({
    level: config.TINY_HARNESS_LOG_LEVEL,
    fields: { agentId: config.TINY_HARNESS_AGENT_ID },
  });
  return { config, loop, executions, logger };
};

let memo: Runtime | undefined;

/** The Lambda composition root: configuration from the environment, built on first use. */
export const lambdaRuntime = (): Runtime => {
  memo ??= buildRuntime(readRuntimeConfig());
  return memo;
};
