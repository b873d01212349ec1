import { describe, expect, it } from 'vitest';
import { OpenAiResponsesModel } from '../../../functions/adapters/model/openai-responses-model.js';
import { encodeToolName } from '../../../functions/adapters/model/tool-names.js';
import { ModelFailedError, ModelRetryableError } from '../../../functions/core/errors.js';
import { responsesBody } from '../../support/fake-openai-server.js';
import {
  adapterOptions,
  baseRequest,
  describeFailures,
  fakeServers,
  routeOfficialHostTo,
} from './openai-fixtures.js';

const SEARCH = encodeToolName('plugin.search');

describe('OpenAiResponsesModel', () => {
  const servers = fakeServers();
  const model = (overrides = {}) =>
    new OpenAiResponsesModel(adapterOptions(servers.main.url, overrides));

  describe('the request', () => {
    it('is a stateless Responses call: instructions, input, encoded tools, cache key, limit', async () => {
      servers.main.reply(responsesBody({ text: 'ok' }));
      await model().invoke(
        baseRequest({
          input: [
            { type: 'message', role: 'user', text: 'find the report' },
            { type: 'message', role: 'assistant', text: 'Searching.' },
            {
              type: 'tool_call',
              callId: 'call_1',
              name: 'plugin.search',
              arguments: '{"query":"r"}',
            },
            { type: 'tool_result', callId: 'call_1', output: 'found 3' },
          ],
        })
      );

      const [request] = servers.main.requests;
      expect(request).toMatchObject({ method: 'POST', path: '/v1/responses' });
      expect(SEARCH).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      expect(request?.body).toEqual({
        model: 'configured-model',
        instructions: 'You are the test agent.',
        input: [
          { type: 'message', role: 'user', content: 'find the report' },
          { type: 'message', role: 'assistant', content: 'Searching.' },
          { type: 'function_call', call_id: 'call_1', name: SEARCH, arguments: '{"query":"r"}' },
          { type: 'function_call_output', call_id: 'call_1', output: 'found 3' },
        ],
        tools: [
          {
            type: 'function',
            name: 'create_plan',
            description: 'Create the plan.',
            parameters: {
              type: 'object',
              properties: { steps: { type: 'array' } },
              required: ['steps'],
            },
            strict: false,
          },
          {
            type: 'function',
            name: SEARCH,
            description: 'Search the index.',
            parameters: { type: 'object', properties: { query: { type: 'string' } } },
            strict: false,
          },
        ],
        max_output_tokens: 2_000,
        store: false,
        prompt_cache_key: 'task-123',
      });
    });

    it("takes the task's model and reasoning effort when set", async () => {
      servers.main.reply(responsesBody({ text: 'ok' }));
      await model().invoke(baseRequest({ model: 'task-model', reasoningEffort: 'minimal' }));
      expect(servers.main.requests[0]?.body).toMatchObject({
        model: 'task-model',
        reasoning: { effort: 'minimal' },
      });
    });

    it('sends no tools field when no tool is offered', async () => {
      servers.main.reply(responsesBody({ text: 'ok' }));
      await model().invoke(baseRequest({ tools: [] }));
      expect(servers.main.requests[0]?.body).not.toHaveProperty('tools');
    });

    it('without a base URL calls api.openai.com, whatever OPENAI_BASE_URL says', async () => {
      const urls = routeOfficialHostTo(servers.main);
      servers.main.reply(responsesBody({ text: 'ok' }));
      await new OpenAiResponsesModel(adapterOptions(undefined)).invoke(baseRequest());
      expect(urls).toEqual(['https://api.openai.com/v1/responses']);
      // OpenAI's own API is where the environment's organization id belongs.
      expect(servers.main.requests[0]?.headers['openai-organization']).toBe('org-from-env');
    });
  });

  describe('the response', () => {
    it('maps text, usage with cached tokens and the model that answered; skips reasoning', async () => {
      servers.main.reply(
        responsesBody({
          reasoning: 'Thinking about the report.',
          text: 'Here it is.',
          usage: { input: 1_200, cached: 1_024, output: 42 },
          model: 'gpt-test-2026-01-01',
        })
      );
      expect(await model().invoke(baseRequest())).toEqual({
        text: 'Here it is.',
        toolCalls: [],
        usage: { inputTokens: 1_200, cachedInputTokens: 1_024, outputTokens: 42 },
        model: 'gpt-test-2026-01-01',
        finishReason: 'stop',
      });
    });

    it('returns structured calls with decoded names and the raw arguments text', async () => {
      servers.main.reply(
        responsesBody({
          text: 'Let me look.',
          calls: [
            { id: 'call_a', name: SEARCH, arguments: '{"query": "q3 report"}' },
            { id: 'call_b', name: 'create_plan', arguments: '{"steps":[]}' },
          ],
        })
      );
      const response = await model().invoke(baseRequest());
      expect(response.toolCalls).toEqual([
        { id: 'call_a', name: 'plugin.search', arguments: '{"query": "q3 report"}' },
        { id: 'call_b', name: 'create_plan', arguments: '{"steps":[]}' },
      ]);
      expect(response.finishReason).toBe('tool_calls');
      expect(response.text).toBe('Let me look.');
    });

    it('never reads a call out of text', async () => {
      servers.main.reply(
        responsesBody({ text: '{"type":"function_call","name":"create_plan","arguments":"{}"}' })
      );
      const response = await model().invoke(baseRequest());
      expect(response.toolCalls).toEqual([]);
      expect(response.finishReason).toBe('stop');
    });

    it('reports a cut-off answer as length', async () => {
      servers.main.reply(
        responsesBody({ text: 'The report says', incomplete: 'max_output_tokens' })
      );
      expect(await model().invoke(baseRequest())).toMatchObject({
        text: 'The report says',
        finishReason: 'length',
      });
    });

    it('reports a refusal, with its text', async () => {
      servers.main.reply(responsesBody({ refusal: "I can't help with that." }));
      expect(await model().invoke(baseRequest())).toMatchObject({
        text: "I can't help with that.",
        finishReason: 'refusal',
      });
    });
  });

  describe('a 200 that says the response failed', () => {
    const failed = (code: string) => ({
      json: {
        ...(responsesBody({}) as { json: object }).json,
        status: 'failed',
        error: { code, message: 'something broke' },
      },
    });

    it('is retryable for a server error, failed otherwise, never an empty answer', async () => {
      servers.main.reply(failed('server_error'), failed('invalid_prompt'));
      await expect(model().invoke(baseRequest())).rejects.toThrow(ModelRetryableError);
      await expect(model().invoke(baseRequest())).rejects.toThrow(
        new ModelFailedError('openai 200: the response failed: invalid_prompt: something broke')
      );
    });
  });

  describeFailures(
    servers,
    (options) => new OpenAiResponsesModel(options),
    responsesBody({ text: 'ok' })
  );
});
