import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { BedrockConverseModel } from '../../../functions/adapters/model/bedrock-converse-model.js';
import type { BedrockModelOptions } from '../../../functions/adapters/model/provider-options.js';
import { THINKING_BUDGET_TOKENS } from '../../../functions/adapters/model/reasoning.js';
import { encodeToolName } from '../../../functions/adapters/model/tool-names.js';
import { ModelFailedError, ModelRetryableError } from '../../../functions/core/errors.js';
import type { ModelInputItem, ModelRequest } from '../../../functions/core/ports/model.js';
import { REASONING_EFFORTS } from '../../../functions/core/task/extension.schema.js';
import {
  bedrockError,
  converseOutput,
  FakeBedrockServer,
} from '../../support/fake-bedrock-server.js';

const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const GPT_OSS = 'openai.gpt-oss-120b-1:0';
const ACCESS_KEY = 'AKIDTESTFAKE0000';
const SECRET_KEY = 'secret/test/0123456789abcdef';
const SEARCH = 'web.search';
const SEARCH_WIRE = encodeToolName(SEARCH);
const CACHE_POINT = { cachePoint: { type: 'default' } };

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
  { type: 'tool_call', callId: 'tooluse_1', name: SEARCH, arguments: '{"q":"x"}' },
  { type: 'tool_call', callId: 'tooluse_2', name: 'create_plan', arguments: '[1,2]' },
  { type: 'message', role: 'user', text: '[bob] and y' },
  { type: 'tool_result', callId: 'tooluse_1', output: 'found x' },
  { type: 'tool_result', callId: 'tooluse_2', output: 'tool.invalid_arguments' },
];

const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  instructions: '<system_prompt>\nYou are a harness agent.\n</system_prompt>',
  input: [{ type: 'message', role: 'user', text: '[alice] hello' }],
  tools,
  cacheKey: 'task-cache-key-123',
  maxOutputTokens: 2_000,
  ...overrides,
});

let server: FakeBedrockServer;
/** A second server the environment points at: it must never be called. */
let decoy: FakeBedrockServer;

const model = (overrides: Partial<BedrockModelOptions> = {}) =>
  new BedrockConverseModel({
    model: CLAUDE,
    region: 'us-east-1',
    endpoint: server.endpoint,
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY },
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
  server = await FakeBedrockServer.start();
  decoy = await FakeBedrockServer.start();
});
afterAll(async () => {
  await server.close();
  await decoy.close();
});
beforeEach(() => {
  server.requests.length = 0;
  vi.stubEnv('AWS_ENDPOINT_URL', decoy.endpoint);
  vi.stubEnv('AWS_ENDPOINT_URL_BEDROCK_RUNTIME', decoy.endpoint);
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDFROMENVIRONMENT');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret-from-env');
  vi.stubEnv('AWS_REGION', 'eu-west-3');
});
afterEach(() => {
  vi.unstubAllEnvs();
  expect(decoy.requests).toEqual([]);
});

