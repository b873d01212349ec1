import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpToolRunner } from '../../../functions/adapters/mcp/mcp-tool-runner.js';
import { createLogger } from '../../../functions/adapters/system/logger.js';
import { connectMcpTools } from '../../../functions/composition/mcp-tools.js';
import {
  configuredSecrets,
  readRuntimeConfig,
} from '../../../functions/composition/runtime-config.js';
import { ToolUnreachableError } from '../../../functions/core/errors.js';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  startNotesOverHttp,
  TOKEN,
} from '../../support/mcp-notes-http.js';

const BASE = {
  TINY_HARNESS_TABLE: 't',
  TINY_HARNESS_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:t',
};

/** The notes server at `url` with `auth`, from the configuration; the log lines it wrote. */
const connectNotes = (url: string, auth: unknown, env: Record<string, string>) => {
  const config = readRuntimeConfig({
    ...BASE,
    ...env,
    TINY_HARNESS_MCP_SERVERS: JSON.stringify({
      notes: { url, auth, tools: ['get_note', 'put_note'] },
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

describe('MCP servers over Streamable HTTP, from the configuration', () => {
  let notes: Awaited<ReturnType<typeof startNotesOverHttp>>;
  beforeAll(async () => {
    notes = await startNotesOverHttp();
  });
  afterAll(async () => {
    await notes.close();
  });

  const connectWith = (token: string) =>
    connectNotes(
      notes.url,
      { type: 'bearer', token: { env: 'NOTES_SECRET' } },
      { NOTES_SECRET: token }
    );

  it('lists and calls the tools with the bearer token, which no log line carries', async () => {
    const { lines, runner: connecting } = connectWith(TOKEN);
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

  it('starts a new session when the server has ended its own (404), and the call runs once', async () => {
    const { lines, runner: connecting } = connectWith(TOKEN);
    const runner = (await connecting) as McpToolRunner;
    try {
      const before = notes.initializations();
      const calls = notes.calls.length;
      await notes.endSessions();
      // append_note may run only once: a 404 says the ended session never ran it.
      expect(await runner.run('notes__put_note', { id: 'b', text: 'eggs' })).toEqual({
        output: 'saved b',
        isError: false,
      });
      expect(notes.initializations()).toBe(before + 1);
      expect(notes.calls.slice(calls)).toEqual([
        { tool: 'put_note', args: { id: 'b', text: 'eggs' } },
      ]);
      expect(lines.join('\n')).toContain('MCP session renewed');
    } finally {
      await runner.close();
    }
  });

  it('fails the start naming the server when it refuses the token', async () => {
    const { runner } = connectWith('wrong-token');
    await expect(runner).rejects.toThrow(ToolUnreachableError);
    await expect(runner).rejects.toThrow(/^MCP server notes: /);
  });
});

describe('an MCP server behind OAuth 2.0 client credentials', () => {
  let notes: Awaited<ReturnType<typeof startNotesOverHttp>>;
  beforeAll(async () => {
    notes = await startNotesOverHttp();
  });
  afterAll(async () => {
    await notes.close();
  });

  const connectWith = (secret: string) =>
    connectNotes(
      notes.url,
      {
        type: 'oauth2',
        tokenUrl: notes.tokenUrl,
        clientId: CLIENT_ID,
        clientSecret: { env: 'NOTES_SECRET' },
        scope: 'notes/read notes/write',
      },
      { NOTES_SECRET: secret }
    );

  it('gets an access token with the client secret and scope, calls with it, and renews it when refused; no log line carries either', async () => {
    const { lines, runner: connecting } = connectWith(CLIENT_SECRET);
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
      // One token for the connection, the listing and the call.
      expect(notes.tokenRequests).toHaveLength(1);
      const form = new URLSearchParams(notes.tokenRequests[0]?.body);
      expect(Object.fromEntries(form)).toEqual({
        grant_type: 'client_credentials',
        scope: 'notes/read notes/write',
      });
      // The server stops taking it: the next request gets a fresh one and goes through, once.
      notes.revokeAll();
      expect(await runner.run('notes__get_note', { id: 'a' })).toMatchObject({
        output: expect.stringMatching(/^milk/),
        isError: false,
      });
      expect(notes.tokenRequests).toHaveLength(2);
    } finally {
      await runner.close();
    }
    expect(notes.calls).toEqual([
      { tool: 'put_note', args: { id: 'a', text: 'milk' } },
      { tool: 'get_note', args: { id: 'a' } },
    ]);
    const sent = notes.authorizations.filter((value) => value !== undefined) as string[];
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((value) => /^Bearer access-/.test(value))).toBe(true);
    const log = lines.join('\n');
    expect(lines.length).toBeGreaterThan(0);
    expect(log).not.toContain(CLIENT_SECRET);
    for (const value of new Set(sent)) expect(log).not.toContain(value.replace(/^Bearer /, ''));
  });

  it('fails the start naming the server when its token endpoint refuses the client', async () => {
    const before = notes.calls.length;
    const { runner } = connectWith('wrong-secret');
    await expect(runner).rejects.toThrow(
      /^MCP server notes: .*token endpoint refused the client credentials \(HTTP 401\)/
    );
    expect(notes.calls).toHaveLength(before);
  });
});

describe('a stdio server where no process may be started', () => {
  it('is a configuration error naming it (the Lambda composition gives no stdio transport)', async () => {
    const config = readRuntimeConfig({
      ...BASE,
      TINY_HARNESS_MCP_SERVERS: JSON.stringify({
        notes: { command: 'node', args: ['notes.js'], tools: ['get_note'] },
      }),
    });
    await expect(
      connectMcpTools(config, createLogger({ level: 'error', write: () => undefined }))
    ).rejects.toThrow(
      /TINY_HARNESS_MCP_SERVERS: notes is a stdio server \("command"\), which only npm start runs/
    );
  });
});
