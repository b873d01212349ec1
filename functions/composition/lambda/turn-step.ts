import './source-maps.js';
import type { ToolRunner } from '../../core/ports/tool-runner.js';
import { loggerOf } from '../logger.js';
import { buildLoopRuntime, type LoopRuntime, withToolRunner } from '../loop-runtime.js';
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

/** The steps that offer tools to the model or run them; the others never wait on an MCP server. */
const USES_TOOLS = new Set(['turn', 'execute_tool']);

/** The MCP servers connected and listed. */
const connectTools = async (config: RuntimeConfig): Promise<ToolRunner> => {
  // Written out (not a helper's call) for esbuild to fold it to a constant.
  if (globalThis.tinyHarnessBundledMcp ?? true) {
    const { connectMcpTools } = await import('../mcp-tools.js');
    // Over Streamable HTTP only: no stdio transport is given, so a stdio server is refused.
    const runner = await connectMcpTools(config, loggerOf(config));
    if (runner !== undefined) return runner;
  }
  throw new ConfigurationError(
    'TINY_HARNESS_MCP_SERVERS is set, but this bundle holds no MCP client (the deployment was synthesized without mcpServers): deploy with -c mcpServers=… to add servers'
  );
};

let base: TurnStepRuntime | undefined;
let tooled: Promise<TurnStepRuntime> | undefined;

/**
 * The turn step function's composition root: configuration from the environment, built once.
 * The MCP servers are connected (and their tools listed) once per cold start, by the first step
 * that offers or runs tools: a park, a renewal or a task's failure never waits on a server. A
 * failed connection (a server down) is not kept: the next such step tries again.
 */
export const lambdaRuntime = (op: string): TurnStepRuntime | Promise<TurnStepRuntime> => {
  if (base === undefined) {
    const config = readRuntimeConfig();
    base = buildLoopRuntime(config, {
      model: buildModel(config),
      remoteAgents: buildRemoteAgents(config),
    });
  }
  if (!USES_TOOLS.has(op) || Object.keys(base.config.TINY_HARNESS_MCP_SERVERS).length === 0) {
    return base;
  }
  const runtime = base;
  tooled ??= connectTools(runtime.config).then(
    (runner) => withToolRunner(runtime, runner),
    (error: unknown) => {
      tooled = undefined;
      throw error;
    }
  );
  return tooled;
};
