import './source-maps.js';
import { buildLoopRuntime, type LoopRuntime } from '../loop-runtime.js';
import { buildModel } from '../model.js';
import { buildRemoteAgents } from '../remote-agents.js';
import { readRuntimeConfig } from '../runtime-config.js';

/** The turn step's runtime: the loop, with the deployment's model. */
export type TurnStepRuntime = LoopRuntime;

let memo: TurnStepRuntime | undefined;

/** The turn step function's composition root: configuration from the environment, built once. */
export const lambdaRuntime = (): TurnStepRuntime => {
  if (memo === undefined) {
    const config = readRuntimeConfig();
    memo = buildLoopRuntime(config, {
      model: buildModel(config),
      remoteAgents: buildRemoteAgents(config),
    });
  }
  return memo;
};
