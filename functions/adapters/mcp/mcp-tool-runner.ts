import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ExternalTool, ToolRunner, ToolRunResult } from '../../core/ports/tool-runner.js';
import type { Logger } from '../system/logger.js';
import { approvalFor, type McpApprovalPolicy } from './approval-policy.js';
import {
  type JsonSchemaValidator,
  jsonSchemaArguments,
  jsonSchemaValidator,
} from './json-schema-arguments.js';
import { type McpContent, toolResultText } from './tool-result-text.js';

/** One configured server, its transport not yet connected. */
export interface McpServer {
  name: string;
  transport: Transport;
  /** The server's tools the agent may call, by the server's own names. */
  allow: readonly string[];
  maxResultChars: number;
  /** Which tools need a participant's approval before a call runs. */
  approval: McpApprovalPolicy;
}

/** What the runner keeps of an offered tool: where it lives and how it is shown. */
interface OfferedTool {
  tool: ExternalTool;
  client: Client;
  server: string;
  /** The server's own name for it. */
  remoteName: string;
  maxResultChars: number;
}

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

  private constructor(tools: Map<string, OfferedTool>, clients: Client[]) {
    this.#tools = tools;
    this.#clients = clients;
  }

  static async connect(servers: readonly McpServer[], logger: Logger): Promise<McpToolRunner> {
    const validator = jsonSchemaValidator();
    const tools = new Map<string, OfferedTool>();
    const clients: Client[] = [];
    try {
      for (const server of servers) {
        const client = new Client({ name: 'tiny-harness', version: '1.0.0' });
        clients.push(client);
        try {
          await client.connect(server.transport);
          for (const offered of await McpToolRunner.#offered(server, client, validator, logger)) {
            tools.set(offered.tool.name, offered);
          }
        } catch (error) {
          throw new Error(`MCP server ${server.name}: ${(error as Error).message}`, {
            cause: error,
          });
        }
      }
    } catch (error) {
      await Promise.allSettled(clients.map((client) => client.close()));
      throw error;
    }
    return new McpToolRunner(tools, clients);
  }

  static async #offered(
    server: McpServer,
    client: Client,
    validator: JsonSchemaValidator,
    logger: Logger
  ): Promise<OfferedTool[]> {
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
        input = jsonSchemaArguments(validator, tool.inputSchema);
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
        client,
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
    let result: Awaited<ReturnType<Client['callTool']>>;
    try {
      result = await entry.client.callTool({
        name: entry.remoteName,
        arguments: args as Record<string, unknown>,
      });
    } catch (error) {
      if (!refusedByServer(error)) throw error;
      return { output: `${entry.server} refused the call: ${error.message}`, isError: true };
    }
    const content = Array.isArray(result.content) ? (result.content as McpContent[]) : [];
    return {
      output: toolResultText(
        { content, structuredContent: result.structuredContent },
        entry.maxResultChars
      ),
      isError: result.isError === true,
    };
  }

  /** Ends every connection (stdio servers' processes included). */
  async close(): Promise<void> {
    await Promise.allSettled(this.#clients.map((client) => client.close()));
  }
}
