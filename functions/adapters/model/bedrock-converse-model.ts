import {
  BedrockRuntimeClient,
  type ContentBlock,
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
  type Message,
  type SystemContentBlock,
  type Tool,
} from '@aws-sdk/client-bedrock-runtime';
import { ModelFailedError, ModelRetryableError } from '../../core/errors.js';
import type {
  FinishReason,
  Model,
  ModelRequest,
  ModelResponse,
  ModelToolCall,
} from '../../core/ports/model.js';
import type { ReasoningEffort } from '../../core/task/extension.schema.js';
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
import type { BedrockModelOptions } from './provider-options.js';
import { refuseReasoning } from './reasoning.js';
import type { ToolNameCodec } from './tool-names.js';

const PROVIDER = 'bedrock';
const CACHE_POINT = { cachePoint: { type: 'default' } } as const;

/** The model family a Bedrock model id names (a bare id, a geo-prefixed profile, or an ARN). */
type Family = 'claude' | 'gpt-oss' | 'nova' | 'other';

const familyOf = (modelId: string): Family => {
  const id = modelId.slice(modelId.lastIndexOf('/') + 1);
  if (/^(?:[a-z-]+\.)?anthropic\.claude/.test(id)) return 'claude';
  if (/^(?:[a-z-]+\.)?openai\.gpt-oss/.test(id)) return 'gpt-oss';
  if (/^(?:[a-z-]+\.)?amazon\.nova/.test(id)) return 'nova';
  return 'other';
};

/** Claude models older than Bedrock prompt caching (Bedrock rejects a cache point for them). */
const UNCACHED_CLAUDE = /claude-(?:v2|instant|3-(?:opus|sonnet|haiku)|3-5-sonnet-20240620)/;

/**
 * Where cache points go. Bedrock refuses a request carrying a cache point for a model without
 * prompt caching, so they are sent only to families that have it: Claude caches tools and the
 * system prompt, Nova the system prompt only, anything else (or an opaque application
 * inference-profile ARN) none.
 */
const cachePointsFor = (modelId: string): { system: boolean; tools: boolean } => {
  switch (familyOf(modelId)) {
    case 'claude': {
      const cached = !UNCACHED_CLAUDE.test(modelId);
      return { system: cached, tools: cached };
    }
    case 'nova':
      return { system: true, tools: false };
    default:
      return { system: false, tools: false };
  }
};

const toContent = (block: ConversationBlock): ContentBlock => {
  switch (block.type) {
    case 'text':
      return { text: block.text };
    case 'tool_use':
      return { toolUse: { toolUseId: block.id, name: block.name, input: block.input as never } };
    case 'tool_result':
      return { toolResult: { toolUseId: block.id, content: [{ text: block.output }] } };
  }
};

const toMessage = (turn: ConversationTurn): Message => ({
  role: turn.role,
  content: turn.blocks.map(toContent),
});

/** `additionalModelRequestFields` for an effort, per family; undefined when none is sent. */
const reasoningFields = (
  family: Family,
  effort: ReasoningEffort,
  maxOutputTokens: number,
  turns: readonly ConversationTurn[]
): { fields?: Record<string, unknown>; maxTokens?: number } | undefined => {
  switch (family) {
    case 'claude': {
      // As for Anthropic: thinking blocks are not carried, so a tool-loop continuation has none.
      if (continuesToolUse(turns)) return {};
      const { budgetTokens, maxTokens } = thinkingBudget(effort, maxOutputTokens);
      return { fields: { thinking: { type: 'enabled', budget_tokens: budgetTokens } }, maxTokens };
    }
    case 'gpt-oss':
      return { fields: { reasoning_effort: effort === 'minimal' ? 'low' : effort } };
    default:
      return undefined;
  }
};

const FINISH = new Map<string, FinishReason>([
  ['tool_use', 'tool_calls'],
  ['max_tokens', 'length'],
  ['model_context_window_exceeded', 'length'],
  ['guardrail_intervened', 'refusal'],
  ['content_filtered', 'refusal'],
]);

const malformed = (detail: string): ModelFailedError =>
  new ModelFailedError(`${PROVIDER} 200: malformed response (${detail})`);

const toResponse = (
  output: ConverseCommandOutput,
  codec: ToolNameCodec,
  model: string
): ModelResponse => {
  const content = output.output?.message?.content;
  if (!Array.isArray(content)) throw malformed('no output message');
  if (typeof output.usage?.inputTokens !== 'number') throw malformed('no usage');
  const text: string[] = [];
  const toolCalls: ModelToolCall[] = [];
  for (const block of content) {
    // reasoningContent is the model's reasoning, not its answer: never part of the text.
    if (typeof block.text === 'string') text.push(block.text);
    else if (block.toolUse !== undefined) {
      toolCalls.push({
        id: block.toolUse.toolUseId ?? '',
        name: codec.decode(block.toolUse.name ?? ''),
        arguments: JSON.stringify(block.toolUse.input ?? {}),
      });
    }
  }
  return {
    text: text.join(''),
    toolCalls,
    usage: splitCacheUsage({
      uncached: output.usage.inputTokens,
      cacheRead: output.usage.cacheReadInputTokens,
      cacheWrite: output.usage.cacheWriteInputTokens,
      output: output.usage.outputTokens,
    }),
    model,
    finishReason:
      FINISH.get(output.stopReason ?? '') ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
  };
};

