import type {
  FinishReason,
  ModelRequest,
  ModelToolCall,
  ModelUsage,
} from '../../core/ports/model.js';
import type { ProviderModelOptions } from './provider-options.js';
import { refuseReasoning } from './reasoning.js';
import { ToolNameCodec } from './tool-names.js';

/** What both OpenAI request mappers start from. */
export interface PreparedRequest {
  model: string;
  codec: ToolNameCodec;
}

/**
 * The model to call (the task's own wins over the deployment's) and this request's tool-name
 * codec. A reasoning effort the configured model cannot honour is refused here, before any
 * HTTP call, so the task fails with that reason instead of silently running without it.
 */
export const prepareRequest = (
  provider: string,
  options: ProviderModelOptions,
  request: ModelRequest
): PreparedRequest => {
  const model = request.model || options.model;
  if (request.reasoningEffort !== undefined && !options.supportsReasoning) {
    refuseReasoning(provider, model, request.reasoningEffort);
  }
  return { model, codec: new ToolNameCodec(request.tools.map((tool) => tool.name)) };
};

/** A call as the loop sees it: the registry's name back, the arguments text untouched. */
export const decodeCall = (
  codec: ToolNameCodec,
  call: { id: string; name: string; arguments: string }
): ModelToolCall => ({ id: call.id, name: codec.decode(call.name), arguments: call.arguments });

/** Compatible servers may omit usage (or its cached part): counted as zero, not a failure. */
export const usageOf = (
  input: number | null | undefined,
  cached: number | null | undefined,
  output: number | null | undefined
): ModelUsage => ({
  inputTokens: input ?? 0,
  cachedInputTokens: cached ?? 0,
  outputTokens: output ?? 0,
});

/**
 * One precedence for both APIs: structured calls win (the loop must run them), then a cut-off
 * answer, then a refusal (a refusal part, or the provider's content filter).
 */
export const finishReasonOf = (signals: {
  calls: number;
  truncated: boolean;
  refused: boolean;
}): FinishReason => {
  if (signals.calls > 0) return 'tool_calls';
  if (signals.truncated) return 'length';
  if (signals.refused) return 'refusal';
  return 'stop';
};

/** The answer's text; a refusal with no other text is the text, so the participant sees why. */
export const textOf = (text: string, refusal: string): string => text || refusal;
