import * as z from 'zod';
import type { ToolDefinition } from '../ports/model.js';
import type { ExternalTool } from '../ports/tool-runner.js';
import { INTRINSICS } from './intrinsics/index.js';
import type { IntrinsicTool } from './tool.js';

export type RegisteredTool =
  | { execution: 'intrinsic'; tool: IntrinsicTool }
  | { execution: 'external'; tool: ExternalTool };

/** The JSON Schema the model sees for a tool's arguments (the input side: defaults optional). */
export const toolParameters = (schema: z.ZodType): Record<string, unknown> => {
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(schema, { io: 'input' });
  return parameters;
};

/**
 * Every tool the model may call: the intrinsics plus the tool runner's. The registry and schema
 * validation are the single enforcement point for everything the harness does beyond the model.
 */
export class ToolRegistry {
  readonly #tools = new Map<string, RegisteredTool>();

  constructor(
    external: readonly ExternalTool[] = [],
    intrinsics: readonly IntrinsicTool[] = INTRINSICS
  ) {
    for (const tool of intrinsics) this.#tools.set(tool.name, { execution: 'intrinsic', tool });
    for (const tool of external) {
      if (this.#tools.has(tool.name)) throw new Error(`tool ${tool.name} is registered twice`);
      this.#tools.set(tool.name, { execution: 'external', tool });
    }
  }

  get(name: string): RegisteredTool | undefined {
    return this.#tools.get(name);
  }

  /** Sorted by name so the cached prompt prefix is byte-identical from turn to turn. */
  definitions(): ToolDefinition[] {
    return [...this.#tools.values()]
      .map(({ tool }) => ({
        name: tool.name,
        description: tool.description,
        parameters: toolParameters(tool.input),
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
