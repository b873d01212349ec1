import type { ToolRunner } from '../core/ports/tool-runner.js';
import { loggerOf } from './logger.js';
import { type LoopRuntime, withToolRunner } from './loop-runtime.js';
import { ConfigurationError, type RuntimeConfig } from './runtime-config.js';

declare global {
  /**
   * Whether this Lambda bundle holds the MCP client. `cdk synth` builds the turn and tool steps
   * with this replaced by `true` when the deployment configures MCP servers (context
   * `mcpServers`) and by `false` when it does not (esbuild's `define`,
   * cdk/constructs/harness-function.ts): then the test below is `false`, and esbuild leaves the
   * SDK's client and the JSON Schema validator out of the bundle. Unbundled (the tests) it is
   * undefined, and the client is there.
   */
  var tinyHarnessBundledMcp: boolean | undefined;
}

/** The MCP servers connected and listed. */
const connectTools = async (config: RuntimeConfig): Promise<ToolRunner> => {
  // Written out (not a helper's call) for esbuild to fold it to a constant.
  if (globalThis.tinyHarnessBundledMcp ?? true) {
    const { connectMcpTools } = await import('./mcp-tools.js');
    // Over Streamable HTTP only: no stdio transport is given, so a stdio server is refused.
    const runner = await connectMcpTools(config, loggerOf(config));
    if (runner !== undefined) return runner;
  }
  throw new ConfigurationError(
    'TINY_HARNESS_MCP_SERVERS is set, but this bundle holds no MCP client (the deployment was synthesized without mcpServers): deploy with -c mcpServers=… to add servers'
  );
};

/**
 * A step function's runtime with the MCP servers connected, once per cold start, by the first
 * step in `usesTools` (the turn offers their tools to the model, a tool call runs one): a park, a
 * renewal or a task's failure never waits on a server. A failed connection (a server down) is
 * not kept: the next such step tries again.
 */
export const connectingTools = (usesTools: ReadonlySet<string>) => {
  let tooled: Promise<LoopRuntime> | undefined;
  return (base: LoopRuntime, op: string): LoopRuntime | Promise<LoopRuntime> => {
    if (!usesTools.has(op) || Object.keys(base.config.TINY_HARNESS_MCP_SERVERS).length === 0) {
      return base;
    }
    tooled ??= connectTools(base.config).then(
      (runner) => withToolRunner(base, runner),
      (error: unknown) => {
        tooled = undefined;
        throw error;
      }
    );
    return tooled;
  };
};
