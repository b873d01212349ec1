import type {
  FunctionTool,
  ResponseCreateParamsNonStreaming,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import * as z from 'zod';
import { ModelFailedError, ModelRetryableError } from '../../core/errors.js';
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

const PROVIDER = 'openai';

const FunctionCallSchema = z.looseObject({
  type: z.literal('function_call'),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
});

const MessageSchema = z.looseObject({
  type: z.literal('message'),
  content: z.array(
    z.looseObject({ type: z.string(), text: z.string().optional(), refusal: z.string().optional() })
  ),
});

/** Reasoning and hosted-tool items: skipped (with `store: false` they cannot be referenced). */
const OtherItemSchema = z
  .looseObject({
    type: z.string().refine((type) => type !== 'function_call' && type !== 'message'),
  })
  .transform(() => ({ type: 'other' as const }));

/** The part of a Responses API answer the adapter reads; a 2xx without it is unparseable. */
const ResponseSchema = z.looseObject({
  model: z.string(),
  status: z.string().nullish(),
  incomplete_details: z.looseObject({ reason: z.string().nullish() }).nullish(),
  error: z.looseObject({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
  output: z.array(z.union([FunctionCallSchema, MessageSchema, OtherItemSchema])),
  usage: z
    .looseObject({
      input_tokens: z.number(),
      output_tokens: z.number(),
      input_tokens_details: z.looseObject({ cached_tokens: z.number().nullish() }).nullish(),
    })
    .nullish(),
});
type WireResponse = z.output<typeof ResponseSchema>;

/**
 * Items carry no `id`: with `store: false` nothing was stored to look an id up in, and a
 * reasoning model's `fc_…` id demands the reasoning item that preceded it. Calls pair with their
 * results by `call_id`.
 */
const toInputItem = (item: ModelInputItem, codec: ToolNameCodec): ResponseInputItem => {
  switch (item.type) {
    case 'message':
      return { type: 'message', role: item.role, content: item.text };
    case 'tool_call':
      return {
        type: 'function_call',
        call_id: item.callId,
        name: codec.encode(item.name),
        arguments: item.arguments,
      };
    case 'tool_result':
      return { type: 'function_call_output', call_id: item.callId, output: item.output };
  }
};

/** `strict: false`: strict mode demands every property be required, and ours have optionals. */
const toTool = (tool: ToolDefinition, codec: ToolNameCodec): FunctionTool => ({
  type: 'function',
  name: codec.encode(tool.name),
  description: tool.description,
  parameters: tool.parameters,
  strict: false,
});

/** Codes of a `status: "failed"` response worth another attempt (the state machine retries). */
const TRANSIENT_FAILURES = new Set(['server_error', 'rate_limit_exceeded']);

/** A 2xx that says the response failed is a failure, never an empty answer. */
const failureOf = (body: WireResponse): Error | undefined => {
  if (body.status !== 'failed') return undefined;
  const code = body.error?.code ?? 'unknown';
  const reason = `${PROVIDER} 200: the response failed: ${code}: ${body.error?.message ?? ''}`;
  return TRANSIENT_FAILURES.has(code)
    ? new ModelRetryableError(reason)
    : new ModelFailedError(reason);
};

const toResponse = (body: WireResponse, codec: ToolNameCodec): ModelResponse => {
  const texts: string[] = [];
  const refusals: string[] = [];
  const toolCalls: ModelResponse['toolCalls'] = [];
  for (const item of body.output) {
    if (item.type === 'function_call') {
      toolCalls.push(decodeCall(codec, { ...item, id: item.call_id }));
    } else if (item.type === 'message') {
      for (const part of item.content) {
        if (part.type === 'output_text') texts.push(part.text ?? '');
        if (part.type === 'refusal') refusals.push(part.refusal ?? '');
      }
    }
  }
  const incomplete = body.status === 'incomplete' ? body.incomplete_details?.reason : undefined;
  return {
    text: textOf(texts.join(''), refusals.join('\n')),
    toolCalls,
    usage: usageOf(
      body.usage?.input_tokens,
      body.usage?.input_tokens_details?.cached_tokens,
      body.usage?.output_tokens
    ),
    model: body.model,
    finishReason: finishReasonOf({
      calls: toolCalls.length,
      truncated: incomplete === 'max_output_tokens',
      refused: refusals.length > 0 || incomplete === 'content_filter',
    }),
  };
};

/**
 * OpenAI's Responses API. Stateless on purpose (`store: false`): the harness owns the history
 * and sends it whole each turn; `prompt_cache_key` (the task id) keeps that turn's static prefix
 * on the same cache.
 */
export class OpenAiResponsesModel implements Model {
  readonly #options: ProviderModelOptions;
  readonly #endpoint: OpenAiEndpoint;

  constructor(options: ProviderModelOptions) {
    this.#options = options;
    this.#endpoint = openAiEndpoint(PROVIDER, options);
  }

  async invoke(request: ModelRequest): Promise<ModelResponse> {
    const { model, codec } = prepareRequest(PROVIDER, this.#options, request);
    const body: ResponseCreateParamsNonStreaming = {
      model,
      instructions: request.instructions,
      input: request.input.map((item) => toInputItem(item, codec)),
      ...(request.tools.length > 0 && {
        tools: request.tools.map((tool) => toTool(tool, codec)),
      }),
      max_output_tokens: request.maxOutputTokens,
      store: false,
      prompt_cache_key: request.cacheKey,
      ...(request.reasoningEffort !== undefined && {
        reasoning: { effort: request.reasoningEffort },
      }),
    };
    const answer = await send(
      this.#endpoint,
      () => this.#endpoint.client.responses.create(body),
      ResponseSchema
    );
    const failure = failureOf(answer);
    if (failure !== undefined) throw failure;
    return toResponse(answer, codec);
  }
}
