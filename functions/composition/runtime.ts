import { HttpWebhookSender } from '../adapters/push/http-webhook-sender.js';
import type { Hooks } from '../core/hooks/hooks.js';
import type { HarnessHookPoints } from '../core/loop/hook-points.js';
import type { Model } from '../core/ports/model.js';
import type { SecretSealer } from '../core/ports/secret-sealer.js';
import type { ToolRunner } from '../core/ports/tool-runner.js';
import type { WebhookSender } from '../core/ports/webhook-sender.js';
import { dynamoDbClientOf } from './aws-clients.js';
import { buildModel } from './model.js';
import {
  afterWrites,
  type DynamoDbCommandObservation,
  observeCommands,
} from './observe-commands.js';
import { buildRemoteAgents } from './remote-agents.js';
import type { RuntimeConfig } from './runtime-config.js';
import { buildServiceRuntime, type ServiceRuntime } from './service-runtime.js';

export { buildStreamLeases } from './stream-leases.js';
export type { DynamoDbCommandObservation };

/**
 * Everything every handler needs, built once: the root of `npm start` (functions/local), which
 * runs all the handlers in one process, and of the tests. Each Lambda function builds only its
 * own part (functions/composition/lambda/).
 */
export interface Runtime extends ServiceRuntime {
  /** Delivers push notifications, under the webhook policy (loopback only when allowed). */
  webhooks: WebhookSender;
}

export interface RuntimeOverrides {
  model?: Model;
  sealer?: SecretSealer;
  webhooks?: WebhookSender;
  hooks?: Hooks<HarnessHookPoints>;
  /** The external tools, connected by the caller (`connectMcpTools`). */
  tools?: ToolRunner | undefined;
  /** The fetch remote agents are called with (tests observe or break it). */
  fetch?: typeof fetch;
  /** Observe every DynamoDB command (default off): it then also asks for ConsumedCapacity. */
  onDynamoDbCommand?: (observation: DynamoDbCommandObservation) => void;
  /**
   * Told after each DynamoDB write the runtime sends, with its input (`npm start` wakes its stream
   * reader, and the A2A streams of the tasks it wrote).
   */
  onDynamoDbWrite?: (input: unknown) => void;
}

export const buildRuntime = (config: RuntimeConfig, overrides: RuntimeOverrides = {}): Runtime => {
  const dynamodb = dynamoDbClientOf(config);
  if (overrides.onDynamoDbCommand) observeCommands(dynamodb, overrides.onDynamoDbCommand);
  if (overrides.onDynamoDbWrite) afterWrites(dynamodb, overrides.onDynamoDbWrite);
  const service = buildServiceRuntime(config, {
    model: overrides.model ?? buildModel(config),
    hooks: overrides.hooks,
    dynamodb,
    sealer: overrides.sealer,
    remoteAgents: buildRemoteAgents(config, overrides.fetch),
    tools: overrides.tools,
  });
  return {
    ...service,
    webhooks: overrides.webhooks ?? new HttpWebhookSender({ policy: service.webhookPolicy }),
  };
};
