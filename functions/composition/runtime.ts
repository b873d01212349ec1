import { type ConsumedCapacity, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDbEventLog } from '../adapters/dynamodb/dynamodb-event-log.js';
import { DynamoDbPushConfigStore } from '../adapters/dynamodb/dynamodb-push-config-store.js';
import { DynamoDbRemoteLinks } from '../adapters/dynamodb/dynamodb-remote-links.js';
import { DynamoDbTaskStore } from '../adapters/dynamodb/dynamodb-task-store.js';
import { HttpWebhookSender } from '../adapters/push/http-webhook-sender.js';
import { RemoteAgentDirectory } from '../adapters/remote/remote-agent-directory.js';
import { SelfAgentDirectory } from '../adapters/self-agent-directory.js';
import { RemoteFollowExecutions } from '../adapters/stepfunctions/remote-follow-executions.js';
import { TurnExecutions } from '../adapters/stepfunctions/turn-executions.js';
import {
  DynamoDbStreamLeases,
  type StreamLeases,
} from '../adapters/streams/dynamodb-stream-leases.js';
import { createLogger, type Logger } from '../adapters/system/logger.js';
import { RandomIds } from '../adapters/system/random-ids.js';
import { SystemClock } from '../adapters/system/system-clock.js';
import { Hooks } from '../core/hooks/hooks.js';
import { DEFAULT_LOOP_CONFIG } from '../core/loop/config.js';
import type { LoopDeps } from '../core/loop/deps.js';
import type { HarnessHookPoints } from '../core/loop/hook-points.js';
import type { Model } from '../core/ports/model.js';
import type { PushConfigStore } from '../core/ports/push-config-store.js';
import type { RemoteAgents } from '../core/ports/remote-agents.js';
import type { RemoteFollowers } from '../core/ports/remote-followers.js';
import type { RemoteLinks } from '../core/ports/remote-links.js';
import type { SecretSealer } from '../core/ports/secret-sealer.js';
import type { WebhookSender } from '../core/ports/webhook-sender.js';
import { intrinsicsFor } from '../core/tools/intrinsics/index.js';
import { ToolRegistry } from '../core/tools/registry.js';
import type { Executions } from '../service/executions.js';
import { buildModel } from './model.js';
import { buildRemoteAgents } from './remote-agents.js';
import { configuredSecrets, type RuntimeConfig, readRuntimeConfig } from './runtime-config.js';
import { buildSealer } from './sealer.js';

/** What every handler needs, built once per cold start (or once per local process). */
export interface Runtime {
  config: RuntimeConfig;
  loop: LoopDeps;
  executions: Executions;
  logger: Logger;
  /** Push-notification configs: the A2A surface's side records, not the loop's. */
  pushConfigs: PushConfigStore;
  /** Seals the configs' tokens and credentials (KMS in the cloud, AES-GCM locally). */
  sealer: SecretSealer;
  /** Delivers push notifications, under the webhook policy (loopback only when allowed). */
  webhooks: WebhookSender;
  /** Children on remote agents: the agents, their links, their stand-ins (follow executions). */
  remote: { agents: RemoteAgents; links: RemoteLinks; followers: RemoteFollowers };
  /**
   * Our public base URL, where remote agents push (TINY_HARNESS_BASE_URL; `npm start` sets it
   * once it listens). Unset: remote children are polled.
   */
  publicUrl: { current: string | undefined };
}

/** One DynamoDB command the runtime sent, as the benchmark counts them (scripts/bench.ts). */
export interface DynamoDbCommandObservation {
  /** The SDK's command name: `GetItem`, `Query`, `TransactWriteItems`, ... */
  command: string;
  /** The command's input as sent (a transaction's items are in `TransactItems`). */
  input: unknown;
  /** Capacity units the table (and its indexes) reported; absent when the call failed. */
  consumed?: { read: number; write: number };
  /** The error's name when the call failed (a refused condition still costs a write). */
  error?: string;
}

export interface RuntimeOverrides {
  model?: Model;
  sealer?: SecretSealer;
  webhooks?: WebhookSender;
  hooks?: Hooks<HarnessHookPoints>;
  /** The fetch remote agents are called with (tests observe or break it). */
  fetch?: typeof fetch;
  /** Observe every DynamoDB command (default off): it then also asks for ConsumedCapacity. */
  onDynamoDbCommand?: (observation: DynamoDbCommandObservation) => void;
}

const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
const ITEM_COMMANDS = new Set([
  ...READS,
  ...['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems'],
]);

/** Read and write units from a response's ConsumedCapacity (one entry, or one per table). */
const unitsOf = (command: string, output: unknown) => {
  const raw = (output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] })
    .ConsumedCapacity;
  if (raw === undefined) return undefined;
  const units = { read: 0, write: 0 };
  for (const entry of Array.isArray(raw) ? raw : [raw]) {
    const total = entry.CapacityUnits ?? 0;
    units.read += entry.ReadCapacityUnits ?? (READS.has(command) ? total : 0);
    units.write += entry.WriteCapacityUnits ?? (READS.has(command) ? 0 : total);
  }
  return units;
};

