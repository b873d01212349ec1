import type * as z from 'zod';
import type { ErrorCode } from '../errors.js';
import type { BudgetAmounts } from '../ports/task-store.js';
import type { TaskExtension } from '../task/extension.schema.js';
import type { Command } from './commands.js';

/** What an intrinsic sees: the task as it stands and who asked. */
export interface IntrinsicContext {
  extension: TaskExtension;
  /** The participant the current request asserted (the last accepted message's sender). */
  actor: string | null;
  /** Ids of the remote agents a child may be delegated to. */
  agentIds: readonly string[];
  /** Whether this turn already applied an ask_participant. */
  askedThisTurn: boolean;
  /** This harness's participant id: who meets a criterion. */
  agentId: string;
  /** Ids of the task's artifacts (evidence may link them). */
  artifactIds: readonly string[];
  /** The time of the call (ISO 8601): when a criterion is met. */
  now: string;
  /** What the task's budget has left for it and its sub-tasks (absent: it has no budget). */
  budgetLeft?: BudgetAmounts | undefined;
}

export type ToolOutcome =
  | { ok: false; code: ErrorCode; message: string }
  | { ok: true; command: Command; result: string };

export interface IntrinsicTool<S extends z.ZodType = z.ZodType> {
  name: string;
  /** One line: what the model reads in its tool list. */
  description: string;
  input: S;
  idempotent: boolean;
  run(args: z.output<S>, context: IntrinsicContext): ToolOutcome;
}

/** Declares an intrinsic with its argument type inferred from its schema. */
export const defineIntrinsic = <S extends z.ZodType>(tool: IntrinsicTool<S>): IntrinsicTool =>
  tool as never;

export const refuse = (code: ErrorCode, message: string): ToolOutcome => ({
  ok: false,
  code,
  message,
});

/** The text the model reads for an error result. */
export const errorResultText = (code: ErrorCode, message: string): string => `[${code}] ${message}`;