describe('BedrockConverseModel request', () => {
  it('posts to /model/{modelId}/converse, SigV4-signed with the configured credentials', async () => {
    server.reply(converseOutput({ text: 'hi' }));
    await model().invoke(request());
    const [sent] = server.requests;
    expect(sent?.method).toBe('POST');
    expect(sent?.path).toBe(`/model/${encodeURIComponent(CLAUDE)}/converse`);
    expect(sent?.modelId).toBe(CLAUDE);
    expect(sent?.headers.authorization).toMatch(
      new RegExp(`^AWS4-HMAC-SHA256 Credential=${ACCESS_KEY}/\\d{8}/us-east-1/bedrock/aws4_request`)
    );
    expect(sent?.headers['x-amz-date']).toBeDefined();
    expect(JSON.stringify(sent?.headers)).not.toContain(SECRET_KEY);
  });

  it('puts cache points after the system prompt and after the tool definitions', async () => {
    server.reply(converseOutput({ text: 'hi' }));
    await model().invoke(request());
    const body = server.requests[0]?.body;
    expect(body.system).toEqual([
      { text: '<system_prompt>\nYou are a harness agent.\n</system_prompt>' },
      CACHE_POINT,
    ]);
    expect(body.toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: 'create_plan',
            description: 'Create the plan.',
            inputSchema: { json: tools[0]?.parameters },
          },
        },
        {
          toolSpec: {
            name: SEARCH_WIRE,
            description: 'Search the web.',
            inputSchema: { json: tools[1]?.parameters },
          },
        },
        CACHE_POINT,
      ],
    });
    expect(body.inferenceConfig).toEqual({ maxTokens: 2_000 });
    expect(body.additionalModelRequestFields).toBeUndefined();
    expect(JSON.stringify(body)).not.toContain('task-cache-key-123');
  });

  it.each([
    ['gpt-oss (no prompt caching)', GPT_OSS, false, false],
    ['an older Claude', 'anthropic.claude-3-haiku-20240307-v1:0', false, false],
    ['Nova (system only)', 'us.amazon.nova-pro-v1:0', true, false],
    [
      'a Claude inference-profile ARN',
      `arn:aws:bedrock:us-east-1:1:inference-profile/${CLAUDE}`,
      true,
      true,
    ],
    ['an unknown family', 'meta.llama3-70b-instruct-v1:0', false, false],
  ])('sends cache points only where the model has them: %s', async (_, id, system, toolsCached) => {
    server.reply(converseOutput({ text: 'hi' }));
    await model({ model: id }).invoke(request());
    const body = server.requests[0]?.body;
    expect(body.system.some((block: object) => 'cachePoint' in block)).toBe(system);
    expect(body.toolConfig.tools.some((block: object) => 'cachePoint' in block)).toBe(toolsCached);
  });

  it('merges same-role items, pairs toolUse with toolResult and puts results first', async () => {
    server.reply(converseOutput({ text: 'done' }));
    await model().invoke(request({ input: toolRound }));
    expect(server.requests[0]?.body.messages).toEqual([
      {
        role: 'user',
        content: [{ text: '<task>\nname: demo\n</task>' }, { text: '[alice] look up x' }],
      },
      {
        role: 'assistant',
        content: [
          { text: 'Looking.' },
          { toolUse: { toolUseId: 'tooluse_1', name: SEARCH_WIRE, input: { q: 'x' } } },
          // Arguments that are not a JSON object go back as {} (the result says why).
          { toolUse: { toolUseId: 'tooluse_2', name: 'create_plan', input: {} } },
        ],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 'tooluse_1', content: [{ text: 'found x' }] } },
          { toolResult: { toolUseId: 'tooluse_2', content: [{ text: 'tool.invalid_arguments' }] } },
          { text: '[bob] and y' },
        ],
      },
    ]);
  });

  it("uses the task's model over the deployment's", async () => {
    server.reply(converseOutput({ text: 'hi' }));
    const response = await model().invoke(request({ model: GPT_OSS }));
    expect(server.requests[0]?.modelId).toBe(GPT_OSS);
    expect(response.model).toBe(GPT_OSS);
  });
});

describe('BedrockConverseModel reasoning', () => {
  it.each(REASONING_EFFORTS)(
    'maps %s to a Claude thinking budget below maxTokens',
    async (effort) => {
      server.reply(converseOutput({ reasoning: 'hmm', text: 'answer' }));
      const response = await model().invoke(request({ reasoningEffort: effort }));
      const body = server.requests[0]?.body;
      const budget = THINKING_BUDGET_TOKENS[effort];
      expect(body.additionalModelRequestFields).toEqual({
        thinking: { type: 'enabled', budget_tokens: budget },
      });
      expect(body.inferenceConfig.maxTokens).toBe(budget + 2_000);
      expect(response.text).toBe('answer');
    }
  );

  it('sends no thinking to Claude when continuing a tool-use loop', async () => {
    server.reply(converseOutput({ text: 'done' }));
    await model().invoke(request({ input: toolRound, reasoningEffort: 'medium' }));
    expect(server.requests[0]?.body.additionalModelRequestFields).toBeUndefined();
    expect(server.requests[0]?.body.inferenceConfig.maxTokens).toBe(2_000);
  });

  it.each([
    ['minimal', 'low'],
    ['low', 'low'],
    ['medium', 'medium'],
    ['high', 'high'],
  ] as const)('maps %s to gpt-oss reasoning_effort %s', async (effort, sent) => {
    server.reply(converseOutput({ reasoning: 'hmm', text: 'answer' }));
    await model({ model: GPT_OSS }).invoke(request({ input: toolRound, reasoningEffort: effort }));
    const body = server.requests[0]?.body;
    expect(body.additionalModelRequestFields).toEqual({ reasoning_effort: sent });
    expect(body.inferenceConfig.maxTokens).toBe(2_000);
  });

  it.each<[string, Partial<BedrockModelOptions>]>([
    ['a model family without a mapping', { model: 'meta.llama3-70b-instruct-v1:0' }],
    ['a deployment without reasoning', { supportsReasoning: false }],
  ])('refuses an effort for %s, before any HTTP call', async (_, options) => {
    const error = await failure(model(options).invoke(request({ reasoningEffort: 'high' })));
    expect(error).toBeInstanceOf(ModelFailedError);
    expect(error.message).toContain('reasoning_effort=high');
    expect(error.message).toContain(options.model ?? CLAUDE);
    expect(server.requests).toEqual([]);
  });
});

