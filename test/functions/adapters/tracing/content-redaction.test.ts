import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  startTracing,
  type TracingSettings,
} from '../../../../functions/adapters/tracing/provider.js';
import { tracedModel } from '../../../../functions/adapters/tracing/traced-model.js';
import { tracedToolRunner } from '../../../../functions/adapters/tracing/traced-tool-runner.js';
import type { Model, ModelRequest } from '../../../../functions/core/ports/model.js';
import type { ToolRunner } from '../../../../functions/core/ports/tool-runner.js';

const CONFIGURED = 'deployment-secret-7f3a9c21';
const OPENAI_KEY = 'sk-proj-Abcdefghijklmnopqrstuvwxyz0123';
const BEARER = 'Bearer eyJhbGciOiJIUzI1NiJ9.payload.signature123';
const SECRETS = [CONFIGURED, OPENAI_KEY, 'eyJhbGciOiJIUzI1NiJ9.payload.signature123'];

const request: ModelRequest = {
  instructions: `You are the agent. Never say ${CONFIGURED}.`,
  input: [
    { type: 'message', role: 'user', text: `my key is ${OPENAI_KEY}` },
    { type: 'tool_call', callId: 'c1', name: 'fetch', arguments: `{"auth":"${BEARER}"}` },
    { type: 'tool_result', callId: 'c1', output: `echo: ${CONFIGURED}` },
  ],
  tools: [],
  cacheKey: 'task-1',
  maxOutputTokens: 1000,
  model: 'gpt-test',
  reasoningEffort: 'low',
};

const model: Model = {
  invoke: async () => ({
    text: `Done; the key was ${OPENAI_KEY} and ${CONFIGURED}.`,
    toolCalls: [{ id: 'c2', name: 'fetch', arguments: `{"auth":"${BEARER}"}` }],
    usage: { inputTokens: 120, cachedInputTokens: 100, outputTokens: 30 },
    model: 'gpt-test-2026',
    finishReason: 'tool_calls',
  }),
};

const runner: ToolRunner = {
  tools: () => [],
  run: async () => ({ output: `note: ${CONFIGURED}`, isError: false }),
};

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** The spans of one model call and one tool call, as the file exporter wrote them. */
const traceOnce = async (captureContent: boolean) => {
  dir = mkdtempSync(join(tmpdir(), 'tiny-harness-otel-'));
  const file = join(dir, 'spans.jsonl');
  const settings: TracingSettings = {
    serviceName: 'test',
    agentId: 'tiny-harness',
    headers: {},
    file,
    sampler: 'always_on',
    samplerRatio: 1,
    captureContent,
    secrets: () => [CONFIGURED],
  };
  const tracing = startTracing(settings, async () => undefined);
  await tracedModel(model, tracing, {
    provider: 'openai',
    defaultModel: undefined,
    prices: { 'gpt-test-2026': { input: 1, cachedInput: 0.1, output: 2 } },
  }).invoke(request);
  await tracedToolRunner(runner, tracing).run(
    'notes__put_note',
    { text: `store ${OPENAI_KEY}` },
    { taskId: 'task-1', callId: 'c2' }
  );
  await tracing.shutdown();
  const text = readFileSync(file, 'utf8');
  const spans = text
    .trim()
    .split('\n')
    .flatMap((line) => JSON.parse(line).resourceSpans)
    .flatMap((resource: { scopeSpans: Array<{ spans: unknown[] }> }) =>
      resource.scopeSpans.flatMap((scope) => scope.spans)
    ) as Array<{
    name: string;
    attributes: Array<{ key: string; value: Record<string, unknown> }>;
  }>;
  const attributes = (name: string) =>
    Object.fromEntries(
      (spans.find((span) => span.name === name)?.attributes ?? []).map(({ key, value }) => [
        key,
        Object.values(value)[0],
      ])
    );
  return { text, attributes };
};

describe('content capture on the spans', () => {
  it('is off by default: tokens, cost and finish reason, no prompt or completion', async () => {
    const { text, attributes } = await traceOnce(false);
    expect(attributes('chat gpt-test')).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-test',
      'gen_ai.response.model': 'gpt-test-2026',
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.cache_read.input_tokens': 100,
      'gen_ai.usage.output_tokens': 30,
      'tiny_harness.request.reasoning_effort': 'low',
    });
    // 20 fresh input tokens at 1, 100 cached at 0.1, 30 output at 2, per million.
    expect(attributes('chat gpt-test')['tiny_harness.usage.cost_usd']).toBeCloseTo(90e-6, 12);
    expect(attributes('chat gpt-test')['gen_ai.input.messages']).toBeUndefined();
    expect(attributes('tools/call notes__put_note')['gen_ai.tool.call.arguments']).toBeUndefined();
    for (const secret of SECRETS) expect(text).not.toContain(secret);
  });

  it('when on, carries prompt, completion and tool arguments through the transcript’s redaction', async () => {
    const { text, attributes } = await traceOnce(true);
    const chat = attributes('chat gpt-test');
    const input = JSON.parse(chat['gen_ai.input.messages'] as string);
    expect(input[0]).toEqual({
      role: 'user',
      parts: [{ type: 'text', content: 'my key is [redacted]' }],
    });
    expect(input[1].parts[0].arguments).toBe('{"auth":"Bearer [redacted]"}');
    expect(input[2].parts[0].response).toBe('echo: [redacted]');
    expect(chat['gen_ai.system_instructions']).toContain('Never say [redacted].');
    const output = JSON.parse(chat['gen_ai.output.messages'] as string);
    expect(output[0].parts[0].content).toBe('Done; the key was [redacted] and [redacted].');
    expect(attributes('tools/call notes__put_note')).toMatchObject({
      'gen_ai.tool.call.arguments': '{"text":"store [redacted]"}',
      'gen_ai.tool.call.result': 'note: [redacted]',
      'tiny_harness.tool.server': 'notes',
      'tiny_harness.tool.outcome': 'ok',
    });
    for (const secret of SECRETS) expect(text).not.toContain(secret);
  });
});
