import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AnthropicMessagesModel } from '../../../functions/adapters/model/anthropic-messages-model.js';
import {
  CONTINUED,
  MISSING_RESULT,
} from '../../../functions/adapters/model/conversation-mapping.js';
import type { ProviderModelOptions } from '../../../functions/adapters/model/provider-options.js';
import { THINKING_BUDGET_TOKENS } from '../../../functions/adapters/model/reasoning.js';
import { encodeToolName } from '../../../functions/adapters/model/tool-names.js';
import { ModelFailedError, ModelRetryableError } from '../../../functions/core/errors.js';
import type { ModelInputItem, ModelRequest } from '../../../functions/core/ports/model.js';
import { REASONING_EFFORTS } from '../../../functions/core/task/extension.schema.js';
import {
  anthropicError,
  anthropicMessage,
  FakeAnthropicServer,
} from '../../support/fake-anthropic-server.js';

const API_KEY = 'sk-ant-test-0123456789';
const SEARCH = 'web.search';
const SEARCH_WIRE = encodeToolName(SEARCH);

const tools = [
  {
    name: 'create_plan',
    description: 'Create the plan.',
    parameters: { type: 'object', properties: { steps: { type: 'array' } } },
  },
  {
    name: SEARCH,
    description: 'Search the web.',
    parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  },
];

/** A first turn, then a tool round in flight: two calls, a message that arrived meanwhile, results. */
const toolRound: ModelInputItem[] = [
  { type: 'message', role: 'user', text: '<task>\nname: demo\n</task>' },
  { type: 'message', role: 'user', text: '[alice] look up x' },
  { type: 'message', role: 'assistant', text: 'Looking.' },
  { type: 'tool_call', callId: 'toolu_1', name: SEARCH, arguments: '{"q":"x"}' },
  { type: 'tool_call', callId: 'toolu_2', name: 'create_plan', arguments: 'not json' },
  { type: 'message', role: 'user', text: '[bob] and y' },
  { type: 'tool_result', callId: 'toolu_1', output: 'found x' },
  { type: 'tool_result', callId: 'toolu_2', output: 'tool.invalid_arguments' },
];

const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  instructions: '<system_prompt>\nYou are a harness agent.\n</system_prompt>',
  input: [{ type: 'message', role: 'user', text: '[alice] hello' }],
  tools,
  cacheKey: 'task-cache-key-123',
  maxOutputTokens: 2_000,
  ...overrides,
});

let server: FakeAnthropicServer;
/** A second server the environment points at: it must never be called. */
let decoy: FakeAnthropicServer;

const model = (overrides: Partial<ProviderModelOptions> = {}) =>
  new AnthropicMessagesModel({
    model: 'claude-deployment',
    baseUrl: server.url,
    apiKey: API_KEY,
    timeoutMs: 5_000,
    supportsReasoning: true,
    ...overrides,
  });

const failure = async (promise: Promise<unknown>): Promise<Error> => {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
};

beforeAll(async () => {
  server = await FakeAnthropicServer.start();
  decoy = await FakeAnthropicServer.start();
});
afterAll(async () => {
  await server.close();
  await decoy.close();
});
beforeEach(() => {
  server.requests.length = 0;
  vi.stubEnv('ANTHROPIC_BASE_URL', decoy.url);
  vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-from-env');
  vi.stubEnv('ANTHROPIC_AUTH_TOKEN', 'token-from-env');
});
afterEach(() => {
  vi.unstubAllEnvs();
  expect(decoy.requests).toEqual([]);
});

