import { ScriptExhaustedError } from '../errors.js';
import type { Model, ModelRequest, ModelResponse, ModelToolCall } from '../ports/model.js';

/** One scripted reply: text and, optionally, tool calls (arguments as objects or raw JSON). */
export interface ScriptedReply {
  text?: string | undefined;
  toolCalls?: ReadonlyArray<{ id?: string; name: string; arguments: unknown }> | undefined;
}

/** A model response with the usage the reference's fake reports (100 in, 10 out). */
export const scripted = (reply: ScriptedReply, index: number): ModelResponse => {
  const toolCalls: ModelToolCall[] = (reply.toolCalls ?? []).map((call, position) => ({
    id: call.id ?? `call-${index + 1}-${position + 1}`,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
  return {
    text: reply.text ?? '',
    toolCalls,
    usage: { inputTokens: 100, cachedInputTokens: 0, outputTokens: 10 },
    model: 'scripted',
    finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
  };
};

/**
 * A model that plays a script: the replies in order, one per call. It records every request it
 * saw, and fails loudly (ScriptExhaustedError) when asked for more than the script holds, so a
 * test never passes on an unplanned model call.
 */
export class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  readonly #replies: ScriptedReply[];

  constructor(replies: readonly ScriptedReply[] = []) {
    this.#replies = [...replies];
  }

  /** Adds replies to the end of the script. */
  push(...replies: ScriptedReply[]): this {
    this.#replies.push(...replies);
    return this;
  }

  get remaining(): number {
    return this.#replies.length - this.requests.length;
  }

  async invoke(request: ModelRequest): Promise<ModelResponse> {
    const index = this.requests.length;
    const reply = this.#replies[index];
    if (reply === undefined) {
      throw new ScriptExhaustedError(
        `the scripted model has ${this.#replies.length} replies and was asked for reply ${index + 1}`
      );
    }
    this.requests.push(request);
    return scripted(reply, index);
  }
}
