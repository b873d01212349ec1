import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpToolRunner } from '../adapters/mcp/mcp-tool-runner.js';
import type { Logger } from '../adapters/system/logger.js';
import type { McpServerConfig } from './mcp-servers-config.js';
import type { RuntimeConfig } from './runtime-config.js';

const transportOf = (server: McpServerConfig, secrets: ReadonlyMap<string, string>): Transport => {
  if ('command' in server) {
    return new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: { ...getDefaultEnvironment(), ...server.env },
      ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
    });
  }
  const headers: Record<string, string> = {};
  if (server.auth.type === 'bearer') {
    // readRuntimeConfig refused a configuration whose token variable is not set.
    headers.Authorization = `Bearer ${secrets.get(server.auth.token.env)}`;
  }
  return new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } });
};

/**
 * The configured MCP servers connected and their tools listed (once, at cold start); undefined
 * when none is configured. A server that cannot be reached or listed fails the start, named.
 */
export const connectMcpTools = async (
  config: RuntimeConfig,
  logger: Logger
): Promise<McpToolRunner | undefined> => {
  const servers = Object.entries(config.TINY_HARNESS_MCP_SERVERS);
  if (servers.length === 0) return undefined;
  return McpToolRunner.connect(
    servers.map(([name, server]) => ({
      name,
      transport: transportOf(server, config.mcpServerSecrets),
      allow: server.tools,
      maxResultChars: server.maxResultChars,
      approval: server.approval,
    })),
    logger
  );
};
