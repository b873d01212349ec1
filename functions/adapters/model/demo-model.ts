import type { Model, ModelRequest, ModelResponse } from '../../core/ports/model.js';

const lastUserText = (request: ModelRequest): string => {
  for (let index = request.input.length - 1; index >= 0; index--) {
    const item = request.input[index];
    if (item?.type === 'message' && item.role === 'user') return item.text;
  }
  return '';
};

/**
 * The built-in model `npm start` uses when none is configured: no network, no key. It answers
 * every turn by saying what it received, so the whole loop (parking, resuming, the stream, the
 * execution history) can be tried before a provider is set up.
 */
export class DemoModel implements Model {
  async invoke(request: ModelRequest): Promise<ModelResponse> {
    const said = lastUserText(request).split('\n').at(-1)?.slice(0, 200) ?? '';
    return {
      text: `(demo model) I received: ${said}\nConfigure a model provider for real answers.`,
      toolCalls: [],
      usage: {
        inputTokens: Math.ceil(JSON.stringify(request).length / 4),
        cachedInputTokens: 0,
        outputTokens: 20,
      },
      model: 'demo',
      finishReason: 'stop',
    };
  }
}
