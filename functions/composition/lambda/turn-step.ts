import './source-maps.js';
import { buildLoopRuntime, type LoopRuntime } from '../loop-runtime.js';
import { buildModel } from '../model.js';
import { remoteAgentRoster } from '../remote-agent-roster.js';
import { readRuntimeConfig } from '../runtime-config.js';
import { connectingTools } from '../step-tools.js';

let base: LoopRuntime | undefined;
const withTools = connectingTools(new Set(['turn']));

/**
 * The turn step function's composition root: the deployment's model, and the remote agents by
 * name only (the model reads who they are; a child is created on one by the tool step, so this
 * bundle holds neither the A2A client nor their credentials).
 */
export const lambdaTurnStepRuntime = (op: string): LoopRuntime | Promise<LoopRuntime> => {
  if (op === 'execute_tool') {
    throw new Error('a tool call is run by the tool step function, never by the turn step');
  }
  if (base === undefined) {
    const config = readRuntimeConfig();
    base = buildLoopRuntime(config, {
      model: buildModel(config),
      remoteAgents: remoteAgentRoster(config),
    });
  }
  return withTools(base, op);
};
