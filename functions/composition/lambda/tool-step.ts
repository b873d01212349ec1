import './source-maps.js';
import { NO_MODEL } from '../../adapters/model/no-model.js';
import { buildLoopRuntime, type LoopRuntime } from '../loop-runtime.js';
import { buildRemoteAgents } from '../remote-agents.js';
import { readRuntimeConfig } from '../runtime-config.js';
import { connectingTools } from '../step-tools.js';

let base: LoopRuntime | undefined;
const withTools = connectingTools(new Set(['execute_tool']));

/**
 * The tool step function's composition root: the MCP servers and the remote agents with their
 * credentials, and no model (a tool call never calls it, so this bundle holds no provider SDK).
 */
export const lambdaToolStepRuntime = (op: string): LoopRuntime | Promise<LoopRuntime> => {
  if (op !== 'execute_tool') {
    throw new Error(`the tool step function runs tool calls only, not ${op}`);
  }
  if (base === undefined) {
    const config = readRuntimeConfig();
    base = buildLoopRuntime(config, {
      model: NO_MODEL,
      remoteAgents: buildRemoteAgents(config),
    });
  }
  return withTools(base, op);
};
