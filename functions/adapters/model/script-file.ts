import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import * as z from 'zod';
import type { Model, ModelRequest, ModelResponse } from '../../core/ports/model.js';
import { ScriptedModel } from '../../core/testing/scripted-model.js';

/** The longest a scripted reply may keep its caller waiting: within the model's default limit. */
export const MAX_SCRIPT_DELAY_MS = 30_000;

/**
 * A model script: the replies, in order, each with optional text and tool calls, and optionally
 * how long the model takes to give it. Used to replay a scenario against a running stack
 * (`TINY_HARNESS_MODEL=scripted`, `TINY_HARNESS_MODEL_SCRIPT=<file>`). Documented in
 * docs/configuration.md.
 */
export const ModelScriptSchema = z.strictObject({
  replies: z.array(
    z.strictObject({
      text: z.string().optional(),
      toolCalls: z
        .array(
          z.strictObject({
            id: z.string().min(1).optional(),
            name: z.string().min(1),
            arguments: z.unknown(),
          })
        )
        .optional(),
      delayMs: z.int().min(0).max(MAX_SCRIPT_DELAY_MS).optional(),
    })
  ),
});
export type ModelScript = z.infer<typeof ModelScriptSchema>;

/**
 * The script played with each reply's delay: a slow model is how a replay makes one agent answer
 * after another has had its say, as a real one would. The delay is the adapter's, so the core's
 * scripted model stays free of timers.
 */
class ScriptFileModel implements Model {
  readonly #script: ScriptedModel;
  readonly #delays: readonly number[];

  constructor(script: ModelScript) {
    this.#script = new ScriptedModel(script.replies);
    this.#delays = script.replies.map((reply) => reply.delayMs ?? 0);
  }

  async invoke(request: ModelRequest): Promise<ModelResponse> {
    // The reply is claimed when the call is made, so calls that overlap keep the script's order.
    const delay = this.#delays[this.#script.requests.length] ?? 0;
    const reply = this.#script.invoke(request);
    if (delay > 0) await sleep(delay);
    return reply;
  }
}

export const loadModelScript = (path: string): Model => {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read the model script ${path}: ${(error as Error).message}`);
  }
  const parsed = ModelScriptSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`the model script ${path} is invalid: ${z.prettifyError(parsed.error)}`);
  }
  return new ScriptFileModel(parsed.data);
};