const observeCommands = (
  client: DynamoDBClient,
  observe: NonNullable<RuntimeOverrides['onDynamoDbCommand']>
) => {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      const input = ITEM_COMMANDS.has(command)
        ? { ReturnConsumedCapacity: 'TOTAL', ...(args.input as object) }
        : args.input;
      try {
        const result = await next({ ...args, input });
        const consumed = unitsOf(command, result.output);
        observe(consumed === undefined ? { command, input } : { command, input, consumed });
        return result;
      } catch (error) {
        observe({ command, input, error: (error as Error).name });
        throw error;
      }
    },
    { step: 'initialize', name: 'tinyHarnessObserveCommands' }
  );
};

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** The DynamoDB client of a configuration: DynamoDB Local's endpoint when one is set. */
const dynamoDbClientOf = (config: RuntimeConfig): DynamoDBClient => {
  const region = config.AWS_REGION;
  return new DynamoDBClient(
    config.TINY_HARNESS_DYNAMODB_ENDPOINT
      ? { region, credentials: LOCAL_CREDENTIALS, endpoint: config.TINY_HARNESS_DYNAMODB_ENDPOINT }
      : { region }
  );
};

/** A stream's lease outlives the longest stream (14 minutes) by a minute. */
const STREAM_LEASE_TTL_MS = 15 * 60_000;

/** The leases of callers' open streams (the A2A function's per-caller stream cap). */
export const buildStreamLeases = (config: RuntimeConfig): StreamLeases =>
  new DynamoDbStreamLeases({
    client: dynamoDbClientOf(config),
    tableName: config.TINY_HARNESS_TABLE,
    ttlMs: STREAM_LEASE_TTL_MS,
  });

export const buildRuntime = (config: RuntimeConfig, overrides: RuntimeOverrides = {}): Runtime => {
  const region = config.AWS_REGION;
  const local = { region, credentials: LOCAL_CREDENTIALS };
  const dynamodb = dynamoDbClientOf(config);
  if (overrides.onDynamoDbCommand) observeCommands(dynamodb, overrides.onDynamoDbCommand);
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
  const logger = createLogger({
    level: config.TINY_HARNESS_LOG_LEVEL,
    fields: { agentId: config.TINY_HARNESS_AGENT_ID },
    secrets: configuredSecrets(config),
  });
  const clock = new SystemClock();
  const remote = {
    agents: buildRemoteAgents(config, overrides.fetch),
    links: new DynamoDbRemoteLinks(table),
    followers: new RemoteFollowExecutions({
      client: sfn,
      stateMachineArn: config.TINY_HARNESS_FOLLOW_STATE_MACHINE_ARN,
    }),
  };
  const publicUrl = { current: config.TINY_HARNESS_BASE_URL };
  const agents = new RemoteAgentDirectory({
    self: new SelfAgentDirectory({
      deps: () => {
        if (loop === undefined) throw new Error('the runtime is not built yet');
        return loop;
      },
      executions,
    }),
    ...remote,
    remote: remote.agents,
    clock,
    webhookBase: () => publicUrl.current,
    logger,
  });
  loop = {
    store: new DynamoDbTaskStore(table),
    events: new DynamoDbEventLog(table),
    model: overrides.model ?? buildModel(config),
    tools: new ToolRegistry([], intrinsicsFor(agents.agents())),
    agents,
    clock,
    ids: new RandomIds(),
    hooks: overrides.hooks ?? new Hooks<HarnessHookPoints>(),
    config: {
      ...DEFAULT_LOOP_CONFIG,
      agentId: config.TINY_HARNESS_AGENT_ID,
      maxTurns: config.TINY_HARNESS_MAX_TURNS,
      turnsPerGeneration: config.TINY_HARNESS_TURNS_PER_GENERATION,
      defaultModel: config.TINY_HARNESS_MODEL || undefined,
      prices: config.TINY_HARNESS_MODEL_PRICES,
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
    pushConfigs: new DynamoDbPushConfigStore(table),
    sealer: overrides.sealer ?? buildSealer(config),
    webhooks:
      overrides.webhooks ??
      new HttpWebhookSender({
        policy: { allowLoopback: config.TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS },
      }),
  };
};

let memo: Runtime | undefined;

/** The Lambda composition root: configuration from the environment, built on first use. */
export const lambdaRuntime = (): Runtime => {
  memo ??= buildRuntime(readRuntimeConfig());
  return memo;
};

let leasesMemo: StreamLeases | undefined;

/** The Lambda's stream leases, built on first use from the same configuration. */
export const lambdaStreamLeases = (): StreamLeases => {
  leasesMemo ??= buildStreamLeases(lambdaRuntime().config);
  return leasesMemo;
};
