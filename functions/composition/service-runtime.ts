import { DynamoDbPushConfigStore } from '../adapters/dynamodb/dynamodb-push-config-store.js';
import type { SecretSealer } from '../core/ports/secret-sealer.js';
import type { ServiceDeps } from '../service/deps.js';
import { refuseAgentAsCaller } from '../service/identity.js';
import { dynamoDbClientOf } from './aws-clients.js';
import { buildLoopRuntime, type LoopParts, type LoopRuntime } from './loop-runtime.js';
import { configuredSecrets, type RuntimeConfig } from './runtime-config.js';
import { buildSealer } from './sealer.js';

/** The loop and everything the A2A service needs beside it: the A2A function's runtime. */
export type ServiceRuntime = LoopRuntime & ServiceDeps;

export const buildServiceRuntime = (
  config: RuntimeConfig,
  parts: LoopParts & { sealer?: SecretSealer | undefined }
): ServiceRuntime => {
  refuseAgentAsCaller(config.TINY_HARNESS_BEARER_TOKENS, config.TINY_HARNESS_AGENT_ID);
  const dynamodb = parts.dynamodb ?? dynamoDbClientOf(config);
  return {
    ...buildLoopRuntime(config, { ...parts, dynamodb }),
    pushConfigs: new DynamoDbPushConfigStore({
      client: dynamodb,
      tableName: config.TINY_HARNESS_TABLE,
    }),
    sealer: parts.sealer ?? buildSealer(config),
    webhookPolicy: { allowLoopback: config.TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS },
    secrets: configuredSecrets(config),
  };
};
