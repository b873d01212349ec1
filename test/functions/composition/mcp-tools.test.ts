import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpToolRunner } from '../../../functions/adapters/mcp/mcp-tool-runner.js';
import { createLogger } from '../../../functions/adapters/system/logger.js';
import { connectMcpTools } from '../../../functions/composition/mcp-tools.js';
import {
  configuredSecrets,
  readRuntimeConfig,
} from '../../../functions/composition/runtime-config.js';
import { type NotesCall, notesServer } from '../../support/mcp-notes-server.js';

const TOKEN = 'mcp-secret-token-1234567890';

/** The notes server on loopback over Streamable HTTP, behind a bearer token. */
const startNotesOverHttp = async () => {
  const calls: NotesCall[] = [];
  const authorizations: Array<string | undefined> = [];
  const server = notesServer((call) => calls.push(call));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await server.connect(transport);
  const http: Server = createServer((request, response) => {
    authorizations.push(request.headers.authorization);
    if (request.headers.authorization !== `Bearer ${TOKEN}`) {
      response.writeHead(401).end();
      return;
    }
    void transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    authorizations,
    close: async () => {
      await server.close();
      await new Promise((resolve) => http.close(resolve));
    },
  };
};

const BASE = {
  TINY_HARNESS_TABLE: 't',
  TINY_HARNESS_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:t',
};

describe('MCP servers over Streamable HTTP, from the configuration', () => {
  let notes: Awaited<ReturnType<typeof startNotesOverHttp>>;
  beforeAll(async () => {
    notes = await startNotesOverHttp();
  });
  afterAll(async () => {
    await notes.close();
  });

  const connectWith = async (token: string) => {
    const config = readRuntimeConfig({
      ...BASE,
      NOTES_TOKEN: token,
      TINY_HARNESS_MCP_SERVERS: JSON.stringify({
        notes: {
          url: notes.url,
          auth: { type: 'bearer', token: { env: 'NOTES_TOKEN' } },
          tools: ['get_note', 'put_note'],
        },
      }),
    });
    const lines: string[] = [];
    const logger = createLogger({
      level: 'debug',
      write: (line) => lines.push(line),
      secrets: configuredSecrets(config),
    });
    return { lines, runner: connectMcpTools(config, logger) };
  };

  it('lists and calls the tools with the bearer token, which no log line carries', async () => {
    const { lines, runner: connecting } = await connectWith(TOKEN);
    const runner = (await connecting) as McpToolRunner;
    try {
      expect(runner.tools().map((tool) => tool.name)).toEqual([
        'notes__get_note',
        'notes__put_note',
      ]);
      expect(await runner.run('notes__put_note', { id: 'a', text: 'milk' })).toEqual({
        output: 'saved a',
        isError: false,
      });
    } finally {
      await runner.close();
    }
    expect(notes.calls).toEqual([{ tool: 'put_note', args: { id: 'a', text: 'milk' } }]);
    expect(notes.authorizations.every((value) => value === `Bearer ${TOKEN}`)).toBe(true);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toContain(TOKEN);
  });

  it('fails the start naming the server when it refuses the token', async () => {
    const { runner } = await connectWith('wrong-token');
    await expect(runner).rejects.toThrow(/^MCP server notes: /);
  });
});
