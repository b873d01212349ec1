import type { Context } from 'aws-lambda';
import { A2aRemoteAgents } from '../../functions/adapters/remote/a2a-remote-agents.js';
import {
  LocalSecretSealer,
  randomLocalKey,
} from '../../functions/adapters/secrets/local-secret-sealer.js';
import { createLogger } from '../../functions/adapters/system/logger.js';
import type { Runtime } from '../../functions/composition/runtime.js';
import {
  configuredSecrets,
  readRuntimeConfig,
} from '../../functions/composition/runtime-config.js';
import type { TurnRef } from '../../functions/core/loop/route.schema.js';
import { InMemoryRemoteLinks } from '../../functions/core/testing/in-memory-remote-links.js';
import {
  InProcessHarness,
  type InProcessHarnessOptions,
} from '../../functions/core/testing/in-process-harness.js';
import { RecordingWebhookSender } from '../../functions/core/testing/recording-webhook-sender.js';
import { ScriptedModel, type ScriptedReply } from '../../functions/core/testing/scripted-model.js';
import type { Executions } from '../../functions/service/executions.js';
import { executionWaker } from '../../functions/service/follow-wake.js';
import { TEST_BEARER_TOKENS } from '../support/identity.js';

export type ExecutionCall =
  | { method: 'start'; ref: TurnRef }
  | { method: 'resume'; token: string }
  | { method: 'fail'; token: string; error: string; cause: string }
  | { method: 'stop'; taskId: string; generation: number; cause: string }
  | { method: 'isRunning'; taskId: string; generation: number };

/** Executions that do nothing but remember what they were asked, in order. */
export class RecordingExecutions implements Executions {
  readonly calls: ExecutionCall[] = [];

  get started(): TurnRef[] {
    return this.calls.flatMap((call) => (call.method === 'start' ? [call.ref] : []));
  }

  get resumed(): string[] {
    return this.calls.flatMap((call) => (call.method === 'resume' ? [call.token] : []));
  }

  async start(ref: TurnRef): Promise<void> {
    this.calls.push({ method: 'start', ref });
  }

  async resume(token: string): Promise<boolean> {
    this.calls.push({ method: 'resume', token });
    return true;
  }

  /** What `isRunning` answers: executions are alive unless a test says they are gone. */
  running = true;

  async isRunning(taskId: string, generation: number): Promise<boolean> {
    this.calls.push({ method: 'isRunning', taskId, generation });
    return this.running;
  }

  async fail(token: string, error: string, cause: string): Promise<void> {
    this.calls.push({ method: 'fail', token, error, cause });
  }

  async stop(taskId: string, generation: number, cause: string): Promise<void> {
    this.calls.push({ method: 'stop', taskId, generation, cause });
  }
}

export const STATE_MACHINE_ARN = 'arn:aws:states:us-east-1:000000000000:stateMachine:turns';

/**
 * The runtime with the waker the real one has, over its own executions and remote agents (the
 * harness's own waker runs its in-process queue instead): what the service and handlers wake is
 * asked of the recording executions.
 */
export const withExecutionWaker = (runtime: Runtime): Runtime => {
  const woken: Runtime = {
    ...runtime,
    loop: {
      ...runtime.loop,
      waker: executionWaker({
        loop: () => woken.loop,
        executions: runtime.executions,
        logger: runtime.logger,
        remote: runtime.remote,
      }),
    },
  };
  return woken;
};

/**
 * A Runtime built from in-memory parts: the in-process harness's ports (store, event log,
 * scripted model), recording executions and webhooks, the local sealer with a fresh key, a
 * logger that collects its lines, and a configuration parsed as the Lambda would parse its
 * environment.
 */
export const inMemoryRuntime = (
  options: { replies?: ScriptedReply[]; harness?: Omit<InProcessHarnessOptions, 'model'> } = {}
) => {
  const model = new ScriptedModel(options.replies ?? []);
  const harness = new InProcessHarness({ ...options.harness, model });
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', write: (line) => lines.push(line) });
  const config = readRuntimeConfig({
    TINY_HARNESS_TABLE: 'tiny-harness-test',
    TINY_HARNESS_STATE_MACHINE_ARN: STATE_MACHINE_ARN,
    TINY_HARNESS_BEARER_TOKENS: TEST_BEARER_TOKENS,
  });
  const executions = new RecordingExecutions();
  const { pushConfigs } = harness;
  const sealer = new LocalSecretSealer(randomLocalKey());
  const webhooks = new RecordingWebhookSender();
  const runtime: Runtime = withExecutionWaker({
    config,
    loop: harness.deps,
    executions,
    logger,
    pushConfigs,
    sealer,
    webhookPolicy: { allowLoopback: config.TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS },
    secrets: configuredSecrets(config),
    webhooks,
    remote: {
      agents: new A2aRemoteAgents({ agents: [] }),
      links: new InMemoryRemoteLinks(),
      followers: { start: async () => undefined },
    },
    publicUrl: { current: undefined },
  });
  return {
    runtime,
    harness,
    model,
    executions,
    pushConfigs,
    sealer,
    webhooks,
    lines,
    logs: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
};

/** A Lambda context, for calling a middy handler the way the Lambda runtime does. */
export const lambdaContext = (functionName: string): Context => ({
  callbackWaitsForEmptyEventLoop: false,
  functionName,
  functionVersion: '$LATEST',
  invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
  memoryLimitInMB: '512',
  awsRequestId: 'test-request',
  logGroupName: `/aws/lambda/${functionName}`,
  logStreamName: 'test',
  getRemainingTimeInMillis: () => 30_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});
