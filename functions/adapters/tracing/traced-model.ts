import { type Attributes, SpanKind } from '@opentelemetry/api';
import { priceOf } from '../../core/loop/prices.js';
import { costOf, type ModelPrice } from '../../core/loop/usage.js';
import type { Model, ModelInputItem, ModelRequest, ModelResponse } from '../../core/ports/model.js';
import { GEN_AI, HARNESS } from './attributes.js';
import { type ActiveTracing, within } from './tracing.js';

export interface TracedModelOptions {
  /** The provider as the conventions name it (`openai`, `anthropic`, `aws.bedrock`, ...). */
  provider: string;
  /** The deployment's model id, when the request names none. */
  defaultModel: string | undefined;
  prices: Record<string, ModelPrice> | undefined;
}

/** The request's messages in the conventions' shape (`gen_ai.input.messages`), every text redacted. */
const inputMessages = (input: readonly ModelInputItem[], redact: (text: string) => string) =>
  input.map((item) => {
    if (item.type === 'message') {
      return { role: item.role, parts: [{ type: 'text', content: redact(item.text) }] };
    }
    if (item.type === 'tool_call') {
      return {
        role: 'assistant',
        parts: [
          {
            type: 'tool_call',
            id: item.callId,
            name: item.name,
            arguments: redact(item.arguments),
          },
        ],
      };
    }
    return {
      role: 'tool',
      parts: [{ type: 'tool_call_response', id: item.callId, response: redact(item.output) }],
    };
  });

const outputMessages = (response: ModelResponse, redact: (text: string) => string) => [
  {
    role: 'assistant',
    finish_reason: response.finishReason,
    parts: [
      ...(response.text === '' ? [] : [{ type: 'text', content: redact(response.text) }]),
      ...response.toolCalls.map((call) => ({
        type: 'tool_call',
        id: call.id,
        name: call.name,
        arguments: redact(call.arguments),
      })),
    ],
  },
];

const requestAttributes = (
  request: ModelRequest,
  model: string | undefined,
  options: TracedModelOptions,
  tracing: ActiveTracing
): Attributes => ({
  [GEN_AI.operation]: 'chat',
  [GEN_AI.provider]: options.provider,
  [GEN_AI.system]: options.provider,
  ...(model === undefined ? {} : { [GEN_AI.requestModel]: model }),
  [GEN_AI.maxTokens]: request.maxOutputTokens,
  ...(request.reasoningEffort === undefined
    ? {}
    : { [HARNESS.reasoningEffort]: request.reasoningEffort }),
  ...(tracing.captureContent
    ? {
        [GEN_AI.systemInstructions]: JSON.stringify([
          { type: 'text', content: tracing.redact(request.instructions) },
        ]),
        [GEN_AI.inputMessages]: JSON.stringify(inputMessages(request.input, tracing.redact)),
      }
    : {}),
});

/**
 * The model with a `chat` span per call, in the GenAI conventions: model, provider, tokens, cost
 * when the deployment prices the model, finish reason and latency; prompt and completion only
 * when content capture is on, through the transcript's redaction.
 */
export const tracedModel = (
  model: Model,
  tracing: ActiveTracing,
  options: TracedModelOptions
): Model => ({
  invoke: (request) => {
    const requested = request.model ?? options.defaultModel;
    // The conventions' name is `chat <request model>`; with none asked for, the one that answered.
    const span = tracing.tracer.startSpan(requested === undefined ? 'chat' : `chat ${requested}`, {
      kind: SpanKind.CLIENT,
      attributes: requestAttributes(request, requested, options, tracing),
    });
    const started = performance.now();
    return within(tracing, span, async () => {
      const response = await model.invoke(request);
      const price = priceOf(options.prices, response.model, requested);
      if (requested === undefined) span.updateName(`chat ${response.model}`);
      span.setAttributes({
        [GEN_AI.responseModel]: response.model,
        [GEN_AI.finishReasons]: [response.finishReason],
        [GEN_AI.inputTokens]: response.usage.inputTokens,
        [GEN_AI.outputTokens]: response.usage.outputTokens,
        [GEN_AI.cacheReadTokens]: response.usage.cachedInputTokens,
        [HARNESS.latencyMs]: Math.round(performance.now() - started),
        ...(price === undefined ? {} : { [HARNESS.costUsd]: costOf(response.usage, price) }),
        ...(tracing.captureContent
          ? { [GEN_AI.outputMessages]: JSON.stringify(outputMessages(response, tracing.redact)) }
          : {}),
      });
      return response;
    });
  },
});
