/**
 * Errors of two kinds. `SfnServiceError`s are what the Step Functions API answers (the facade
 * sends their `name` as `__type`, which the SDK turns into its typed exception). State errors are
 * what a state fails with inside an execution: the interpreter matches `Retry`/`Catch` on
 * `Error.name`, and reads optional `isRetryable`/`isCatchable` flags.
 */

export const SFN_ERROR_NAMES = [
  'ExecutionAlreadyExists',
  'ExecutionDoesNotExist',
  'InvalidArn',
  'InvalidDefinition',
  'InvalidExecutionInput',
  'InvalidName',
  'InvalidOutput',
  'InvalidToken',
  'StateMachineAlreadyExists',
  'StateMachineDoesNotExist',
  'TaskDoesNotExist',
  'TaskTimedOut',
  'ValidationException',
] as const;

export type SfnErrorName = (typeof SFN_ERROR_NAMES)[number];

export class SfnServiceError extends Error {
  override readonly name: SfnErrorName;

  constructor(name: SfnErrorName, message: string) {
    super(message);
    this.name = name;
  }
}

export const isSfnServiceError = (error: unknown): error is SfnServiceError =>
  error instanceof SfnServiceError;

/** An error whose `name` is a Step Functions error name (`States.Timeout`, `Agent.Transient`). */
export function stateError(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

/**
 * Fails whatever is in flight when an execution is stopped or the engine closes. Neither
 * retryable nor catchable: a `Retry` on `States.ALL` would otherwise run the state again (and
 * park again) after the interpreter has already been aborted.
 */
export function abortedError(cause: string): Error {
  return Object.assign(stateError('States.Aborted', cause), {
    isRetryable: false,
    isCatchable: false,
  });
}

export const isAbortedError = (error: unknown): boolean =>
  error instanceof Error && error.name === 'States.Aborted';

/** The `Error`/`Cause` pair of anything thrown, as Step Functions reports it. */
export function errorAndCause(error: unknown): { error: string; cause: string } {
  if (error instanceof Error) return { error: error.name, cause: error.message };
  return { error: 'Error', cause: String(error) };
}

/**
 * A handler error as a Lambda-backed Task reports it: `Error` is the thrown error's name (the
 * Node runtime's `errorType`), `Cause` the runtime's JSON error document, so code that parses a
 * caught `Cause` behaves the same locally and in AWS.
 */
export function lambdaError(thrown: unknown): Error {
  const { error: errorType, cause: errorMessage } = errorAndCause(thrown);
  const trace = thrown instanceof Error && thrown.stack ? thrown.stack.split('\n') : [];
  const wrapped = stateError(errorType, JSON.stringify({ errorType, errorMessage, trace }));
  const flags = thrown as { isRetryable?: unknown; isCatchable?: unknown } | null;
  if (flags && typeof flags === 'object') {
    if (flags.isRetryable === false) Object.assign(wrapped, { isRetryable: false });
    if (flags.isCatchable === false) Object.assign(wrapped, { isCatchable: false });
  }
  return wrapped;
}
