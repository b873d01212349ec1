import * as z from 'zod';
import type { ToolDefinition } from '../ports/model.js';
import type { ExternalTool, ToolArguments } from '../ports/tool-runner.js';
import { INTRINSICS } from './intrinsics/index.js';
import type { IntrinsicTool } from './tool.js';

export type RegisteredTool =
  | { execution: 'intrinsic'; tool: IntrinsicTool }
  | { execution: 'external'; tool: ExternalTool };

/** Each schema's JSON Schema as JSON text, converted once: every turn hands the model every tool's. */
const converted = new WeakMap<z.ZodType, string>();

/** The JSON Schema the model sees for a tool's arguments (the input side: defaults optional). */
export const toolParameters = (schema: z.ZodType): Record<string, unknown> => {
  let text = converted.get(schema);
  if (text === undefined) {
    const { $schema: _dialect, ...parameters } = z.toJSONSchema(schema, { io: 'input' });
    text = JSON.stringify(parameters);
    converted.set(schema, text);
  }
  // Parsed anew: whoever builds a request from it may change it.
  return JSON.parse(text) as Record<string, unknown>;
};

/** A tool's arguments defined by a zod schema (a tool written in TypeScript). */
export const zodArguments = (schema: z.ZodType): ToolArguments => ({
  get parameters() {
    return toolParameters(schema);
  },
  parse: (value) => {
    const parsed = schema.safeParse(value);
    return parsed.success
      ? { ok: true, value: parsed.data }
      : { ok: false, message: z.prettifyError(parsed.error).replaceAll('\n', '; ') };
  },
});

/** The parameters and check of any registered tool. */
export const argumentsOf = (registered: RegisteredTool): ToolArguments =>
  registered.execution === 'external' ? registered.tool.input : zodArguments(registered.tool.input);

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
      .map((registered) => ({
        name: registered.tool.name,
        description: registered.tool.description,
        parameters: argumentsOf(registered).parameters,
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
