import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { ScriptedModel } from '../../core/testing/scripted-model.js';

/**
 * A model script: the replies, in order, each with optional text and tool calls. Used to replay
 * a scenario against a running stack (`TINY_HARNESS_MODEL=scripted`,
 * `TINY_HARNESS_MODEL_SCRIPT=<file>`). Documented in docs/configuration.md.
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
    })
  ),
});
export type ModelScript = z.infer<typeof ModelScriptSchema>;

export const loadModelScript = (path: string): ScriptedModel => {
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
  return new ScriptedModel(parsed.data.replies);
};
