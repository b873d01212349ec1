/**
 * The interpreter's own `States.Timeout` error class. Its `Retry`/`Catch` code excludes timeouts
 * from the `States.TaskFailed` wildcard with `instanceof StatesTimeoutError` (as AWS does), but
 * the class is not exported. Our token registry enforces callback timeouts itself, so to keep
 * that AWS rule we fail the state with an instance of the real class, obtained once by letting
 * a throwaway one-state machine time out after 1 ms.
 */
import { StateMachine } from 'aws-local-stepfunctions';

type TimeoutErrorClass = new () => Error;

let probe: Promise<TimeoutErrorClass | undefined> | undefined;

const captureTimeoutClass = async (): Promise<TimeoutErrorClass | undefined> => {
  const machine = new StateMachine(
    {
      StartAt: 'Probe',
      States: {
        // 0.001 s: the interpreter only checks truthiness, and validation is off for the probe.
        Probe: {
          Type: 'Task',
          Resource: 'arn:aws:states:::local:probe',
          TimeoutSeconds: 0.001,
          End: true,
        },
      },
    },
    { validationOptions: { noValidate: true } }
  );
  const run = machine.run(null, {
    overrides: { taskResourceLocalHandlers: { Probe: () => new Promise<never>(() => {}) } },
  });
  try {
    await run.result;
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof Error && cause.name === 'States.Timeout') {
      return cause.constructor as TimeoutErrorClass;
    }
  }
  return undefined;
};

/** A `States.Timeout` error the interpreter recognises as its own (a plain one if the probe failed). */
export async function statesTimeoutError(message: string): Promise<Error> {
  probe ??= captureTimeoutClass();
  const TimeoutError = await probe;
  const error = TimeoutError ? new TimeoutError() : new Error();
  error.name = 'States.Timeout';
  error.message = message;
  return error;
}
