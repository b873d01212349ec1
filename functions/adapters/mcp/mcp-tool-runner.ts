import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { ToolUnreachableError } from '../../core/errors.js';
import type { Logger } from '../../core/ports/logger.js';
import type { ExternalTool, ToolRunner, ToolRunResult } from '../../core/ports/tool-runner.js';
import { approvalFor, type McpApprovalPolicy } from './approval-policy.js';
import { JsonSchemaChecker, jsonSchemaArguments } from './json-schema-arguments.js';
import { cutResult, type McpContent, toolResultText } from './tool-result-text.js';

/** One configured server, its transport not yet connected. */
export interface McpServer {
  name: string;
  transport: Transport;
  /** The server's tools the agent may call, by the server's own names. */
  allow: readonly string[];
  maxResultChars: number;
  /**
   * A fresh transport to the same server (Streamable HTTP), for a new session when the server has
   * ended this one (it answers 404): a warm Lambda outlives a server's idle sessions.
   */
  reopen?: () => Transport;
  /** Which tools need a participant's approval before a call runs. */
  approval: McpApprovalPolicy;
}

/** One server's client: replaced by a new session's when the server has ended the old one. */
interface Connection {
  server: McpServer;
  client: Client;
  reconnecting?: Promise<Client> | undefined;
}

/** What the runner keeps of an offered tool: where it lives and how it is shown. */
interface OfferedTool {
  tool: ExternalTool;
  connection: Connection;
  server: string;
  /** The server's own name for it. */
  remoteName: string;
  maxResultChars: number;
}

/** A server that could not be reached or failed under a call, named: the step is retried. */
const unreachable = (server: string, error: unknown): ToolUnreachableError =>
  new ToolUnreachableError(`MCP server ${server}: ${(error as Error).message}`, { cause: error });

/** How a server's tool is named to the model: by its server, so two servers never clash. */
export const namespacedToolName = (server: string, tool: string): string => `${server}__${tool}`;

/**
 * Only a tool its server declares read-only or idempotent is retried after a failure; any other
 * is attempted once (the turn step commits the attempt before the call).
 */
export const retriable = (tool: Pick<Tool, 'annotations'>): boolean =>
  tool.annotations?.readOnlyHint === true || tool.annotations?.idempotentHint === true;

/** Every page of a server's tool list. */
const listAll = async (client: Client): Promise<Tool[]> => {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
};

/**
 * The server no longer knows the session (MCP, Streamable HTTP: it answers 404 to a request of an
 * ended session, and the client starts a new one). The request was not run.
 */
const sessionEnded = (error: unknown): boolean =>
  error instanceof StreamableHTTPError && error.code === 404;

const newClient = (checker: JsonSchemaChecker): Client =>
  new Client({ name: 'tiny-harness', version: '1.0.0' }, { jsonSchemaValidator: checker });

/** A server's refusal of the call itself (bad arguments, no such tool): the tool's failure, not ours. */
const refusedByServer = (error: unknown): error is McpError =>
  error instanceof McpError &&
  (error.code === ErrorCode.InvalidParams || error.code === ErrorCode.MethodNotFound);

/**
 * The agent's tools from MCP servers (the official SDK's client). Connected and listed once, at
 * cold start: the allow-listed tools are cached with their input schemas, compiled by a JSON
 * Schema validator the invoker runs before every call.
 */
export class McpToolRunner implements ToolRunner {
  readonly #tools: Map<string, OfferedTool>;
  readonly #clients: Client[];
  readonly #checker: JsonSchemaChecker;
  readonly #logger: Logger;

  private constructor(
    tools: Map<string, OfferedTool>,
    clients: Client[],
    checker: JsonSchemaChecker,
    logger: Logger
  ) {
    this.#tools = tools;
    this.#clients = clients;
    this.#checker = checker;
    this.#logger = logger;
  }

