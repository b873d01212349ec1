import './source-maps.js';
import { NO_MODEL } from '../../adapters/model/no-model.js';
import { NO_REMOTE_AGENTS } from '../../adapters/remote/no-remote-agents.js';
import type { StreamLeases } from '../../adapters/streams/dynamodb-stream-leases.js';
import { readRuntimeConfig } from '../runtime-config.js';
import { buildServiceRuntime, type ServiceRuntime } from '../service-runtime.js';
import { buildStreamLeases } from '../stream-leases.js';

let memo: ServiceRuntime | undefined;

/** The A2A function's composition root: the loop without a model, and the service's parts. */
export const lambdaRuntime = (): ServiceRuntime => {
  memo ??= buildServiceRuntime(readRuntimeConfig(), {
    model: NO_MODEL,
    remoteAgents: NO_REMOTE_AGENTS,
  });
  return memo;
};

let leasesMemo: StreamLeases | undefined;

/** The A2A function's stream leases, built on first use from the same configuration. */
export const lambdaStreamLeases = (): StreamLeases => {
  leasesMemo ??= buildStreamLeases(lambdaRuntime().config);
  return leasesMemo;
};