describe('AnthropicMessagesModel request', () => {
  it('caches the static prefix: system block and last tool definition carry cache_control', async () => {
    server.reply(anthropicMessage({ text: 'hi' }));
    await model().invoke(request());
    const [sent] = server.requests;
    expect(sent?.method).toBe('POST');
    expect(sent?.path).toBe('/v1/messages');
    expect(sent?.body.model).toBe('claude-deployment');
    expect(sent?.body.max_tokens).toBe(2_000);
    expect(sent?.body.system).toEqual([
      {
        type: 'text',
        text: '<system_prompt>\nYou are a harness agent.\n</system_prompt>',
        cache_control: { type: 'ephemeral' },
      },
    ]);
    expect(sent?.body.tools).toEqual([
      {
        name: 'create_plan',
        description: 'Create the plan.',
        input_schema: tools[0]?.parameters,
      },
      {
        name: SEARCH_WIRE,
        description: 'Search the web.',
        input_schema: tools[1]?.parameters,
        cache_control: { type: 'ephemeral' },
      },
    ]);
    expect(SEARCH_WIRE).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });

  it('sends no cache key (Anthropic caching is prefix-based) and no metadata', async () => {
    server.reply(anthropicMessage({ text: 'hi' }));
    await model().invoke(request());
    const body = server.requests[0]?.body;
    expect(body.metadata).toBeUndefined();
    expect(JSON.stringify(body)).not.toContain('task-cache-key-123');
    expect(body.thinking).toBeUndefined();
  });

  it('merges same-role items, pairs tool_use with tool_result and puts results first', async () => {
    server.reply(anthropicMessage({ text: 'done' }));
    await model().invoke(request({ input: toolRound }));
    expect(server.requests[0]?.body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: '<task>\nname: demo\n</task>' },
          { type: 'text', text: '[alice] look up x' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'toolu_1', name: SEARCH_WIRE, input: { q: 'x' } },
          // Arguments that are not a JSON object go back as {} (the result says why).
          { type: 'tool_use', id: 'toolu_2', name: 'create_plan', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'found x' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'tool.invalid_arguments' },
          { type: 'text', text: '[bob] and y' },
        ],
      },
    ]);
  });

  it('repairs what the API would reject: orphan results, unanswered calls, empty text, leading assistant', async () => {
    server.reply(anthropicMessage({ text: 'ok' }));
    await model().invoke(
      request({
        input: [
          { type: 'message', role: 'assistant', text: 'earlier answer' },
          { type: 'tool_result', callId: 'gone', output: 'compacted call' },
          { type: 'message', role: 'user', text: '   ' },
          { type: 'tool_call', callId: 'c1', name: SEARCH, arguments: '{}' },
          { type: 'message', role: 'user', text: 'next' },
        ],
      })
    );
    expect(server.requests[0]?.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: CONTINUED }] },
      { role: 'assistant', content: [{ type: 'text', text: 'earlier answer' }] },
      {
        role: 'user',
        content: [{ type: 'text', text: 'Result of tool call gone:\ncompacted call' }],
      },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'c1', name: SEARCH_WIRE, input: {} }],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: MISSING_RESULT },
          { type: 'text', text: 'next' },
        ],
      },
    ]);
  });

  it('fails, without a call, when two tool names encode alike', async () => {
    const clash = [
      { name: 'a.b', description: 'x', parameters: { type: 'object' } },
      { name: encodeToolName('a.b'), description: 'y', parameters: { type: 'object' } },
    ];
    const error = await failure(model().invoke(request({ tools: clash })));
    expect(error).toBeInstanceOf(ModelFailedError);
    expect(error.message).toMatch(/^anthropic: tool names .* encode to the same provider name/);
    expect(server.requests).toEqual([]);
  });

  it("uses the task's model over the deployment's", async () => {
    server.reply(anthropicMessage({ text: 'hi', model: 'claude-task-model' }));
    const response = await model().invoke(request({ model: 'claude-task-model' }));
    expect(server.requests[0]?.body.model).toBe('claude-task-model');
    expect(response.model).toBe('claude-task-model');
  });
});

describe('AnthropicMessagesModel reasoning', () => {
  it.each(REASONING_EFFORTS)('maps %s to a thinking budget below max_tokens', async (effort) => {
    server.reply(anthropicMessage({ thinking: 'hmm', text: 'answer' }));
    const response = await model().invoke(request({ reasoningEffort: effort }));
    const body = server.requests[0]?.body;
    const budget = THINKING_BUDGET_TOKENS[effort];
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: budget });
    expect(body.max_tokens).toBe(budget + 2_000);
    expect(response.text).toBe('answer');
  });

  it('sends no thinking when continuing a tool-use loop (its thinking blocks are not carried)', async () => {
    server.reply(anthropicMessage({ text: 'done' }), anthropicMessage({ text: 'again' }));
    await model().invoke(request({ input: toolRound, reasoningEffort: 'high' }));
    expect(server.requests[0]?.body.thinking).toBeUndefined();
    expect(server.requests[0]?.body.max_tokens).toBe(2_000);
    // Once the loop ended with an answer, the next user turn thinks again.
    await model().invoke(
      request({
        input: [
          ...toolRound,
          { type: 'message', role: 'assistant', text: 'done' },
          { type: 'message', role: 'user', text: '[alice] next' },
        ],
        reasoningEffort: 'high',
      })
    );
    expect(server.requests[1]?.body.thinking?.budget_tokens).toBe(THINKING_BUDGET_TOKENS.high);
  });

  it('refuses an effort for a model without reasoning, before any HTTP call', async () => {
    const error = await failure(
      model({ supportsReasoning: false }).invoke(request({ reasoningEffort: 'low' }))
    );
    expect(error).toBeInstanceOf(ModelFailedError);
    expect(error.message).toContain('claude-deployment');
    expect(error.message).toContain('reasoning_effort=low');
    expect(server.requests).toEqual([]);
  });
});