  static async connect(servers: readonly McpServer[], logger: Logger): Promise<McpToolRunner> {
    const checker = new JsonSchemaChecker();
    const tools = new Map<string, OfferedTool>();
    const clients: Client[] = [];
    try {
      for (const server of servers) {
        const client = newClient(checker);
        clients.push(client);
        try {
          await client.connect(server.transport);
          const connection: Connection = { server, client };
          for (const offered of await McpToolRunner.#offered(connection, checker, logger)) {
            tools.set(offered.tool.name, offered);
          }
        } catch (error) {
          throw unreachable(server.name, error);
        }
      }
    } catch (error) {
      await Promise.allSettled(clients.map((client) => client.close()));
      throw error;
    }
    return new McpToolRunner(tools, clients, checker, logger);
  }

  static async #offered(
    connection: Connection,
    checker: JsonSchemaChecker,
    logger: Logger
  ): Promise<OfferedTool[]> {
    const { server, client } = connection;
    const listed = await listAll(client);
    const log = logger.child({ mcpServer: server.name });
    const missing = server.allow.filter((name) => !listed.some((tool) => tool.name === name));
    if (missing.length > 0)
      log.warn('allow-listed MCP tools the server does not offer', { missing });
    const offered: OfferedTool[] = [];
    for (const tool of listed) {
      if (!server.allow.includes(tool.name)) continue;
      let input: ExternalTool['input'];
      try {
        input = jsonSchemaArguments(checker, tool.inputSchema);
      } catch (error) {
        log.warn('MCP tool not offered: its input schema does not compile', {
          tool: tool.name,
          reason: (error as Error).message,
        });
        continue;
      }
      offered.push({
        tool: {
          name: namespacedToolName(server.name, tool.name),
          description: tool.description ?? tool.title ?? tool.annotations?.title ?? tool.name,
          input,
          idempotent: retriable(tool),
          approval: approvalFor(server.approval, tool),
        },
        connection,
        server: server.name,
        remoteName: tool.name,
        maxResultChars: server.maxResultChars,
      });
    }
    log.info('MCP tools listed', {
      listed: listed.length,
      offered: offered.map((entry) => entry.remoteName),
      approval: offered.filter((entry) => entry.tool.approval !== null).map((e) => e.remoteName),
    });
    return offered;
  }

  tools(): readonly ExternalTool[] {
    return [...this.#tools.values()].map((entry) => entry.tool);
  }

  async run(name: string, args: unknown): Promise<ToolRunResult> {
    const entry = this.#tools.get(name);
    if (entry === undefined) throw new Error(`no MCP tool ${name}`);
    const call = (client: Client) =>
      client.callTool({ name: entry.remoteName, arguments: args as Record<string, unknown> });
    let result: Awaited<ReturnType<Client['callTool']>>;
    try {
      try {
        result = await call(entry.connection.client);
      } catch (error) {
        if (!sessionEnded(error) || entry.connection.server.reopen === undefined) throw error;
        // The server ended the session without running the call: once more, in a new one.
        result = await call(await this.#reconnect(entry.connection));
      }
    } catch (error) {
      if (refusedByServer(error)) {
        return { output: `${entry.server} refused the call: ${error.message}`, isError: true };
      }
      throw unreachable(entry.server, error);
    }
    const content = Array.isArray(result.content) ? (result.content as McpContent[]) : [];
    const text = toolResultText({ content, structuredContent: result.structuredContent });
    return { ...cutResult(text, entry.maxResultChars), isError: result.isError === true };
  }

  /** A new session with the server (one at a time per server); the old client is closed. */
  #reconnect(connection: Connection): Promise<Client> {
    const reopen = connection.server.reopen;
    if (reopen === undefined) return Promise.resolve(connection.client);
    connection.reconnecting ??= (async () => {
      const old = connection.client;
      const client = newClient(this.#checker);
      this.#clients.push(client);
      await client.connect(reopen());
      connection.client = client;
      this.#logger.info('MCP session renewed: the server had ended it', {
        mcpServer: connection.server.name,
      });
      await old.close().catch(() => undefined);
      return client;
    })().finally(() => {
      connection.reconnecting = undefined;
    });
    return connection.reconnecting;
  }

  /** Ends every connection (stdio servers' processes included). */
  async close(): Promise<void> {
    await Promise.allSettled(this.#clients.map((client) => client.close()));
  }
}
