import './polyfill.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { Handler } from 'aws-lambda';
import { createTable } from '../adapters/dynamodb/create-table.js';
import { migrateTaskRecords } from '../adapters/dynamodb/migrate-records.js';
import { auditOf } from '../composition/audit.js';
import { loggerOf } from '../composition/logger.js';
import { stdioTransport } from '../composition/mcp-stdio.js';
import { connectMcpTools } from '../composition/mcp-tools.js';
import {
  buildRuntime,
  buildStreamLeases,
  type Runtime,
  type RuntimeOverrides,
} from '../composition/runtime.js';
import { readRuntimeConfig } from '../composition/runtime-config.js';
import type { Model } from '../core/ports/model.js';
import { parseRemotePushPath } from '../core/remote/webhook-path.js';
import { createA2aHandler } from '../handlers/a2a.js';
import { archiveClosedExecution } from '../handlers/archive.js';
import { createPushHandler } from '../handlers/push.js';
import { createReconcileHandler } from '../handlers/reconcile.js';
import { createRemoteFollowHandler } from '../handlers/remote-follow.js';
import { createRemotePushHandler } from '../handlers/remote-push.js';
import { createStreamHandler } from '../handlers/stream.js';
import { capStreamsPerCaller } from '../handlers/stream-cap.js';
import { createTurnStepHandler } from '../handlers/turn-step-handler.js';
import { A2aService } from '../service/a2a-service.js';
import { PENDING_START_SWEEP_MINUTES } from '../service/pending-start-schedule.js';
import { type DataDirLock, lockDataDir } from './data-dir-lock.js';
import { localDynamoDbClientConfig, startDynamoDbLocal } from './dynamodb-local.js';
import { executionStatusChange, pendingStartSweepEvent } from './execution-status-change.js';
import { startHttpShim } from './http-shim.js';
import { localLambdaContext } from './lambda-context.js';
import { persistentPushTokenKey } from './push-token-key.js';
import { reviveOrphans } from './recover.js';
import { mayHaveSettled, TaskSignals, taskOfStep } from './step-signals.js';
import {
  extractStateMachines,
  FileCheckpointStore,
  LocalStepFunctions,
  listTaskStates,
  startSfnHttpFacade,
} from './stepfunctions/index.js';
import type { StreamMapping } from './stream-mapping.js';
import { StreamPoller } from './stream-poller.js';
import { synthesizeTemplate } from './synth-template.js';
import { tasksWritten } from './tasks-written.js';
import { eventSourceMappings, type FunctionId, functionsByLogicalId } from './template-reader.js';
import { webSite } from './web-site.js';

export interface LocalStackOptions {
  /** HTTP port of the A2A endpoint; 0 picks a free one. */
  port: number;
  /** Keep tables and executions' checkpoints here, across restarts; omitted: in memory. */
  dataDir?: string | undefined;
  /** Extra runtime environment (TINY_HARNESS_* variables). */
  env?: Record<string, string | undefined>;
  /** A model object instead of the configured provider (tests). */
  model?: Model | undefined;
  /** Observe the runtime's DynamoDB commands (the benchmark); default off. */
  onDynamoDbCommand?: RuntimeOverrides['onDynamoDbCommand'];
  /**
   * A2A streams read their task's log only on the cloud's poll, not also as soon as the task is
   * written (`npm run bench:streams` measures the cloud's way); default off.
   */
  pollStreamsOnly?: boolean;
  /** The fetch remote agents are called with (tests); default the global one. */
  fetch?: typeof fetch;
  /**
   * Serve the web renderer (web/dist) at `/`, acting as `identity` (default: the first of
   * TINY_HARNESS_BEARER_TOKENS); omitted, `/` is the A2A endpoint's like any other path.
   */
  web?: { dir: string; identity?: { token: string; participant: string | null } } | undefined;
}

export interface LocalStack {
  url: string;
  runtime: Runtime;
  engine: LocalStepFunctions;
  /** Each event source mapping on the stream, by the function it feeds (StreamFunction, PushFunction). */
  pollers: ReadonlyMap<FunctionId, StreamMapping>;
  stateMachineArn: string;
  /** The follow state machine of children on remote agents. */
  followStateMachineArn: string;
  /**
   * The ports of the stack's own endpoints (on 127.0.0.1, each at its run's secret path, which
   * only the handlers' clients are given): for the banner.
   */
  internalPorts: { dynamodb: number; stepFunctions: number };
  close(): Promise<void>;
}

const TABLE_NAME = 'tiny-harness-local';

/** How long a stop waits for handler invocations still running. */
const STOP_WAIT_MS = 10_000;

