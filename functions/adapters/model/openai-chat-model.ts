import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions/completions';
import * as z from 'zod';
import type {
  Model,
  ModelInputItem,
  ModelRequest,
  ModelResponse,
  ToolDefinition,
} from '../../core/ports/model.js';
import { type OpenAiEndpoint, openAiEndpoint, send } from './openai-client.js';
import { decodeCall, finishReasonOf, prepareRequest, textOf, usageOf } from './openai-mapping.js';
import type { ProviderModelOptions } from './provider-options.js';
import type { ToolNameCodec } from './tool-names.js';

const PROVIDER = 'openai-chat';

const ToolCallSchema = z.looseObject({
  id: z.string().min(1),
  type: z.literal('function').optional(),
  function: z.looseObject({
    name: z.string().min(1),
    // Some compatible servers send the arguments as an object; the loop wants the JSON text.
    arguments: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .transform((value) => (typeof value === 'string' ? value : JSON.stringify(value))),
  }),
});

/** The part of a Chat Completions answer the adapter reads; a 2xx without it is unparseable. */
const CompletionSchema = z.looseObject({
  model: z.string().optional(),
  choices: z
    .array(
      z.looseObject({
        finish_reason: z.string().nullish(),
        message: z.looseObject({
          content: z.string().nullish(),
          refusal: z.string().nullish(),
          tool_calls: z.array(ToolCallSchema).nullish(),
        }),
      })
    )
    .min(1),
  usage: z
    .looseObject({
      prompt_tokens: z.number(),
      completion_tokens: z.number(),
      prompt_tokens_details: z.looseObject({ cached_tokens: z.number().nullish() }).nullish(),
    })
    .nullish(),
});
type WireCompletion = z.output<typeof CompletionSchema>;

/**
 * The conversation as Chat Completions wants it: the instructions as the system message, and
 * the tool calls of one turn on one assistant message (the one with that turn's text, when there
 * is one) so that each `role: 'tool'` result follows the message that asked for it.
 */
const toMessages = (
  instructions: string,
  items: readonly ModelInputItem[],
  codec: ToolNameCodec
): ChatCompletionMessageParam[] => {
  const messages: ChatCompletionMessageParam[] = [{ role: 'system', content: instructions }];
  // The assistant message further tool calls join; any other message closes it.
  let open: ChatCompletionAssistantMessageParam | undefined;
  for (const item of items) {
    if (item.type === 'tool_call') {
      const call = {
        id: item.callId,
        type: 'function' as const,
        function: { name: codec.encode(item.name), arguments: item.arguments },
      };
      if (open === undefined) {
        open = { role: 'assistant', content: null, tool_calls: [] };
        messages.push(open);
      }
      open.tool_calls = [...(open.tool_calls ?? []), call];
      continue;
    }
    const message: ChatCompletionMessageParam =
      item.type === 'message'
        ? { role: item.role, content: item.text }
        : { role: 'tool', tool_call_id: item.callId, content: item.output };
    messages.push(message);
    open = message.role === 'assistant' ? message : undefined;
  }
  return messages;
};

const toTool = (tool: ToolDefinition, codec: ToolNameCodec): ChatCompletionFunctionTool => ({
  type: 'function',
  function: {
    name: codec.encode(tool.name),
    description: tool.description,
    parameters: tool.parameters,
  },
});

const toResponse = (body: WireCompletion, model: string, codec: ToolNameCodec): ModelResponse => {
  // `n` is never set, so the first choice is the only one.
  const [choice] = body.choices;
  const message = choice!.message;
  const toolCalls = (message.tool_calls ?? []).map((call) =>
    decodeCall(codec, { id: call.id, ...call.function })
  );
  const refusal = message.refusal ?? '';
  return {
    text: textOf(message.content ?? '', refusal),
    toolCalls,
    usage: usageOf(
      body.usage?.prompt_tokens,
      body.usage?.prompt_tokens_details?.cached_tokens,
      body.usage?.completion_tokens
    ),
    model: body.model || model,
    finishReason: finishReasonOf({
      calls: toolCalls.length,
      truncated: choice!.finish_reason === 'length',
      refused: refusal !== '' || choice!.finish_reason === 'content_filter',
    }),
  };
};

/**
 * Chat Completions, for any OpenAI-compatible server (vLLM, llama.cpp, Ollama, LM Studio, a
 * gateway) and for OpenAI itself. Only the configured host is called. Fields a local server may
 * not know are sent to OpenAI only: `prompt_cache_key` (a strict server rejects unknown fields)
 * and `max_completion_tokens` (OpenAI's reasoning models refuse `max_tokens`; most local servers
 * only know `max_tokens`, so they get that).
 */
export class OpenAiChatModel implements Model {
  readonly #options: ProviderModelOptions;
  readonly #endpoint: OpenAiEndpoint;

  constructor(options: ProviderModelOptions) {
    this.#options = options;
    this.#endpoint = openAiEndpoint(PROVIDER, options);
  }

  async invoke(request: ModelRequest): Promise<ModelResponse> {
    const { model, codec } = prepareRequest(PROVIDER, this.#options, request);
    const official = this.#endpoint.official;
    const body: ChatCompletionCreateParamsNonStreaming = {
      model,
      messages: toMessages(request.instructions, request.input, codec),
      // An empty `tools` array is an error on OpenAI: no tools, no field.
      ...(request.tools.length > 0 && {
        tools: request.tools.map((tool) => toTool(tool, codec)),
      }),
      ...(official
        ? { max_completion_tokens: request.maxOutputTokens, prompt_cache_key: request.cacheKey }
        : { max_tokens: request.maxOutputTokens }),
      ...(request.reasoningEffort !== undefined && { reasoning_effort: request.reasoningEffort }),
    };
    const answer = await send(
      this.#endpoint,
      () => this.#endpoint.client.chat.completions.create(body),
      CompletionSchema
    );
    return toResponse(answer, model, codec);
  }
}
