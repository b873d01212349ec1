import * as z from 'zod';

/** The model port's response, validated when it is read back from the store. */
export const ModelResponseSchema = z.strictObject({
  text: z.string(),
  toolCalls: z.array(z.strictObject({ id: z.string(), name: z.string(), arguments: z.string() })),
  usage: z.strictObject({
    inputTokens: z.int().min(0),
    cachedInputTokens: z.int().min(0),
    outputTokens: z.int().min(0),
  }),
  model: z.string(),
  finishReason: z.enum(['stop', 'tool_calls', 'length', 'refusal']),
});
