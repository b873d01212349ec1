import { isUntrustedPreamble } from '../../core/loop/framing.js';
import type { Model, ModelRequest, ModelResponse, ModelToolCall } from '../../core/ports/model.js';
import { tourMove } from './demo-tour.js';

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

/** Text without the harness's markup lines (a tool result is framed as untrusted data). */
const plain = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '' && !MARKUP_LINE.test(line) && !isUntrustedPreamble(line))
    .join('\n');

/**
 * What the demo model does with the sample notes server's tools, when they are offered (`npm
 * start` runs that server unless MCP servers are configured): `note <text>` adds a note, `notes`
 * lists them, `delete note <id>` deletes one (a destructive call: it waits for an approval).
 */
const noteCall = (said: string, request: ModelRequest): Omit<ModelToolCall, 'id'> | undefined => {
  const words = said.replace(/^\[[^\]]+\]\s*/, '').trim();
  const offered = (name: string) => request.tools.some((tool) => tool.name === name);
  const deletion = /^delete note\s+(\S+)$/i.exec(words);
  if (deletion !== null && offered('notes__delete_note')) {
    return { name: 'notes__delete_note', arguments: JSON.stringify({ id: deletion[1] }) };
  }
  if (/^(list )?notes$/i.test(words) && offered('notes__list_notes')) {
    return { name: 'notes__list_notes', arguments: '{}' };
  }
  const note = /^note\s+([\s\S]+)$/i.exec(words);
  if (note !== null && offered('notes__append_note')) {
    return { name: 'notes__append_note', arguments: JSON.stringify({ text: note[1] }) };
  }
  return undefined;
};

/** The answer to a tool's result: which tool said what. */
const afterToolResult = (request: ModelRequest): string | undefined => {
  const last = request.input.at(-1);
  if (last?.type !== 'tool_result') return undefined;
  const call = request.input.find(
    (item) => item.type === 'tool_call' && item.callId === last.callId
  );
  const name = call?.type === 'tool_call' ? call.name : 'the tool';
  const output = plain(last.output);
  return `(demo model) ${name} answered:\n${output.length > 500 ? `${output.slice(0, 500)}…` : output}`;
};

const usageOf = (request: ModelRequest) => ({
  inputTokens: Math.ceil(JSON.stringify(request).length / 4),
  cachedInputTokens: 0,
  outputTokens: 20,
});

/** Tool calls as the model's answer, each with an id unique in the conversation. */
const calling = (
  request: ModelRequest,
  calls: readonly Omit<ModelToolCall, 'id'>[]
): ModelResponse => ({
  text: '',
  toolCalls: calls.map((call, index) => ({
    id: `demo-call-${request.input.length}${calls.length > 1 ? `-${index + 1}` : ''}`,
    ...call,
  })),
  usage: usageOf(request),
  model: 'demo',
  finishReason: 'tool_calls',
});

/**
 * The built-in model `npm start` uses when none is configured: no network, no key, and the same
 * answer to the same conversation. "plan <something>" tours the product (`tourMove`: a plan, a
 * sub-task meeting its acceptance criterion with evidence, a question); with the sample notes
 * server's tools offered, a few words call them (`noteCall`), so a real tool call and an approval
 * can be tried; anything else it answers by saying what it received, so the whole loop (parking,
 * resuming, the stream, the execution history) can be tried before a provider is set up.
 */
export class DemoModel implements Model {
  async invoke(request: ModelRequest): Promise<ModelResponse> {
    const move = tourMove(request);
    if (move !== undefined && 'toolCalls' in move) return calling(request, move.toolCalls);
    if (move !== undefined) {
      return {
        text: move.text,
        toolCalls: [],
        usage: usageOf(request),
        model: 'demo',
        finishReason: 'stop',
      };
    }
    const answer = afterToolResult(request);
    if (answer !== undefined) {
      return {
        text: answer,
        toolCalls: [],
        usage: usageOf(request),
        model: 'demo',
        finishReason: 'stop',
      };
    }
    const said = lastSaid(request);
    // Only words just said call a tool: an older message never calls it again.
    const last = request.input.at(-1);
    const fresh = last?.type === 'message' && last.role === 'user';
    const call = said === undefined || !fresh ? undefined : noteCall(said, request);
    if (call !== undefined) return calling(request, [call]);
    const received =
      said === undefined
        ? 'I received your message.'
        : `I received: ${said.length > 200 ? `${said.slice(0, 200)}…` : said}`;
    return {
      text: `(demo model) ${received}\nConfigure a model provider for real answers.`,
      toolCalls: [],
      usage: usageOf(request),
      model: 'demo',
      finishReason: 'stop',
    };
  }
}
