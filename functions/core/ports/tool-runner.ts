import type * as z from 'zod';

/** A tool that lives outside the core (an HTTP tool, an MCP tool, ...). */
export interface ExternalTool {
  name: string;
  description: string;
  /** Validates the arguments before the tool runs; its JSON Schema is what the model sees. */
  input: z.ZodType;
  /** Only idempotent tools may be retried; anything else is attempted once. */
  idempotent: boolean;
}

export interface ToolRunResult {
  output: string;
  isError: boolean;
}

/**
 * Runs external tools. `run` is called only with arguments that passed the tool's schema.
 * It SHOULD turn a tool's own failure into `{ isError: true }`, and MAY throw for
 * infrastructure faults (the invoker then records a `tool.not_retried` error result for a
 * non-idempotent tool).
 */
export interface ToolRunner {
  tools(): readonly ExternalTool[];
  run(
    name: string,
    args: unknown,
    context: { taskId: string; callId: string }
  ): Promise<ToolRunResult>;
}
