import type { ReasoningEffort } from '../task/extension.schema.js';

/** One item of the per-turn model input, after the leading context message. */
export type ModelInputItem =
  | {
      type: 'message';
      role: 'user' | 'assistant';
      text: string;
      /**
       * A participant's message: the A2A message id it came in, for a model that answers by it
       * (the conformance model). Providers do not send it.
       */
      messageId?: string;
    }
  | { type: 'tool_call'; callId: string; name: string; arguments: string }
  | { type: 'tool_result'; callId: string; output: string };

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema (2020-12) of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  /** The static prefix: byte-identical across turns so providers can cache it. */
  instructions: string;
  input: ModelInputItem[];
  /** Sorted by name, so the cached prefix does not move. */
  tools: ToolDefinition[];
  /** The task id: the provider's prompt-cache key. */
  cacheKey: string;
  maxOutputTokens: number;
  model?: string | undefined;
  reasoningEffort?: ReasoningEffort | undefined;
}

export interface ModelToolCall {
  id: string;
  name: string;
  /** The raw JSON arguments text as the model produced it (validated by the invoker). */
  arguments: string;
}

export interface ModelUsage {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'refusal';

export interface ModelResponse {
  text: string;
  /** Structured tool calls only: the loop never reads a call out of text. */
  toolCalls: ModelToolCall[];
  usage: ModelUsage;
  model: string;
  finishReason: FinishReason;
}

/**
 * A language model. Implementations MUST throw `ModelRetryableError` for throttling, 5xx and
 * timeouts, and `ModelFailedError` for anything else; they MUST NOT retry on their own.
 */
export interface Model {
  invoke(request: ModelRequest): Promise<ModelResponse>;
}
