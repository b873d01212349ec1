import './source-maps.js';
import { loggerOf } from '../logger.js';
import { buildLoopRuntime, type LoopRuntime } from '../loop-runtime.js';
import { connectMcpTools } from '../mcp-tools.js';
import { buildModel } from '../model.js';
import { buildRemoteAgents } from '../remote-agents.js';
import { readRuntimeConfig } from '../runtime-config.js';

/** The turn step's runtime: the loop, with the deployment's model and tools. */
export type TurnStepRuntime = LoopRuntime;

let memo: Promise<TurnStepRuntime> | undefined;

const build = async (): Promise<TurnStepRuntime> => {
  const config = readRuntimeConfig();
  return buildLoopRuntime(config, {
    model: buildModel(config),
    remoteAgents: buildRemoteAgents(config),
    // Listed once per cold start; only this function runs tools.
    tools: await connectMcpTools(config, loggerOf(config)),
  });
};

/**
 * The turn step function's composition root: configuration from the environment, built once. A
 * failed build (an MCP server down) is not kept: the next invocation tries again.
 */
export const lambdaRuntime = (): Promise<TurnStepRuntime> => {
  memo ??= build().catch((error: unknown) => {
    memo = undefined;
    throw error;
  });
  return memo;
};
