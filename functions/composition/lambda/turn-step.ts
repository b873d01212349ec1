import './source-maps.js';
import type { ToolRunner } from '../../core/ports/tool-runner.js';
import { loggerOf } from '../logger.js';
import { buildLoopRuntime, type LoopRuntime } from '../loop-runtime.js';
import { buildModel } from '../model.js';
import { buildRemoteAgents } from '../remote-agents.js';
import { ConfigurationError, type RuntimeConfig, readRuntimeConfig } from '../runtime-config.js';

declare global {
  /**
   * Whether this Lambda bundle holds the MCP client. `cdk synth` builds the turn step with this
   * replaced by `true` when the deployment configures MCP servers (context `mcpServers`) and by
   * `false` when it does not (esbuild's `define`, cdk/constructs/harness-function.ts): then the
   * test below is `false`, and esbuild leaves the SDK's client and the JSON Schema validator out
   * of the bundle. Unbundled (the tests) it is undefined, and the client is there.
   */
  var tinyHarnessBundledMcp: boolean | undefined;
}

/** The turn step's runtime: the loop, with the deployment's model and tools. */
export type TurnStepRuntime = LoopRuntime;

/** The MCP servers connected and listed, when the deployment configures any. */
const connectTools = async (config: RuntimeConfig): Promise<ToolRunner | undefined> => {
  if (Object.keys(config.TINY_HARNESS_MCP_SERVERS).length === 0) return undefined;
  // Written out (not a helper's call) for esbuild to fold it to a constant.
  if (globalThis.tinyHarnessBundledMcp ?? true) {
    const { connectMcpTools } = await import('../mcp-tools.js');
    // Over Streamable HTTP only: no stdio transport is given, so a stdio server is refused.
    return connectMcpTools(config, loggerOf(config));
  }
  throw new ConfigurationError(
    'TINY_HARNESS_MCP_SERVERS is set, but this bundle holds no MCP client (the deployment was synthesized without mcpServers): deploy with -c mcpServers=… to add servers'
  );
};

const build = async (): Promise<TurnStepRuntime> => {
  const config = readRuntimeConfig();
  return buildLoopRuntime(config, {
    model: buildModel(config),
    remoteAgents: buildRemoteAgents(config),
    // Listed once per cold start; only this function runs tools.
    tools: await connectTools(config),
  });
};

let memo: Promise<TurnStepRuntime> | undefined;

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
