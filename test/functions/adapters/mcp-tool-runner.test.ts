import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer as SdkServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  type McpApprovalPolicy,
  mayDestroy,
} from '../../../functions/adapters/mcp/approval-policy.js';
import { McpToolRunner } from '../../../functions/adapters/mcp/mcp-tool-runner.js';
import { encodeToolName } from '../../../functions/adapters/model/tool-names.js';
import { createLogger } from '../../../functions/adapters/system/logger.js';
import { DEFAULT_APPROVAL } from '../../../functions/composition/mcp-servers-config.js';
import { startTask } from '../../../functions/core/intake/start-task.js';
import { executeTool } from '../../../functions/core/loop/execute-tool.js';
import { takeTurn } from '../../../functions/core/loop/take-turn.js';
import { TaskExtensionSchema } from '../../../functions/core/task/extension.schema.js';
import { ToolRegistry } from '../../../functions/core/tools/registry.js';
import type { IntrinsicContext } from '../../../functions/core/tools/tool.js';
import { invokeTool } from '../../../functions/core/unit-of-work/perform.js';
import { ALICE, harnessWith } from '../../support/harness.js';
import { type NotesCall, notesServer } from '../../support/mcp-notes-server.js';
import { textMessage } from '../../support/messages.js';

const context: IntrinsicContext = {
  extension: TaskExtensionSchema.parse({ name: 'n', goal: 'g' }),
  actor: null,
  agentIds: [],
  askedThisTurn: false,
  agentId: 'tiny-harness',
  artifactIds: [],
  now: '2026-01-01T00:00:00.000Z',
};

const ALL = ['get_note', 'put_note', 'append_note', 'delete_note', 'dump'];

let open: McpToolRunner[] = [];
afterEach(async () => {
  await Promise.all(open.map((runner) => runner.close()));
  open = [];
});

/** A runner over an SDK server in this process (in-memory transport), and the log it wrote. */
type ConnectOptions = { allow?: string[]; maxResultChars?: number; approval?: McpApprovalPolicy };

const connect = async (server: SdkServer, options: ConnectOptions = {}) => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    level: 'debug',
    write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>),
  });
  const runner = await McpToolRunner.connect(
    [
      {
        name: 'notes',
        transport: clientSide,
        allow: options.allow ?? ALL,
        maxResultChars: options.maxResultChars ?? 16_000,
        approval: options.approval ?? DEFAULT_APPROVAL,
      },
    ],
    logger
  );
  open.push(runner);
  const registry = new ToolRegistry(runner.tools());
  const invoke = (name: string, args: unknown, callId = 'call-1') =>
    invokeTool(
      { id: callId, name, arguments: JSON.stringify(args) },
      { registry, runner, context, taskId: 'task-1' }
    );
  return { runner, registry, invoke, lines };
};

const notes = async (options: ConnectOptions = {}) => {
  const calls: NotesCall[] = [];
  return {
    calls,
    ...(await connect(
      notesServer((call) => calls.push(call)),
      options
    )),
  };
};

