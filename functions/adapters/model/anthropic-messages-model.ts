import { BaseAnthropic } from '@anthropic-ai/sdk/client';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
} from '@anthropic-ai/sdk/core/error';
import type {
  ContentBlockParam,
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages';
import { Messages } from '@anthropic-ai/sdk/resources/messages';
import { ModelFailedError, ModelRetryableError } from '../../core/errors.js';
import type {
  FinishReason,
  Model,
  ModelRequest,
  ModelResponse,
  ModelToolCall,
} from '../../core/ports/model.js';
import {
  type ConversationBlock,
  type ConversationTurn,
  continuesToolUse,
  splitCacheUsage,
  thinkingBudget,
  toConversation,
  toolCodec,
} from './conversation-mapping.js';
import { toModelError } from './provider-errors.js';
import type { ProviderModelOptions } from './provider-options.js';
import { refuseReasoning } from './reasoning.js';
import type { ToolNameCodec } from './tool-names.js';

const PROVIDER = 'anthropic';
const DEFAULT_BASE_URL = 'https://api.anthropic.com';
const EPHEMERAL = { type: 'ephemeral' } as const;

/**
 * The SDK's client with the one resource used (the SDK's default export carries every API of
 * Anthropic's, three times the bytes in the turn step's bundle), and its default credential
 * chain (config profiles, `ANTHROPIC_AUTH_TOKEN`) turned off: the only credential ever sent is
 * the configured key, and only to the configured host.
 */
class PinnedAnthropic extends BaseAnthropic {
  readonly messages: Messages = new Messages(this);

  protected override _shouldResolveDefaultCredentials(): boolean {
    return false;
  }
}

const toContent = (block: ConversationBlock): ContentBlockParam => {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    case 'tool_result':
      return { type: 'tool_result', tool_use_id: block.id, content: block.output };
  }
};

const toMessage = (turn: ConversationTurn): MessageParam =>
  turn.role === 'user'
    ? { role: 'user', content: turn.blocks.map(toContent) }
    : { role: 'assistant', content: turn.blocks.map(toContent) };

/** Tool definitions; the last carries the cache breakpoint that caches all of them. */
const toTools = (request: ModelRequest, codec: ToolNameCodec): Tool[] =>
  request.tools.map((tool, index) => ({
    name: codec.encode(tool.name),
    description: tool.description,
    input_schema: { type: 'object', ...tool.parameters },
    ...(index === request.tools.length - 1 ? { cache_control: EPHEMERAL } : {}),
  }));

const FINISH = new Map<string, FinishReason>([
  ['tool_use', 'tool_calls'],
  ['max_tokens', 'length'],
  ['model_context_window_exceeded', 'length'],
  ['refusal', 'refusal'],
]);

const malformed = (detail: string): ModelFailedError =>
  new ModelFailedError(`${PROVIDER} 200: malformed response (${detail})`);

const toResponse = (message: Message, codec: ToolNameCodec, model: string): ModelResponse => {
  if (message === null || typeof message !== 'object' || !Array.isArray(message.content)) {
    throw malformed('no content array');
  }
  if (typeof message.usage?.input_tokens !== 'number') throw malformed('no usage');
  const text: string[] = [];
  const toolCalls: ModelToolCall[] = [];
  for (const block of message.content) {
    // Thinking blocks are the model's reasoning, not its answer: never part of the text.
    if (block.type === 'text') text.push(block.text);
    else if (block.type === 'tool_use') {
      toolCalls.push({
        id: block.id,
        name: codec.decode(block.name),
        arguments: JSON.stringify(block.input ?? {}),
      });
    }
  }
  return {
    text: text.join(''),
    toolCalls,
    usage: splitCacheUsage({
      uncached: message.usage.input_tokens,
      cacheRead: message.usage.cache_read_input_tokens,
      cacheWrite: message.usage.cache_creation_input_tokens,
      output: message.usage.output_tokens,
    }),
    model: typeof message.model === 'string' ? message.model : model,
    finishReason:
      FINISH.get(message.stop_reason ?? '') ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
  };
};

/** The innermost cause's message (`fetch failed` → `connect ECONNREFUSED 127.0.0.1:443`). */
const rootMessage = (error: Error): string => {
  let current = error;
  for (let depth = 0; depth < 5 && current.cause instanceof Error; depth++) current = current.cause;
  return current.message.slice(0, 300);
};

