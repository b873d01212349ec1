import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { authenticatedFetch } from '../adapters/mcp/authenticated-fetch.js';
import { McpToolRunner } from '../adapters/mcp/mcp-tool-runner.js';
import type { Logger } from '../core/ports/logger.js';
import { credentialsOf, type SecretsAt } from './credentials.js';
import type { McpServerConfig } from './mcp-servers-config.js';
import { ConfigurationError, type RuntimeConfig } from './runtime-config.js';
import { rememberSecret } from './secret-list.js';

/** One request to an MCP server's token endpoint at most this long. */
const TOKEN_TIMEOUT_MS = 15_000;

type StdioServer = Extract<McpServerConfig, { command: string }>;

export interface McpConnectOptions {
  /**
   * How a stdio server's process is started (`npm start`'s composition gives it: see
   * mcp-stdio.ts). Without it a stdio server is a configuration error: a Lambda function starts
   * no server processes, and its bundle holds no stdio transport.
   */
  stdio?: (server: StdioServer) => Transport;
  /** The fetch the servers and their token endpoints are called with (tests observe it). */
  fetch?: typeof fetch;
}

/**
 * How a server is reached: a new transport each call (a new session needs one), sharing the
 * server's credentials (an OAuth 2.0 access token is fetched once and renewed as it expires).
 */
const transportsOf = (
  name: string,
  server: McpServerConfig,
  at: SecretsAt,
  options: McpConnectOptions
): (() => Transport) => {
  if ('command' in server) {
    const { stdio } = options;
    if (stdio === undefined) {
      throw new ConfigurationError(
        `invalid tiny-harness configuration: TINY_HARNESS_MCP_SERVERS: ${name} is a stdio server ("command"), which only npm start runs: give its Streamable HTTP "url"`
      );
    }
    return () => stdio(server);
  }
  const base = options.fetch ?? fetch;
  const credentials = credentialsOf(server.auth, at, { fetch: base, timeoutMs: TOKEN_TIMEOUT_MS });
  return () =>
    new StreamableHTTPClientTransport(new URL(server.url), {
      fetch: authenticatedFetch(credentials, base),
    });
};

/**
 * The configured MCP servers connected and their tools listed (once, at cold start); undefined
 * when none is configured. A server that cannot be reached or listed fails the start, named.
 */
export const connectMcpTools = async (
  config: RuntimeConfig,
  logger: Logger,
  options: McpConnectOptions = {}
): Promise<McpToolRunner | undefined> => {
  const servers = Object.entries(config.TINY_HARNESS_MCP_SERVERS);
  if (servers.length === 0) return undefined;
  const at: SecretsAt = {
    environment: config.mcpServerSecrets,
    region: config.AWS_REGION,
    remember: (secret) => rememberSecret(config, secret),
  };
  return McpToolRunner.connect(
    servers.map(([name, server]) => {
      const open = transportsOf(name, server, at, options);
      return {
        name,
        transport: open(),
        allow: server.tools,
        maxResultChars: server.maxResultChars,
        approval: server.approval,
        // A stdio server's session is its process: it is not started again.
        ...('url' in server ? { reopen: open } : {}),
      };
    }),
    logger
  );
};