describe('BedrockConverseModel response', () => {
  it('returns text, decoded tool calls and cached-token usage; reasoning is not text', async () => {
    server.reply({
      json: {
        output: {
          message: {
            role: 'assistant',
            content: [
              { reasoningContent: { reasoningText: { text: 'private', signature: 'sig' } } },
              { reasoningContent: { redactedContent: 'b3BhcXVl' } },
              { text: 'Searching ' },
              { text: 'now.' },
              { toolUse: { toolUseId: 'tooluse_9', name: SEARCH_WIRE, input: { q: 'x y' } } },
              { toolUse: { toolUseId: 'tooluse_10', name: 'made_up', input: {} } },
            ],
          },
        },
        stopReason: 'tool_use',
        usage: {
          inputTokens: 20,
          outputTokens: 7,
          totalTokens: 1_327,
          cacheReadInputTokens: 1_000,
          cacheWriteInputTokens: 300,
        },
        metrics: { latencyMs: 10 },
      },
    });
    const response = await model().invoke(request());
    expect(response).toEqual({
      text: 'Searching now.',
      toolCalls: [
        { id: 'tooluse_9', name: SEARCH, arguments: '{"q":"x y"}' },
        { id: 'tooluse_10', name: 'made_up', arguments: '{}' },
      ],
      usage: { inputTokens: 1_320, cachedInputTokens: 1_000, outputTokens: 7 },
      model: CLAUDE,
      finishReason: 'tool_calls',
    });
  });

  it('reads usage without cache fields as uncached', async () => {
    server.reply(converseOutput({ text: 'hi', usage: { input: 50, output: 5 } }));
    const response = await model().invoke(request());
    expect(response.usage).toEqual({ inputTokens: 50, cachedInputTokens: 0, outputTokens: 5 });
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['guardrail_intervened', 'refusal'],
    ['content_filtered', 'refusal'],
  ] as const)('maps stopReason %s to %s', async (stopReason, finish) => {
    server.reply(converseOutput({ text: 'x', stopReason }));
    expect((await model().invoke(request())).finishReason).toBe(finish);
  });
});

describe('BedrockConverseModel errors', () => {
  it.each([
    [429, 'ThrottlingException'],
    [503, 'ServiceUnavailableException'],
    [500, 'InternalServerException'],
    [408, 'ModelTimeoutException'],
    [429, 'ModelNotReadyException'],
  ])('%i %s is retryable', async (status, type) => {
    server.reply(bedrockError(status, type, 'try later'));
    const error = await failure(model().invoke(request()));
    expect(error).toBeInstanceOf(ModelRetryableError);
    expect(error.message).toBe(`bedrock ${status} ${type}: try later`);
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    [400, 'ValidationException', 'The provided model identifier is invalid.'],
    [403, 'AccessDeniedException', 'You do not have access to the model.'],
    [404, 'ResourceNotFoundException', 'Model not found.'],
    [424, 'ModelErrorException', 'The model failed to process the request.'],
    [403, 'UnrecognizedClientException', 'The security token included in the request is invalid.'],
  ])('%i %s fails with a readable reason and no credential', async (status, type, message) => {
    server.reply(bedrockError(status, type, message));
    const error = await failure(model().invoke(request()));
    expect(error).toBeInstanceOf(ModelFailedError);
    expect(error.message).toContain(`bedrock ${status}`);
    expect(error.message).toContain(message);
    expect(error.message).not.toContain(SECRET_KEY);
    expect(server.requests).toHaveLength(1);
  });

  it('a timeout is retryable', async () => {
    server.reply({ ...converseOutput({ text: 'late' }), delayMs: 2_000 });
    const error = await failure(model({ timeoutMs: 200 }).invoke(request()));
    expect(error).toBeInstanceOf(ModelRetryableError);
    expect(error.message).toMatch(/^bedrock TimeoutError: .*200 ms/);
    expect(server.requests).toHaveLength(1);
  });

  it('a refused connection is retryable', async () => {
    const closed = await FakeBedrockServer.start();
    const endpoint = closed.endpoint;
    await closed.close();
    const error = await failure(model({ endpoint }).invoke(request()));
    expect(error).toBeInstanceOf(ModelRetryableError);
    expect(error.message).toMatch(/ECONNREFUSED/);
  });

  it.each([
    ['not JSON', { raw: '{"output": {' }],
    ['HTML', { raw: '<html>gateway</html>', contentType: 'text/html' }],
  ])('a 2xx that is %s fails with status 200', async (_, reply) => {
    server.reply(reply);
    const error = await failure(model().invoke(request()));
    expect(error).toBeInstanceOf(ModelFailedError);
    expect(error.message).toMatch(/^bedrock 200: unreadable response body/);
  });

  it.each([
    ['no output message', { json: { stopReason: 'end_turn', usage: { inputTokens: 1 } } }],
    ['no usage', { json: { output: { message: { role: 'assistant', content: [] } } } }],
  ])('a 2xx with %s fails with status 200', async (_, reply) => {
    server.reply(reply);
    const error = await failure(model().invoke(request()));
    expect(error).toBeInstanceOf(ModelFailedError);
    expect(error.message).toMatch(/^bedrock 200: malformed response/);
  });
});
