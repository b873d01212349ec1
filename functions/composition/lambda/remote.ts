import './source-maps.js';
import { NO_MODEL } from '../../adapters/model/no-model.js';
import { buildLoopRuntime, type LoopRuntime } from '../loop-runtime.js';
import { buildRemoteAgents } from '../remote-agents.js';
import { readRuntimeConfig } from '../runtime-config.js';

let memo: LoopRuntime | undefined;

/**
 * The root of the functions that follow children on remote agents (the follow step, the push
 * webhook): the loop without a model, with the configured remote agents and their credentials.
 */
export const lambdaRemoteRuntime = (): LoopRuntime => {
  if (memo === undefined) {
    const config = readRuntimeConfig();
    memo = buildLoopRuntime(config, { model: NO_MODEL, remoteAgents: buildRemoteAgents(config) });
  }
  return memo;
};