describe('AnthropicMessagesModel response', () => {
  it('returns text, decoded tool calls and cached-token usage; thinking is not text', async () => {
    server.reply({
      json: {
        ...(anthropicMessage({}) as { json: object }).json,
        content: [
          { type: 'thinking', thinking: 'private reasoning', signature: 'sig' },
          { type: 'redacted_thinking', data: 'opaque' },
          { type: 'text', text: 'Searching ' },
          { type: 'text', text: 'now.' },
          { type: 'tool_use', id: 'toolu_9', name: SEARCH_WIRE, input: { q: 'x y' } },
          { type: 'tool_use', id: 'toolu_10', name: 'made_up', input: {} },
        ],
        stop_reason: 'tool_use',
        usage: {
          input_tokens: 20,
          output_tokens: 7,
          cache_read_input_tokens: 1_000,
          cache_creation_input_tokens: 300,
        },
      },
    });
    const response = await model().invoke(request());
    expect(response).toEqual({
      text: 'Searching now.',
      toolCalls: [
        { id: 'toolu_9', name: SEARCH, arguments: '{"q":"x y"}' },
        { id: 'toolu_10', name: 'made_up', arguments: '{}' },
      ],
      usage: { inputTokens: 1_320, cachedInputTokens: 1_000, outputTokens: 7 },
      model: 'claude-sonnet-4-5',
      finishReason: 'tool_calls',
    });
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['refusal', 'refusal'],
  ] as const)('maps stop_reason %s to %s', async (stopReason, finish) => {
    server.reply(anthropicMessage({ text: 'x', stopReason }));
    expect((await model().invoke(request())).finishReason).toBe(finish);
  });
});

describe('AnthropicMessagesModel errors', () => {
  it.each([
    [429, 'rate_limit_error'],
    [500, 'api_error'],
    [503, 'api_error'],
    [529, 'overloaded_error'],
  ])('%i %s is retryable', async (status, type) => {
    server.reply(anthropicError(status, type, 'try later'));
    const error = await failure(model().invoke(request()));
    expect(error).toBeInstanceOf(ModelRetryableError);
    expect(error.message).toBe(`anthropic ${status} ${type}: try later`);
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    [400, 'invalid_request_error', 'max_tokens: 99999 > 64000'],
    [401, 'authentication_error', 'invalid x-api-key'],
    [403, 'permission_error', 'not allowed'],
    [404, 'not_found_error', 'model: claude-nope'],
  ])('%i %s fails with a readable reason and no credential', async (status, type, message) => {
    server.reply(anthropicError(status, type, message));
    const error = await failure(model().invoke(request()));
    expect(error).toBeInstanceOf(ModelFailedError);
    expect(error.message).toBe(`anthropic ${status} ${type}: ${message}`);
    expect(error.message).not.toContain(API_KEY);
    expect(server.requests).toHaveLength(1);
  });

  it('a timeout is retryable', async () => {
    server.reply({ ...anthropicMessage({ text: 'late' }), delayMs: 2_000 });
    const error = await failure(model({ timeoutMs: 200 }).invoke(request()));
    expect(error).toBeInstanceOf(ModelRetryableError);
    expect(error.message).toBe('anthropic: timed out after 200 ms');
    expect(server.requests).toHaveLength(1);
  });

  it('a refused connection is retryable', async () => {
    const closed = await FakeAnthropicServer.start();
    const url = closed.url;
    await closed.close();
    const error = await failure(model({ baseUrl: url }).invoke(request()));
    expect(error).toBeInstanceOf(ModelRetryableError);
    expect(error.message).toMatch(/^anthropic: connection failed: .*ECONNREFUSED/);
  });

  it('a 2xx that is not JSON fails with status 200', async () => {
    server.reply({ raw: '{"id": "msg_', contentType: 'application/json' });
    const error = await failure(model().invoke(request()));
    expect(error).toBeInstanceOf(ModelFailedError);
    expect(error.message).toBe('anthropic 200: response body is not valid JSON');
  });

  it.each([
    ['not a message', { raw: '<html>gateway</html>', contentType: 'text/html' }],
    ['no content', { json: { type: 'message', usage: { input_tokens: 1 } } }],
    ['no usage', { json: { type: 'message', content: [] } }],
  ])('a 2xx that is %s fails with status 200', async (_, reply) => {
    server.reply(reply);
    const error = await failure(model().invoke(request()));
    expect(error).toBeInstanceOf(ModelFailedError);
    expect(error.message).toMatch(/^anthropic 200: malformed response/);
  });
});

describe('AnthropicMessagesModel host and credential', () => {
  it('calls only the configured host with only the configured key', async () => {
    server.reply(anthropicMessage({ text: 'hi' }));
    await model().invoke(request());
    const headers = server.requests[0]?.headers ?? {};
    expect(`${headers['x-api-key'] ?? ''} ${headers.authorization ?? ''}`).toContain(API_KEY);
    expect(JSON.stringify(headers)).not.toContain('from-env');
    // afterEach: the decoy that ANTHROPIC_BASE_URL points at saw nothing.
  });

  it('keyless with a base URL sends no credential, not even one from the environment', async () => {
    server.reply(anthropicMessage({ text: 'hi' }));
    await model({ apiKey: undefined }).invoke(request());
    const headers = server.requests[0]?.headers ?? {};
    expect(headers['x-api-key']).toBeUndefined();
    expect(headers.authorization).toBeUndefined();
  });

  it('without a key or a base URL it fails before any call', async () => {
    const error = await failure(model({ apiKey: undefined, baseUrl: undefined }).invoke(request()));
    expect(error).toBeInstanceOf(ModelFailedError);
    expect(error.message).toContain('ANTHROPIC_API_KEY');
  });
});
