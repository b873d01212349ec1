import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpConnectOptions } from './mcp-tools.js';

/**
 * A stdio MCP server started as a child process (`npm start` and the tests; never on Lambda),
 * with the SDK's safe default environment plus the server's own `env`.
 */
export const stdioTransport: NonNullable<McpConnectOptions['stdio']> = (server): Transport =>
  new StdioClientTransport({
    command: server.command,
    args: server.args,
    env: { ...getDefaultEnvironment(), ...server.env },
    ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
  });
