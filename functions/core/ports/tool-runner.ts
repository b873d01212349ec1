/** The outcome of checking a call's arguments: the value the tool runs with, or why not. */
export type ParsedArguments = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * A tool's arguments as the harness knows them: the JSON Schema the model sees and the check the
 * invoker runs before the call. External tools describe themselves in JSON Schema (MCP's
 * `inputSchema`), so the check is whatever validates that schema, not necessarily zod.
 */
export interface ToolArguments {
  parameters: Record<string, unknown>;
  parse(value: unknown): ParsedArguments;
}

/** The roles whose participants may approve a call: never a watcher, and an assignee only when human. */
export const APPROVER_ROLES = ['admin', 'reporter', 'assignee'] as const;
export type ApproverRole = (typeof APPROVER_ROLES)[number];

/**
 * A call of this tool waits for a participant's approval before it runs: who may give it, and how
 * long the task waits before the call counts as rejected. Set by the adapter from its
 * configuration (and, for MCP, the tool's annotations); the core knows nothing of where it came from.
 */
export interface ToolApproval {
  approvers: readonly ApproverRole[];
  timeoutSeconds: number;
}

/** A tool that lives outside the core (an HTTP tool, an MCP tool, ...). */
export interface ExternalTool {
  name: string;
  description: string;
  input: ToolArguments;
  /** Only idempotent tools may be retried; anything else is attempted once. */
  idempotent: boolean;
  /** Null: a call runs as soon as its arguments pass. */
  approval: ToolApproval | null;
}

export interface ToolRunResult {
  /** What the transcript (and so the model) reads: cut to the tool's bound, its size recorded. */
  output: string;
  isError: boolean;
  /**
   * The whole result when `output` is cut: stored in the call's record (the auditor's timeline
   * names it), never shown to the model.
   */
  whole?: string;
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
