import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { ToolRunner } from '../../../functions/core/ports/tool-runner.js';
import { TaskExtensionSchema } from '../../../functions/core/task/extension.schema.js';
import {
  type StaticTool,
  StaticToolRunner,
} from '../../../functions/core/testing/static-tool-runner.js';
import { INTRINSICS } from '../../../functions/core/tools/intrinsics/index.js';
import {
  ToolRegistry,
  toolParameters,
  zodArguments,
} from '../../../functions/core/tools/registry.js';
import type { IntrinsicContext } from '../../../functions/core/tools/tool.js';
import { invokeTool } from '../../../functions/core/unit-of-work/perform.js';

const context: IntrinsicContext = {
  extension: TaskExtensionSchema.parse({ name: 'n', goal: 'g' }),
  actor: null,
  agentIds: [],
  askedThisTurn: false,
  agentId: 'tiny-harness',
  artifactIds: [],
  now: '2026-01-01T00:00:00.000Z',
};

const SearchInput = z.strictObject({
  query: z.string().min(1),
  limit: z.int().min(1).max(50).default(10),
});

const search = (run: StaticTool['run'] = () => ({ output: 'three results', isError: false })) =>
  ({
    name: 'search',
    description: 'Search the web.',
    input: zodArguments(SearchInput),
    idempotent: true,
    approval: null,
    run,
  }) satisfies StaticTool;

const sendEmail = (run: StaticTool['run']): StaticTool => ({
  name: 'send_email',
  description: 'Send an email.',
  input: zodArguments(z.strictObject({ to: z.string(), body: z.string() })),
  idempotent: false,
  approval: null,
  run,
});

const setup = (tools: StaticTool[]) => {
  const runner = new StaticToolRunner(tools);
  const registry = new ToolRegistry(runner.tools());
  const invoke = (name: string, args: string, callId = 'call-1') =>
    invokeTool(
      { id: callId, name, arguments: args },
      { registry, runner, context, taskId: 'task-1' }
    );
  return { runner, registry, invoke };
};

describe('invokeTool with external tools', () => {
  it('hands validated arguments, defaults filled in, to the runner', async () => {
    const { runner, invoke } = setup([search()]);
    expect(await invoke('search', '{"query":"a2a"}')).toEqual({
      kind: 'output',
      text: 'three results',
      isError: false,
    });
    expect(runner.calls).toEqual([{ name: 'search', args: { query: 'a2a', limit: 10 } }]);
  });

  it('passes the task id and call id to the runner', async () => {
    const seen: unknown[] = [];
    const runner: ToolRunner = {
      tools: () => [search()],
      run: async (_name, _args, callContext) => {
        seen.push(callContext);
        return { output: 'ok', isError: false };
      },
    };
    const registry = new ToolRegistry(runner.tools());
    await invokeTool(
      { id: 'call-7', name: 'search', arguments: '{"query":"x"}' },
      { registry, runner, context, taskId: 'task-9' }
    );
    expect(seen).toEqual([{ taskId: 'task-9', callId: 'call-7' }]);
  });

  it("relays the tool's own error result", async () => {
    const { invoke } = setup([search(() => ({ output: 'rate limited', isError: true }))]);
    expect(await invoke('search', '{"query":"a2a"}')).toEqual({
      kind: 'output',
      text: 'rate limited',
      isError: true,
    });
  });

  it.each([
    ['a missing field', '{}'],
    ['an unknown key', '{"query":"a2a","safe":true}'],
    ['a value out of range', '{"query":"a2a","limit":500}'],
    ['text that is not JSON', 'query=a2a'],
  ])('never runs the tool with %s', async (_label, args) => {
    const { runner, invoke } = setup([search()]);
    expect(await invoke('search', args)).toMatchObject({
      kind: 'error',
      code: 'tool.invalid_arguments',
    });
    expect(runner.calls).toEqual([]);
  });

  it('does not retry a non-idempotent tool that throws: it becomes tool.not_retried', async () => {
    const { invoke } = setup([
      sendEmail(() => {
        throw new Error('connection reset');
      }),
    ]);
    const invocation = await invoke('send_email', '{"to":"a@example.com","body":"hi"}');
    expect(invocation).toMatchObject({ kind: 'error', code: 'tool.not_retried' });
    expect(invocation.text).toBe(
      '[tool.not_retried] send_email failed and is not retried: connection reset'
    );
  });

  it('rethrows when an idempotent tool throws, so the retry policy can run it again', async () => {
    const { invoke } = setup([
      search(() => {
        throw new Error('timeout');
      }),
    ]);
    await expect(invoke('search', '{"query":"a2a"}')).rejects.toThrow('timeout');
  });

  it('answers tool.not_found for an external tool when no runner is wired', async () => {
    const registry = new ToolRegistry([search()]);
    expect(
      await invokeTool(
        { id: 'call-1', name: 'search', arguments: '{"query":"x"}' },
        { registry, runner: undefined, context, taskId: 'task-1' }
      )
    ).toMatchObject({ kind: 'error', code: 'tool.not_found' });
  });

  it('never hands an intrinsic to the runner', async () => {
    const { runner, invoke } = setup([search()]);
    const invocation = await invoke('create_plan', '{"steps":[{"name":"A","description":"a"}]}');
    expect(invocation.kind).toBe('command');
    expect(runner.calls).toEqual([]);
  });
});

describe('ToolRegistry', () => {
  it('lists the intrinsics and the external tools sorted by name', () => {
    const tools = [search(), { ...search(), name: 'aardvark' }, { ...search(), name: 'zebra' }];
    const names = new ToolRegistry(tools).definitions().map((definition) => definition.name);
    expect(names).toEqual(
      [...INTRINSICS.map((tool) => tool.name), 'aardvark', 'search', 'zebra'].sort()
    );
    expect(names[0]).toBe('aardvark');
    expect(names.at(-1)).toBe('zebra');
  });

  it('describes parameters as JSON Schema objects without a $schema', () => {
    for (const definition of new ToolRegistry([search()]).definitions()) {
      expect(definition.parameters).toMatchObject({ type: 'object', additionalProperties: false });
      expect(definition.parameters).not.toHaveProperty('$schema');
      expect(definition.description).toMatch(/\S/);
    }
    // Input side: a defaulted field is optional for the model, and its default is shown.
    expect(toolParameters(SearchInput)).toMatchObject({
      required: ['query'],
      properties: { limit: { type: 'integer', default: 10 } },
    });
  });

  it('refuses a tool name registered twice', () => {
    expect(() => new ToolRegistry([search(), search()])).toThrow(/search is registered twice/);
    expect(() => new ToolRegistry([{ ...search(), name: 'create_plan' }])).toThrow(
      /create_plan is registered twice/
    );
  });

  it('tells intrinsics from external tools', () => {
    const registry = new ToolRegistry([search()]);
    expect(registry.get('search')?.execution).toBe('external');
    expect(registry.get('create_plan')?.execution).toBe('intrinsic');
    expect(registry.get('nothing')).toBeUndefined();
  });
});