/**
 * The whole system on loopback, one process plus DynamoDB Local: the synthesized state machine in
 * aws-local-stepfunctions behind a Step Functions endpoint, the same Lambda handlers called
 * in-process, the stream read once for every event source mapping (the stand-in, push
 * delivery), and an HTTP shim in front of the A2A handler. Handlers reach DynamoDB and Step
 * Functions through the real SDK clients with local endpoints: no separate code path.
 */
export const startLocalStack = async (options: LocalStackOptions): Promise<LocalStack> => {
  const closers: Array<() => Promise<void> | void> = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer();
  };
  try {
    let lock: DataDirLock | undefined;
    if (options.dataDir !== undefined) {
      mkdirSync(join(options.dataDir, 'dynamodb'), { recursive: true });
      lock = await lockDataDir(options.dataDir);
      const held = lock;
      closers.push(() => held.release());
    }
    const dynamo = await startDynamoDbLocal(
      options.dataDir === undefined ? {} : { dataDir: join(options.dataDir, 'dynamodb') }
    );
    closers.push(() => dynamo.stop());
    // Handler invocations still running when the stack stops (a turn step the engine's halt
    // left mid-way) finish before DynamoDB Local stops, so a stop is quiet. Bounded: a model call
    // may take minutes, and the step is resumed from its checkpoint on the next start anyway.
    const running = new Set<Promise<unknown>>();
    closers.push(async () => {
      await Promise.race([
        Promise.allSettled([...running]),
        new Promise((done) => setTimeout(done, STOP_WAIT_MS).unref()),
      ]);
    });
    lock?.update({ dynamodbPid: dynamo.pid });

    const template = await synthesizeTemplate();
    const machines = extractStateMachines(template);
    const machineNamed = (suffix: string) => {
      const found = machines.find((candidate) => candidate.name.endsWith(suffix));
      if (found === undefined) throw new Error(`the synthesized template has no ${suffix} machine`);
      return found;
    };
    const machine = machineNamed('-turns');
    const followMachine = machineNamed('-follow');
    const functions = functionsByLogicalId(template);
    // What EventBridge does in the cloud: an execution that ended FAILED, TIMED_OUT or ABORTED
    // reaches the reconciler (bound below, once the handlers exist).
    let onExecutionEnd: (event: unknown) => void = () => undefined;
    // Reconciles run on their own. Closing waits for those in flight after the engine has closed
    // (a closing engine reports no end) and before DynamoDB Local stops.
    const reconciling = new Set<Promise<unknown>>();
    closers.push(async () => {
      await Promise.all([...reconciling]);
    });
    // The cloud archives a closed execution's history on an EventBridge rule; here the engine says.
    let archive: ((executionArn: string) => void) | undefined;
    const engine = new LocalStepFunctions({
      ...(options.dataDir === undefined
        ? {}
        : { store: new FileCheckpointStore(join(options.dataDir, 'executions')) }),
      onExecutionEnd: (execution) => {
        const event = executionStatusChange(execution, 'us-east-1', '000000000000');
        if (event !== undefined) onExecutionEnd(event);
        if (execution.executionArn !== undefined) archive?.(execution.executionArn);
      },
    });
    closers.push(() => engine.close());
    const facade = await startSfnHttpFacade(engine, { port: 0 });
    closers.push(() => facade.close());
    const stateMachineArn = `arn:aws:states:us-east-1:000000000000:stateMachine:${machine.name}`;
    const followStateMachineArn = `arn:aws:states:us-east-1:000000000000:stateMachine:${followMachine.name}`;

    // Push tokens sealed in a data directory must open after a restart: keep the key beside them.
    const pushTokenKey =
      options.dataDir !== undefined &&
      (options.env?.TINY_HARNESS_PUSH_TOKEN_KEY ?? process.env.TINY_HARNESS_PUSH_TOKEN_KEY) ===
        undefined
        ? persistentPushTokenKey(options.dataDir)
        : undefined;
    const config = readRuntimeConfig({
      ...process.env,
      TINY_HARNESS_TABLE: TABLE_NAME,
      TINY_HARNESS_STATE_MACHINE_ARN: stateMachineArn,
      TINY_HARNESS_FOLLOW_STATE_MACHINE_ARN: followStateMachineArn,
      TINY_HARNESS_DYNAMODB_ENDPOINT: dynamo.endpoint,
      TINY_HARNESS_SFN_ENDPOINT: facade.endpoint,
      AWS_REGION: 'us-east-1',
      ...(pushTokenKey === undefined ? {} : { TINY_HARNESS_PUSH_TOKEN_KEY: pushTokenKey }),
      ...options.env,
    });
    // One process runs every function here: the turn step's MCP servers are connected once.
    const tools = await connectMcpTools(config, loggerOf(config), { stdio: stdioTransport });
    if (tools !== undefined) closers.push(() => tools.close());
    // Every write of the handlers wakes the stream's reader (made further down) and the A2A
    // streams of the tasks it wrote.
    let stream: StreamPoller | undefined;
    const writes = new TaskSignals();
    const runtime = buildRuntime(config, {
      tools,
      onDynamoDbWrite: (input) => {
        stream?.wake();
        for (const taskId of tasksWritten(input)) writes.signal(taskId);
      },
      ...(options.model === undefined ? {} : { model: options.model }),
      ...(options.onDynamoDbCommand === undefined
        ? {}
        : { onDynamoDbCommand: options.onDynamoDbCommand }),
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    });
    // Remote agents are registered before anything is served: one whose card offers nothing
    // the harness can call stops the start, named; one that cannot be reached yet is looked up
    // again when a child is first sent to it (two stacks delegating to each other start apart).
    for (const registration of await runtime.remote.agents.register()) {
      if (registration.outcome === 'refused') throw new Error(registration.reason);
      if (registration.outcome === 'unreachable') {
        runtime.logger.warn('remote agent not reachable yet', {
          agent: registration.agent,
          reason: registration.reason,
        });
      }
    }
    const dynamodb = new DynamoDBClient(localDynamoDbClientConfig(dynamo.endpoint));
    await createTable(dynamodb, TABLE_NAME, { ifNotExists: true });
    // A data directory an earlier build wrote: its records' plans and rows move apart first.
    const migration = await migrateTaskRecords(dynamodb, TABLE_NAME);
    if (migration.found > 0) runtime.logger.info('task records migrated', { ...migration });
    const audit = auditOf(runtime, { ...process.env, ...options.env });
    const archiving = new Set<Promise<unknown>>();
    archive = (executionArn) => {
      const archived = archiveClosedExecution(runtime, audit, executionArn).catch((error) =>
        runtime.logger.warn('execution history not archived', {
          executionArn,
          errorMessage: (error as Error).message,
        })
      );
      archiving.add(archived);
      void archived.finally(() => archiving.delete(archived));
    };
    closers.push(async () => {
      archive = undefined;
      await Promise.all([...archiving]);
    });

    const handlers: Record<FunctionId, Handler> = {
      // One runtime for both steps: locally the model and the remote agents' client share it.
      TurnStepFunction: createTurnStepHandler(() => runtime),
      ToolStepFunction: createTurnStepHandler(() => runtime),
      StreamFunction: createStreamHandler(() => runtime),
      PushFunction: createPushHandler(() => runtime),
      ReconcileFunction: createReconcileHandler(() => runtime),
      RemoteFollowFunction: createRemoteFollowHandler(() => runtime),
      RemotePushFunction: createRemotePushHandler(() => runtime),
      A2aFunction: createA2aHandler(
        () => runtime,
        () => service
      ).use(
        capStreamsPerCaller(
          () => runtime,
          () => streamLeases
        )
      ),
    };
    // A blocking SendMessage reads the task when one of its steps returns, and a stream reads the
    // task's log when an item of it is written; on a timer only as a fallback (the cloud's).
    const steps = new TaskSignals();
    const service = new A2aService(runtime, {
      blockingTimeoutMs: 25_000,
      pollIntervalMs: 250,
      watchSteps: (taskId) => steps.watch(taskId),
      ...(options.pollStreamsOnly === true
        ? {}
        : { watchWrites: (taskId: string) => writes.watch(taskId) }),
    });
    const streamLeases = buildStreamLeases(config);
    const invoke = (id: FunctionId, event: unknown) => {
      const invocation = (handlers[id] as (event: unknown, context: unknown) => Promise<unknown>)(
        event,
        localLambdaContext(id)
      );
      running.add(invocation);
      void invocation.finally(() => running.delete(invocation)).catch(() => undefined);
      if (id === 'TurnStepFunction' || id === 'ToolStepFunction') {
        const taskId = taskOfStep(event);
        if (taskId !== undefined) {
          void invocation.then(
            (result) => {
              if (mayHaveSettled(result)) steps.signal(taskId);
            },
            () => steps.signal(taskId)
          );
        }
      }
      return invocation;
    };

    for (const each of [machine, followMachine]) {
      const taskHandlers = Object.fromEntries(
        listTaskStates(each.definition).map((task) => {
          const logicalId = each.lambdaRefs[task.functionName ?? ''] ?? task.functionName ?? '';
          const id = functions.get(logicalId);
          if (id === undefined)
            throw new Error(`Task state ${task.stateName} calls no known function`);
          return [task.stateName, (input: unknown) => invoke(id, input)];
        })
      );
      engine.createStateMachine({ name: each.name, definition: each.definition, taskHandlers });
    }

    const reconcile = (event: unknown, failure: string) => {
      const run = invoke('ReconcileFunction', event).catch((error: unknown) =>
        runtime.logger.error(failure, { errorMessage: (error as Error).message })
      );
      reconciling.add(run);
      void run.finally(() => reconciling.delete(run));
    };
    onExecutionEnd = (event) => reconcile(event, 'execution end not reconciled');

    // What the previous process left: executions resume from their checkpoints, and tasks whose
    // execution never got one are revived. Before the streams are read and requests taken: a
    // park released before the crash (its token claimed by a message, its SendTaskSuccess lost)
    // is answered by the stream stand-in, which needs the parked execution back to answer it.
    const rehydrated = await engine.rehydrate();
    if (rehydrated.failed.length > 0)
      runtime.logger.warn('executions not resumed', { failed: rehydrated.failed });
    const revived = await reviveOrphans(runtime);
    if (rehydrated.rehydrated.length + rehydrated.resumed.length + revived.length > 0) {
      runtime.logger.info('executions resumed after a restart', {
        parked: rehydrated.rehydrated.length,
        running: rehydrated.resumed.length,
        revived: revived.length,
      });
    }

    // One reader of the stream hands every event source mapping each record, as each mapping
    // reading it on its own would.
    const mappings = eventSourceMappings(template);
    const reader = new StreamPoller({
      dynamodb,
      streams: new DynamoDBStreamsClient(localDynamoDbClientConfig(dynamo.endpoint)),
      tableName: TABLE_NAME,
      mappings: mappings.map((mapping) => ({
        settings: mapping.settings,
        handler: (event) => invoke(mapping.functionId, event) as never,
        ...(options.dataDir === undefined
          ? {}
          : { positionFile: join(options.dataDir, `stream-${mapping.functionId}.json`) }),
      })),
      logger: runtime.logger,
      // Woken by each write of the handlers; otherwise four reads a second, as a mapping does.
      pollIntervalMs: 250,
    });
    await reader.start();
    closers.push(() => reader.stop());
    stream = reader;
    const pollers = new Map<FunctionId, StreamMapping>();
    mappings.forEach((mapping, index) => {
      const started = reader.mappings[index];
      if (started !== undefined) pollers.set(mapping.functionId, started);
    });

    // What the cloud's schedule does: generations whose start was lost are started. Here the
    // starter and the stack are one process, so the restart's revival above already covers a crash;
    // the sweep runs anyway, so `npm start` runs what the cloud runs.
    const sweep = setInterval(
      () => reconcile(pendingStartSweepEvent(new Date()), 'pending starts not swept'),
      PENDING_START_SWEEP_MINUTES * 60_000
    );
    sweep.unref();
    closers.push(() => clearInterval(sweep));

    const [firstToken] = config.TINY_HARNESS_BEARER_TOKENS.entries();
    const webIdentity =
      options.web?.identity ??
      (firstToken === undefined ? undefined : { token: firstToken[0], participant: firstToken[1] });
    const shim = await startHttpShim({
      site:
        options.web === undefined || webIdentity === undefined
          ? undefined
          : webSite({ dir: options.web.dir, identity: webIdentity }),
      // API Gateway's routes: our webhook for remote agents' pushes, and the A2A function.
      handler: (event, context) =>
        (
          handlers[
            parseRemotePushPath(event.path) === undefined ? 'A2aFunction' : 'RemotePushFunction'
          ] as never as (e: unknown, c: unknown) => Promise<never>
        )(event, context),
      port: options.port,
      // Remote agents may push through a tunnel that keeps its own host name.
      allowedHosts:
        config.TINY_HARNESS_BASE_URL === undefined
          ? []
          : [new URL(config.TINY_HARNESS_BASE_URL).host],
      throttle: {
        ratePerMinute: config.TINY_HARNESS_THROTTLE_PER_MINUTE,
        burst: config.TINY_HARNESS_THROTTLE_BURST,
      },
      onError: (error) =>
        runtime.logger.error('a2a handler threw', {
          errorMessage: (error as Error).message,
          stack: (error as Error).stack,
        }),
    });
    closers.push(() => shim.close());
    lock?.update({ url: shim.url });
    // Remote agents push to us here (TINY_HARNESS_BASE_URL, when set, wins).
    runtime.publicUrl.current ??= shim.url;
    return {
      url: shim.url,
      runtime,
      engine,
      pollers,
      stateMachineArn,
      followStateMachineArn,
      internalPorts: { dynamodb: dynamo.port, stepFunctions: facade.port },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
};