/** The SDK's failure as the port's typed error, with the API's own words as the reason. */
const toAnthropicError = (error: unknown, timeoutMs: number): Error => {
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelRetryableError(`${PROVIDER}: timed out after ${timeoutMs} ms`, {
      cause: error,
    });
  }
  if (error instanceof APIConnectionError) {
    return new ModelRetryableError(`${PROVIDER}: connection failed: ${rootMessage(error)}`, {
      cause: error,
    });
  }
  // A 2xx whose body is not JSON: the SDK's parse fails before any status check could.
  if (error instanceof SyntaxError) {
    return new ModelFailedError(`${PROVIDER} 200: response body is not valid JSON`, {
      cause: error,
    });
  }
  const classified = toModelError(PROVIDER, error);
  if (!(error instanceof APIError) || error.status === undefined || !error.apiMessage) {
    return classified;
  }
  const reason = `${PROVIDER} ${error.status}${error.type ? ` ${error.type}` : ''}: ${error.apiMessage.slice(0, 500)}`;
  return classified instanceof ModelRetryableError
    ? new ModelRetryableError(reason, { cause: error })
    : new ModelFailedError(reason, { cause: error });
};

/**
 * The Anthropic Messages API, on the official SDK, SDK retries off (the state machine retries).
 *
 * - Prompt caching is prefix-based: Anthropic has no cache-key parameter, so `request.cacheKey`
 *   is not sent (least of all as `metadata.user_id`, which identifies an end user). Cache
 *   breakpoints sit on the last tool definition and on the system block: tools, then the
 *   instructions, are the byte-stable prefix.
 * - Usage: Anthropic reports uncached input, cache reads and cache writes separately; the port's
 *   `inputTokens` is their sum, `cachedInputTokens` the reads.
 * - Reasoning: a task's `reasoning_effort` becomes an extended-thinking budget, with `max_tokens`
 *   raised to budget + the configured output limit. Thinking blocks are not carried between calls
 *   (the port has no place for them), so a request continuing a tool-use loop, which would have
 *   to echo them, goes without thinking. Models that accept only adaptive thinking are not
 *   covered: configure them with `supportsReasoning` false.
 */
export class AnthropicMessagesModel implements Model {
  readonly #options: ProviderModelOptions;
  readonly #client: PinnedAnthropic;

  constructor(options: ProviderModelOptions) {
    this.#options = options;
    this.#client = new PinnedAnthropic({
      apiKey: options.apiKey ?? null,
      authToken: null,
      // Explicit, so ANTHROPIC_BASE_URL in the environment cannot redirect the calls.
      baseURL: options.baseUrl ?? DEFAULT_BASE_URL,
      timeout: options.timeoutMs,
      maxRetries: 0,
      // Keyless (a proxy that adds credentials): send no auth header at all.
      ...(options.apiKey === undefined
        ? { defaultHeaders: { 'X-Api-Key': null, Authorization: null } }
        : {}),
    });
  }

  async invoke(request: ModelRequest): Promise<ModelResponse> {
    const model = request.model ?? this.#options.model;
    const codec = toolCodec(PROVIDER, request.tools);
    const body = this.#body(request, model, codec);
    let message: Message;
    try {
      message = await this.#client.messages.create(body);
    } catch (error) {
      throw toAnthropicError(error, this.#options.timeoutMs);
    }
    return toResponse(message, codec, model);
  }

  #body(
    request: ModelRequest,
    model: string,
    codec: ToolNameCodec
  ): MessageCreateParamsNonStreaming {
    const effort = request.reasoningEffort;
    if (effort !== undefined && !this.#options.supportsReasoning) {
      refuseReasoning(PROVIDER, model, effort);
    }
    if (this.#options.apiKey === undefined && this.#options.baseUrl === undefined) {
      throw new ModelFailedError(`${PROVIDER}: no API key configured (ANTHROPIC_API_KEY)`);
    }
    const turns = toConversation(request.input, codec);
    const thinking =
      effort !== undefined && !continuesToolUse(turns)
        ? thinkingBudget(effort, request.maxOutputTokens)
        : undefined;
    return {
      model,
      max_tokens: thinking?.maxTokens ?? request.maxOutputTokens,
      ...(request.instructions === ''
        ? {}
        : {
            system: [{ type: 'text', text: request.instructions, cache_control: EPHEMERAL }],
          }),
      ...(request.tools.length === 0 ? {} : { tools: toTools(request, codec) }),
      messages: turns.map(toMessage),
      ...(thinking === undefined
        ? {}
        : { thinking: { type: 'enabled', budget_tokens: thinking.budgetTokens } }),
    };
  }
}
