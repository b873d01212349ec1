import type { ErrorCode } from '../errors.js';
import type { ModelToolCall } from '../ports/model.js';
import type { ToolRunner, ToolRunResult } from '../ports/tool-runner.js';
import type { Command } from './commands.js';
import { argumentsOf, type ToolRegistry } from './registry.js';
import { tooLargeFor } from './task-room.js';
import { errorResultText, type IntrinsicContext } from './tool.js';

export type Invocation =
  | { kind: 'error'; code: ErrorCode; text: string }
  | { kind: 'command'; command: Command; text: string }
  | {
      kind: 'output';
      text: string;
      isError: boolean;
      /** The whole result when `text` is cut (kept in the call's record only). */
      whole?: string;
    };

const failure = (code: ErrorCode, message: string): Invocation => ({
  kind: 'error',
  code,
  text: errorResultText(code, message),
});

/** A call's raw arguments as JSON (nothing is `{}`). */
export const parseArguments = (
  raw: string
): { ok: true; value: unknown } | { ok: false; message: string } => {
  if (raw.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch (error) {
    return { ok: false, message: `arguments are not JSON: ${(error as Error).message}` };
  }
};

export interface InvokeOptions {
  registry: ToolRegistry;
  runner: ToolRunner | undefined;
  context: IntrinsicContext;
  taskId: string;
}

/** A call that passed validation and runs outside the harness: the runner's to perform. */
export interface ExternalCall {
  kind: 'external';
  runner: ToolRunner;
  name: string;
  arguments: unknown;
  /** Only an idempotent tool's infrastructure failure is thrown for the state machine to retry. */
  idempotent: boolean;
}

/**
 * The validating invoker's decision on a call (pure). An unknown tool or invalid arguments
 * become an error result the model reads next turn; the tool never runs and the loop goes on. An
 * intrinsic runs here (it only decides a command); an external tool is handed to the runner.
 */
export const prepareCall = (
  call: ModelToolCall,
  options: Pick<InvokeOptions, 'registry' | 'runner' | 'context'>
): Invocation | ExternalCall => {
  const registered = options.registry.get(call.name);
  if (registered === undefined) return failure('tool.not_found', `no tool named ${call.name}`);

  const raw = parseArguments(call.arguments);
  if (!raw.ok) return failure('tool.invalid_arguments', raw.message);
  const parsed = argumentsOf(registered).parse(raw.value);
  if (!parsed.ok) return failure('tool.invalid_arguments', parsed.message);

  if (registered.execution === 'intrinsic') {
    const run = registered.tool.run(parsed.value, options.context);
    const outcome = run.ok ? (tooLargeFor(run.command, options.context.extension) ?? run) : run;
    return outcome.ok
      ? { kind: 'command', command: outcome.command, text: outcome.result }
      : failure(outcome.code, outcome.message);
  }
  const { runner } = options;
  if (runner === undefined) return failure('tool.not_found', `no runner for ${call.name}`);
  return {
    kind: 'external',
    runner,
    name: call.name,
    arguments: parsed.value,
    idempotent: registered.tool.idempotent,
  };
};

/** The result of an external call the runner answered. */
export const outputOf = (result: ToolRunResult): Invocation => ({
  kind: 'output',
  text: result.output,
  isError: result.isError,
  ...(result.whole === undefined ? {} : { whole: result.whole }),
});

/** A non-idempotent external call whose runner failed: it is not retried. */
export const notRetried = (name: string, error: Error): Invocation =>
  failure('tool.not_retried', `${name} failed and is not retried: ${error.message}`);
