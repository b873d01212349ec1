import './source-maps.js';
import { NO_MODEL } from '../../adapters/model/no-model.js';
import { NO_REMOTE_AGENTS } from '../../adapters/remote/no-remote-agents.js';
import { buildLoopRuntime, type LoopRuntime } from '../loop-runtime.js';
import { readRuntimeConfig } from '../runtime-config.js';

let memo: LoopRuntime | undefined;

/**
 * The root of the functions that drive tasks without a model or a remote agent (the stream
 * stand-in, the reconciler): the loop over the table and the executions, from the environment, built once.
 */
export const lambdaLoopRuntime = (): LoopRuntime => {
  memo ??= buildLoopRuntime(readRuntimeConfig(), {
    model: NO_MODEL,
    remoteAgents: NO_REMOTE_AGENTS,
  });
  return memo;
};
