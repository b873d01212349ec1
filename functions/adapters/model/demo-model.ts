import type { Model, ModelRequest, ModelResponse } from '../../core/ports/model.js';

/** A line that is only a tag of the harness's own context markup (`<plan>`, `</state_summary>`). */
const MARKUP_LINE = /^\s*<\/?[a-z][a-z0-9_:-]*(\s[^>]*)?>\s*$/i;

/**
 * The last thing a participant said, as plain text: the harness's context message (the tagged
 * blocks that open every request) and markup lines are never taken for it. Undefined when the
 * request holds no such message (compaction folded it into the summary).
 */
const lastSaid = (request: ModelRequest): string | undefined => {
  for (let index = request.input.length - 1; index >= 0; index--) {
    const item = request.input[index];
    if (item?.type !== 'message' || item.role !== 'user') continue;
    if (index === 0 && item.text.trimStart().startsWith('<')) continue;
    const lines = item.text
      .split('\n')
      .filter((line) => line.trim() !== '' && !MARKUP_LINE.test(line));
    const last = lines.at(-1);
    if (last !== undefined) return last;
  }
  return undefined;
};

/**
 * The built-in model `npm start` uses when none is configured: no network, no key. It answers
 * every turn by saying what it received, so the whole loop (parking, resuming, the stream, the
 * execution history) can be tried before a provider is set up.
 */
export class DemoModel implements Model {
  async invoke(request: ModelRequest): Promise<ModelResponse> {
    const said = lastSaid(request);
    const received =
      said === undefined
        ? 'I received your message.'
        : `I received: ${said.length > 200 ? `${said.slice(0, 200)}…` : said}`;
    return {
      text: `(demo model) ${received}\nConfigure a model provider for real answers.`,
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
