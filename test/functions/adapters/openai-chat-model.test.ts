import { describe, expect, it } from 'vitest';
import { OpenAiChatModel } from '../../../functions/adapters/model/openai-chat-model.js';
import { encodeToolName } from '../../../functions/adapters/model/tool-names.js';
import { chatBody } from '../../support/fake-openai-server.js';
import {
  adapterOptions,
  baseRequest,
  describeFailures,
  fakeServers,
  routeOfficialHostTo,
} from './openai-fixtures.js';

const SEARCH = encodeToolName('plugin.search');

describe('OpenAiChatModel', () => {
  const servers = fakeServers();
  const model = (overrides = {}) =>
    new OpenAiChatModel(adapterOptions(servers.main.url, overrides));

  describe('the request', () => {
    it('is a Chat Completions call: system message, grouped tool calls, tool results, encoded tools', async () => {
      servers.main.reply(chatBody({ text: 'ok' }));
      await model().invoke(
        baseRequest({
          input: [
            { type: 'message', role: 'user', text: 'find the report' },
            { type: 'message', role: 'assistant', text: 'Searching twice.' },
            {
              type: 'tool_call',
              callId: 'call_1',
              name: 'plugin.search',
              arguments: '{"query":"a"}',
            },
            {
              type: 'tool_call',
              callId: 'call_2',
              name: 'plugin.search',
              arguments: '{"query":"b"}',
            },
            { type: 'tool_result', callId: 'call_1', output: 'found 1' },
            { type: 'tool_result', callId: 'call_2', output: 'found 2' },
            { type: 'tool_call', callId: 'call_3', name: 'create_plan', arguments: '{"steps":[]}' },
            { type: 'tool_result', callId: 'call_3', output: 'plan created' },
            { type: 'message', role: 'user', text: 'thanks' },
          ],
        })
      );

      const [request] = servers.main.requests;
      expect(request).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
      const call = (id: string, name: string, args: string) => ({
        id,
        type: 'function',
        function: { name, arguments: args },
      });
      expect(request?.body).toEqual({
        model: 'configured-model',
        messages: [
          { role: 'system', content: 'You are the test agent.' },
          { role: 'user', content: 'find the report' },
          {
            role: 'assistant',
            content: 'Searching twice.',
            tool_calls: [
              call('call_1', SEARCH, '{"query":"a"}'),
              call('call_2', SEARCH, '{"query":"b"}'),
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'found 1' },
          { role: 'tool', tool_call_id: 'call_2', content: 'found 2' },
          // A turn with calls and no text: its own assistant message.
          {
            role: 'assistant',
            content: null,
            tool_calls: [call('call_3', 'create_plan', '{"steps":[]}')],
          },
          { role: 'tool', tool_call_id: 'call_3', content: 'plan created' },
          { role: 'user', content: 'thanks' },
        ],
        tools: [
          {
            type: 'function',
            function: {
              name: 'create_plan',
              description: 'Create the plan.',
              parameters: {
                type: 'object',
                properties: { steps: { type: 'array' } },
                required: ['steps'],
              },
            },
          },
          {
            type: 'function',
            function: {
              name: SEARCH,
              description: 'Search the index.',
              parameters: { type: 'object', properties: { query: { type: 'string' } } },
            },
          },
        ],
        // A compatible server gets the limit most of them know, and no prompt_cache_key.
        max_tokens: 2_000,
      });
    });

    it("takes the task's model and reasoning effort when set", async () => {
      servers.main.reply(chatBody({ text: 'ok' }));
      await model().invoke(baseRequest({ model: 'task-model', reasoningEffort: 'low' }));
      expect(servers.main.requests[0]?.body).toMatchObject({
        model: 'task-model',
        reasoning_effort: 'low',
      });
    });

    it('sends no tools field when no tool is offered', async () => {
      servers.main.reply(chatBody({ text: 'ok' }));
      await model().invoke(baseRequest({ tools: [] }));
      expect(servers.main.requests[0]?.body).not.toHaveProperty('tools');
    });

    it('to api.openai.com (no base URL): max_completion_tokens and prompt_cache_key, OPENAI_BASE_URL ignored', async () => {
      const urls = routeOfficialHostTo(servers.main);
      servers.main.reply(chatBody({ text: 'ok' }));
      await new OpenAiChatModel(adapterOptions(undefined)).invoke(baseRequest());
      expect(urls).toEqual(['https://api.openai.com/v1/chat/completions']);
      const body = servers.main.requests[0]?.body;
      expect(body).toMatchObject({ max_completion_tokens: 2_000, prompt_cache_key: 'task-123' });
      expect(body).not.toHaveProperty('max_tokens');
    });
  });

  describe('the response', () => {
    it('maps text, usage with cached tokens and the model that answered', async () => {
      servers.main.reply(
        chatBody({
          text: 'Here it is.',
          usage: { input: 900, cached: 512, output: 30 },
          model: 'local-model-q4',
        })
      );
      expect(await model().invoke(baseRequest())).toEqual({
        text: 'Here it is.',
        toolCalls: [],
        usage: { inputTokens: 900, cachedInputTokens: 512, outputTokens: 30 },
        model: 'local-model-q4',
        finishReason: 'stop',
      });
    });

    it('returns structured calls with decoded names and the raw arguments text', async () => {
      servers.main.reply(
        chatBody({
          calls: [
            { id: 'call_a', name: SEARCH, arguments: '{"query": "q3"}' },
            { id: 'call_b', name: 'create_plan', arguments: '{"steps":[]}' },
          ],
        })
      );
      const response = await model().invoke(baseRequest());
      expect(response.toolCalls).toEqual([
        { id: 'call_a', name: 'plugin.search', arguments: '{"query": "q3"}' },
        { id: 'call_b', name: 'create_plan', arguments: '{"steps":[]}' },
      ]);
      expect(response.finishReason).toBe('tool_calls');
      expect(response.text).toBe('');
    });

    it('reports calls as tool_calls even when a server says stop, and never reads a call out of text', async () => {
      servers.main.reply(
        chatBody({
          calls: [{ id: 'call_a', name: 'create_plan', arguments: '{}' }],
          finishReason: 'stop',
        }),
        chatBody({ text: '<tool_call>{"name":"create_plan","arguments":{}}</tool_call>' })
      );
      expect((await model().invoke(baseRequest())).finishReason).toBe('tool_calls');
      expect(await model().invoke(baseRequest())).toMatchObject({
        toolCalls: [],
        finishReason: 'stop',
      });
    });

    it('takes arguments a server sent as an object as JSON text', async () => {
      servers.main.reply({
        json: {
          model: 'local-model',
          choices: [
            {
              finish_reason: 'tool_calls',
              message: {
                role: 'assistant',
                content: null,
                tool_calls: [
                  {
                    id: 'call_a',
                    type: 'function',
                    function: { name: 'create_plan', arguments: { steps: [] } },
                  },
                ],
              },
            },
          ],
        },
      });
      const response = await model().invoke(baseRequest());
      expect(response.toolCalls).toEqual([
        { id: 'call_a', name: 'create_plan', arguments: '{"steps":[]}' },
      ]);
      // No usage from this server: counted as zero rather than failing the turn.
      expect(response.usage).toEqual({ inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 });
    });

    it.each([
      [
        'length',
        { text: 'The report says', finishReason: 'length' as const },
        'length',
        'The report says',
      ],
      ['content_filter', { finishReason: 'content_filter' as const }, 'refusal', ''],
      ['a refusal', { refusal: 'I cannot help.' }, 'refusal', 'I cannot help.'],
    ])('maps %s', async (_, reply, finishReason, text) => {
      servers.main.reply(chatBody(reply));
      expect(await model().invoke(baseRequest())).toMatchObject({ finishReason, text });
    });
  });

  describeFailures(servers, (options) => new OpenAiChatModel(options), chatBody({ text: 'ok' }));
});