describe('McpToolRunner', () => {
  it('offers the allow-listed tools, named by their server, with their input schemas', async () => {
    const { runner, registry, lines } = await notes({ allow: ['get_note', 'put_note', 'nope'] });

    expect(runner.tools().map((tool) => tool.name)).toEqual(['notes__get_note', 'notes__put_note']);
    const definition = registry.definitions().find((tool) => tool.name === 'notes__put_note');
    expect(definition).toMatchObject({
      description: 'Writes a note under its id (the same call twice leaves the same note).',
      parameters: {
        type: 'object',
        properties: { id: { type: 'string', minLength: 1 }, text: { type: 'string' } },
        required: ['id', 'text'],
      },
    });
    expect(definition?.parameters).not.toHaveProperty('$schema');
    // The names need no encoding for any provider.
    for (const tool of runner.tools()) expect(encodeToolName(tool.name)).toBe(tool.name);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        mcpServer: 'notes',
        missing: ['nope'],
      })
    );
  });

  it('retries only what the server declares read-only or idempotent', async () => {
    const { runner } = await notes();
    expect(Object.fromEntries(runner.tools().map((tool) => [tool.name, tool.idempotent]))).toEqual({
      notes__get_note: true,
      notes__put_note: true,
      notes__append_note: false,
      notes__delete_note: false,
      notes__dump: true,
    });
  });

  it('asks approval where the policy says: by default, of what the server may let destroy something', async () => {
    const approvals = async (approval?: McpApprovalPolicy) => {
      const { runner } = await notes(approval === undefined ? {} : { approval });
      return Object.fromEntries(runner.tools().map((tool) => [tool.name, tool.approval]));
    };
    const asked = { approvers: ['reporter', 'admin'], timeoutSeconds: 3600 };
    expect(await approvals()).toEqual({
      notes__get_note: null,
      notes__put_note: null,
      notes__append_note: null,
      notes__delete_note: asked,
      notes__dump: null,
    });
    const strict = { require: 'not-read-only', approvers: ['admin'], timeoutSeconds: 60 } as const;
    expect(await approvals(strict)).toMatchObject({
      notes__get_note: null,
      notes__put_note: { approvers: ['admin'], timeoutSeconds: 60 },
      notes__append_note: { approvers: ['admin'] },
      notes__delete_note: { approvers: ['admin'] },
    });
    const named = { ...strict, require: ['append_note'] };
    expect(Object.values(await approvals(named)).filter((value) => value !== null)).toHaveLength(1);
    expect(await approvals({ ...strict, require: 'never' })).toMatchObject({
      notes__delete_note: null,
    });
  });

  it('reads an unannotated tool as MCP does: it may destroy something', () => {
    expect(mayDestroy({})).toBe(true);
    expect(mayDestroy({ annotations: { readOnlyHint: true, destructiveHint: true } })).toBe(false);
    expect(mayDestroy({ annotations: { destructiveHint: false } })).toBe(false);
  });

  it('calls a tool with valid arguments and returns its text and structured content', async () => {
    const { invoke, calls } = await notes();
    expect(await invoke('notes__put_note', { id: 'a', text: 'milk' })).toEqual({
      kind: 'output',
      text: 'saved a',
      isError: false,
    });
    const read = await invoke('notes__get_note', { id: 'a' });
    expect(read).toEqual({
      kind: 'output',
      text: 'milk\n[structured content]\n{"id":"a","text":"milk"}',
      isError: false,
    });
    expect(calls.map((call) => call.tool)).toEqual(['put_note', 'get_note']);
  });

  it('refuses arguments its schema rejects before any call', async () => {
    const { invoke, calls } = await notes();
    const refused = await invoke('notes__put_note', { id: '', text: 7, extra: true });
    expect(refused).toMatchObject({ kind: 'error', code: 'tool.invalid_arguments' });
    // Every problem, each at its place in the arguments.
    expect((refused as { text: string }).text).toMatch(/\/id String is too short \(0 < 1\)/);
    expect((refused as { text: string }).text).toMatch(
      /\/text Instance type "number" is invalid\. Expected "string"/
    );
    expect(calls).toEqual([]);
  });

  it('hides a tool the allow-list does not name: calling it is tool.not_found', async () => {
    const { invoke, calls } = await notes({ allow: ['get_note'] });
    expect(await invoke('notes__delete_note', { id: 'a' })).toMatchObject({
      kind: 'error',
      code: 'tool.not_found',
    });
    expect(calls).toEqual([]);
  });

  it("returns a tool's own error as an error result", async () => {
    const { invoke } = await notes();
    expect(await invoke('notes__get_note', { id: 'missing' })).toEqual({
      kind: 'output',
      text: 'no note missing',
      isError: true,
    });
  });

  it('cuts a result to its bound, records its full size, and keeps the whole for its record', async () => {
    const { invoke } = await notes({ maxResultChars: 1_000 });
    const result = await invoke('notes__dump', { size: 50_000 });
    expect(result).toEqual({
      kind: 'output',
      text: `${'x'.repeat(1_000)}\n[cut: the first 1000 of 50000 characters of this result; the whole is in the call's record]`,
      isError: false,
      whole: 'x'.repeat(50_000),
    });
    // One that fits is not kept twice.
    expect(await invoke('notes__dump', { size: 1_000 })).not.toHaveProperty('whole');
  });

  it('a lost server fails a non-idempotent call as not retried, and rethrows an idempotent one', async () => {
    const { invoke, runner } = await notes();
    await runner.close();
    expect(await invoke('notes__append_note', { text: 'x' })).toMatchObject({
      kind: 'error',
      code: 'tool.not_retried',
    });
    await expect(invoke('notes__put_note', { id: 'a', text: 'x' })).rejects.toThrow();
  });
});

describe('an MCP tool that may run only once, in the loop', () => {
  it('is called once when its step is run again mid-call: the re-run asks its approvers, and a first run that lives on records what happened', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let sent = 0;
    const server = new McpServer({ name: 'mail', version: '1.0.0' });
    server.registerTool(
      'send',
      {
        description: 'Sends an email.',
        inputSchema: { to: z.string() },
        annotations: { readOnlyHint: false, idempotentHint: false },
      },
      async () => {
        sent += 1;
        await held;
        return { content: [{ type: 'text', text: 'sent' }] };
      }
    );
    // Unannotated, `send` may destroy something: approval is the other tests' subject, not this one's.
    const { runner } = await connect(server, {
      allow: ['send'],
      approval: { ...DEFAULT_APPROVAL, require: 'never' },
    });
    const { harness } = harnessWith(
      [{ toolCalls: [{ name: 'notes__send', arguments: { to: 'bob@example.com' } }] }],
      { runner }
    );
    const { deps } = harness;
    const { record } = await startTask(deps, { message: textMessage('mail bob'), sender: ALICE });
    const taskId = record.task.id;
    const called = await takeTurn(deps, { taskId, generation: 1, turn: 0 });
    if (called.route.next !== 'execute_tools') throw new Error('expected a call');
    const [call] = called.route.calls;

    const first = executeTool(deps, call!);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await executeTool(deps, call!);
    expect(sent).toBe(1);
    expect((await harness.task(taskId)).loop.approvals).toEqual([
      expect.objectContaining({ tool: 'notes__send', fateUnknown: true, decision: null }),
    ]);

    // The first run was only slow: its answer is what happened, and nothing waits any more.
    release();
    await first;
    expect(sent).toBe(1);
    const results = (await deps.store.readHistory(taskId)).filter(
      (entry) => entry.kind === 'tool_result'
    );
    expect(results).toEqual([
      expect.objectContaining({ name: 'notes__send', isError: false, output: 'sent' }),
    ]);
  });
});
