import type { ErrorCode } from '../errors.js';
import type { ModelToolCall } from '../ports/model.js';
import type { ToolRunner } from '../ports/tool-runner.js';
import type { Command } from './commands.js';
import { argumentsOf, type ToolRegistry } from './registry.js';
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

/**
 * The validating invoker. An unknown tool or invalid arguments become an error result the model
 * reads next turn; the tool never runs and the loop goes on. A non-idempotent external tool that
 * throws is not retried (its failure becomes `tool.not_retried`); an idempotent one rethrows so
 * the state machine's retry policy can run it again.
 */
export const invokeTool = async (
  call: ModelToolCall,
  options: InvokeOptions
): Promise<Invocation> => {
  const registered = options.registry.get(call.name);
  if (registered === undefined) return failure('tool.not_found', `no tool named ${call.name}`);

  const raw = parseArguments(call.arguments);
  if (!raw.ok) return failure('tool.invalid_arguments', raw.message);
  const parsed = argumentsOf(registered).parse(raw.value);
  if (!parsed.ok) return failure('tool.invalid_arguments', parsed.message);

  if (registered.execution === 'intrinsic') {
    const outcome = registered.tool.run(parsed.value, options.context);
    return outcome.ok
      ? { kind: 'command', command: outcome.command, text: outcome.result }
      : failure(outcome.code, outcome.message);
  }

  if (options.runner === undefined) return failure('tool.not_found', `no runner for ${call.name}`);
  try {
    const result = await options.runner.run(call.name, parsed.value, {
      taskId: options.taskId,
      callId: call.id,
    });
    return {
      kind: 'output',
      text: result.output,
      isError: result.isError,
      ...(result.whole === undefined ? {} : { whole: result.whole }),
    };
  } catch (error) {
    if (registered.tool.idempotent) throw error;
    return failure(
      'tool.not_retried',
      `${call.name} failed and is not retried: ${(error as Error).message}`
    );
  }
};