/** Bedrock's typed exceptions by name; anything else falls back to the status-based mapping. */
const RETRYABLE = new Set([
  'ThrottlingException',
  'ServiceUnavailableException',
  'InternalServerException',
  'ModelTimeoutException',
  'ModelNotReadyException',
  'TimeoutError',
]);
const FAILED = new Set([
  'ValidationException',
  'AccessDeniedException',
  'ResourceNotFoundException',
  'ModelErrorException',
  'ServiceQuotaExceededException',
]);

const toBedrockError = (error: unknown): Error => {
  const name = (error as Error)?.name ?? '';
  const status = (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
  const message = ((error as Error)?.message ?? String(error)).slice(0, 500);
  const reason = `${PROVIDER}${status === undefined ? '' : ` ${status}`} ${name}: ${message}`;
  // A 2xx the SDK could not deserialize (not JSON, not the Converse shape).
  if (status !== undefined && status >= 200 && status < 300) {
    return new ModelFailedError(`${PROVIDER} ${status}: unreadable response body (${name})`, {
      cause: error,
    });
  }
  if (RETRYABLE.has(name)) return new ModelRetryableError(reason, { cause: error });
  if (FAILED.has(name)) return new ModelFailedError(reason, { cause: error });
  return toModelError(PROVIDER, error);
};

/**
 * Amazon Bedrock's Converse API, on the AWS SDK, SDK retries off (the state machine retries).
 * Requests are signed with the configured credentials or, in the cloud, the Lambda role's.
 *
 * - Caching: cache points after the system prompt and after the tool definitions, for the model
 *   families that support them (see `cachePointsFor`). Bedrock has no cache-key parameter.
 * - Usage: `inputTokens` excludes cache reads and writes on Bedrock; the port's `inputTokens` is
 *   the sum, `cachedInputTokens` the reads.
 * - Reasoning: Claude models take an extended-thinking budget (with the same tool-loop caveat as
 *   the Anthropic adapter), gpt-oss models a `reasoning_effort` (`minimal` sent as `low`); any
 *   other model asked for an effort is refused before a call.
 */
export class BedrockConverseModel implements Model {
  readonly #options: BedrockModelOptions;
  readonly #client: BedrockRuntimeClient;

  constructor(options: BedrockModelOptions) {
    this.#options = options;
    this.#client = new BedrockRuntimeClient({
      region: options.region,
      ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
      ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
      maxAttempts: 1,
      // Options for the SDK's own HTTP/2 handler: a stalled call fails as a TimeoutError.
      requestHandler: { requestTimeout: options.timeoutMs, disableConcurrentStreams: true },
    });
  }

  async invoke(request: ModelRequest): Promise<ModelResponse> {
    const model = request.model ?? this.#options.model;
    const codec = toolCodec(PROVIDER, request.tools);
    const input = this.#input(request, model, codec);
    let output: ConverseCommandOutput;
    try {
      output = await this.#client.send(new ConverseCommand(input));
    } catch (error) {
      throw toBedrockError(error);
    }
    return toResponse(output, codec, model);
  }

  #input(request: ModelRequest, model: string, codec: ToolNameCodec): ConverseCommandInput {
    const family = familyOf(model);
    const turns = toConversation(request.input, codec);
    const effort = request.reasoningEffort;
    const reasoning =
      effort === undefined
        ? {}
        : this.#options.supportsReasoning
          ? reasoningFields(family, effort, request.maxOutputTokens, turns)
          : undefined;
    if (effort !== undefined && reasoning === undefined) refuseReasoning(PROVIDER, model, effort);
    const cache = cachePointsFor(model);
    const system: SystemContentBlock[] =
      request.instructions === '' ? [] : [{ text: request.instructions }];
    if (cache.system && system.length > 0) system.push(CACHE_POINT);
    const tools: Tool[] = request.tools.map((tool) => ({
      toolSpec: {
        name: codec.encode(tool.name),
        description: tool.description,
        inputSchema: { json: tool.parameters as never },
      },
    }));
    if (cache.tools && tools.length > 0) tools.push(CACHE_POINT);
    return {
      modelId: model,
      ...(system.length === 0 ? {} : { system }),
      messages: turns.map(toMessage),
      ...(tools.length === 0 ? {} : { toolConfig: { tools } }),
      inferenceConfig: { maxTokens: reasoning?.maxTokens ?? request.maxOutputTokens },
      ...(reasoning?.fields === undefined
        ? {}
        : { additionalModelRequestFields: reasoning.fields as never }),
    };
  }
}
