/**
 * The interpreter's `taskResourceLocalHandlers` for one execution: one wrapper per Task state
 * that calls our handler the way Step Functions would call the resource (the `lambda:invoke`
 * envelope, Lambda error documents, the 256 KiB payload cap), parks callback states on a task
 * token, and writes the Task events of the history.
 */
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import type { TaskStateInfo } from './asl-walk.js';
import type { ExecutionHistory } from './history.js';
import { statesTimeoutError } from './interpreter-timeout.js';
import { readReferencePath } from './json-path-lite.js';
import {
  abortedError,
  errorAndCause,
  isAbortedError,
  lambdaError,
  stateError,
} from './sfn-errors.js';
import { TaskEvents } from './task-events.js';
import type { TaskAttempt, TaskAttempts, TaskTickets } from './task-tickets.js';
import type { ParkOptions } from './token-registry.js';
import type { TaskHandler } from './types.js';

/** Step Functions' payload cap for a state's input or output. */
export const MAX_PAYLOAD_BYTES = 256 * 1024;

export interface CallbackPark {
  token: string;
  stateName: string;
  rawInput: unknown;
  parkedAt: Date;
  timeoutSeconds?: number;
  heartbeatSeconds?: number;
}

/** A park restored by rehydration: wait on the saved token instead of calling the handler. */
export interface ResumedPark {
  token: string;
  parkedAt: Date;
  timeoutSeconds?: number;
  heartbeatSeconds?: number;
}

/** What the wrappers need from their execution. */
export interface DispatchRun {
  readonly executionArn: string;
  readonly history: ExecutionHistory;
  readonly tickets: TaskTickets;
  readonly attempts: TaskAttempts;
  isStopped(): boolean;
  /** The token the `$$.Task.Token` getter minted while the interpreter built this state's input. */
  claimMintedToken(): string | undefined;
  mintToken(): string;
  takeResumedPark(stateName: string): ResumedPark | undefined;
  park(token: string, options: ParkOptions): Promise<unknown>;
  discardPark(token: string): void;
  /** A top-level state was entered: where a restart resumes the execution. */
  checkpointAt(stateName: string, rawInput: unknown): Promise<void>;
  persistPark(park: CallbackPark): Promise<void>;
  forgetPark(token: string, stateName: string, rawInput: unknown): Promise<void>;
}

type Wrapper = (input: unknown) => Promise<unknown>;

/** A JSON copy: handlers get and give what would cross the wire, never shared objects. */
const jsonCopy = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null));

const checkPayload = (value: unknown, stateName: string): void => {
  const bytes = Buffer.byteLength(JSON.stringify(value ?? null));
  if (bytes > MAX_PAYLOAD_BYTES) {
    throw Object.assign(
      stateError(
        'States.DataLimitExceeded',
        `The result of state ${stateName} is ${bytes} bytes, over the ${MAX_PAYLOAD_BYTES}-byte limit`
      ),
      { isRetryable: false }
    );
  }
};

const lambdaEnvelope = (payload: unknown) => ({
  Payload: payload,
  StatusCode: 200,
  ExecutedVersion: '$LATEST',
});

/** What the handler receives: the invoke `Payload` for `lambda:invoke`, else the effective input. */
const handlerInput = (info: TaskStateInfo, effective: unknown): unknown => {
  if (info.kind !== 'lambda-invoke') return effective;
  const params = effective as { Payload?: unknown } | null;
  return params && typeof params === 'object' && 'Payload' in params ? params.Payload : {};
};

/** A thrown value as the state error the interpreter matches on (its name, its flags). */
const asStateError = (info: TaskStateInfo, thrown: unknown): Error => {
  if (isAbortedError(thrown)) return thrown as Error;
  if (info.kind !== 'service') return lambdaError(thrown);
  const { error, cause } = errorAndCause(thrown);
  const flags = thrown as { isRetryable?: unknown; isCatchable?: unknown } | null;
  return Object.assign(stateError(error, cause), {
    ...(flags?.isRetryable === false ? { isRetryable: false } : {}),
    ...(flags?.isCatchable === false ? { isCatchable: false } : {}),
  });
};

const secondsFrom = (fixed: number | undefined, path: string | undefined, rawInput: unknown) => {
  if (fixed !== undefined) return fixed;
  if (path === undefined) return undefined;
  const value = readReferencePath(rawInput, path);
  return typeof value === 'number' && value > 0 ? value : undefined;
};

async function runPlain(
  run: DispatchRun,
  info: TaskStateInfo,
  handler: TaskHandler,
  effective: unknown,
  events: TaskEvents,
  attempt: TaskAttempt
): Promise<unknown> {
  events.scheduled(effective, info.timeoutSeconds);
  try {
    const ctx = { executionArn: run.executionArn, stateName: info.stateName };
    const returned = jsonCopy(await handler(jsonCopy(handlerInput(info, effective)), ctx));
    const result = info.kind === 'lambda-invoke' ? lambdaEnvelope(returned) : returned;
    checkPayload(result, info.stateName);
    if (attempt.close()) events.succeeded(result);
    return result;
  } catch (thrown) {
    const error = asStateError(info, thrown);
    if (attempt.close()) events.failed(error);
    throw error;
  }
}

async function runCallback(
  run: DispatchRun,
  info: TaskStateInfo,
  handler: TaskHandler,
  effective: unknown,
  rawInput: unknown,
  minted: string | undefined,
  events: TaskEvents,
  attempt: TaskAttempt
): Promise<unknown> {
  const resumed = info.topLevel ? run.takeResumedPark(info.stateName) : undefined;
  let token: string;
  let parked: Promise<unknown>;
  if (resumed) {
    // Rehydration: the handler ran before the restart; its events are in the saved history.
    token = resumed.token;
    parked = run.park(token, {
      executionArn: run.executionArn,
      ...(resumed.timeoutSeconds === undefined ? {} : { timeoutSeconds: resumed.timeoutSeconds }),
      ...(resumed.heartbeatSeconds === undefined
        ? {}
        : { heartbeatSeconds: resumed.heartbeatSeconds }),
      startedAtMs: resumed.parkedAt.getTime(),
    });
  } else {
    token = minted ?? run.mintToken();
    const timeoutSeconds = secondsFrom(info.timeoutSeconds, info.timeoutSecondsPath, rawInput);
    const heartbeatSeconds = secondsFrom(
      info.heartbeatSeconds,
      info.heartbeatSecondsPath,
      rawInput
    );
    events.scheduled(effective, timeoutSeconds, heartbeatSeconds);
    const parkedAt = new Date();
    // Parked before the handler runs: it may hand the token on and be answered at once.
    parked = run.park(token, {
      executionArn: run.executionArn,
      ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
      ...(heartbeatSeconds === undefined ? {} : { heartbeatSeconds }),
      startedAtMs: parkedAt.getTime(),
    });
    try {
      const ctx = { executionArn: run.executionArn, stateName: info.stateName, taskToken: token };
      const returned = jsonCopy(await handler(jsonCopy(handlerInput(info, effective)), ctx));
      events.submitted(info.kind === 'lambda-invoke' ? lambdaEnvelope(returned) : returned);
    } catch (thrown) {
      run.discardPark(token);
      const error = asStateError(info, thrown);
      if (attempt.close()) events.failed(error);
      throw error;
    }
    if (info.topLevel) {
      await run.persistPark({
        token,
        stateName: info.stateName,
        rawInput,
        parkedAt,
        ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
        ...(heartbeatSeconds === undefined ? {} : { heartbeatSeconds }),
      });
    }
  }
  try {
    // SendTaskSuccess has checked the output's size already (InvalidOutput).
    const output = await parked;
    if (attempt.close()) events.succeeded(output);
    return output;
  } catch (thrown) {
    if (isAbortedError(thrown)) throw thrown;
    const error =
      thrown instanceof Error ? thrown : stateError('States.TaskFailed', String(thrown));
    if (attempt.close()) events.failed(error);
    // The interpreter exempts its own timeout class from the States.TaskFailed wildcard.
    if (error.name === 'States.Timeout') throw await statesTimeoutError(error.message);
    throw error;
  } finally {
    if (info.topLevel) await run.forgetPark(token, info.stateName, rawInput);
  }
}

/** Builds the override of every Task state; `handlers` must cover them all (checked earlier). */
export function buildTaskOverrides(
  run: DispatchRun,
  tasks: readonly TaskStateInfo[],
  handlers: Readonly<Record<string, TaskHandler>>
): Record<string, Wrapper> {
  const overrides: Record<string, Wrapper> = {};
  for (const info of tasks) {
    const handler = handlers[info.stateName];
    if (!handler) continue;
    overrides[info.stateName] = async (effective) => {
      // Claim synchronously: the interpreter evaluated Parameters (and so minted the token) in
      // the same synchronous step that called us; a concurrent Map iteration mints its own next.
      const minted = run.claimMintedToken();
      if (run.isStopped()) throw abortedError('The execution was stopped');
      // One macrotask: the event consumer (microtasks) then has recorded this state's entry
      // and its ticket, so our events follow it in the history.
      await nextMacrotask();
      if (run.isStopped()) throw abortedError('The execution was stopped');
      const ticket = run.tickets.take(info.stateName);
      // Where a restart resumes the execution, stored before the state does anything.
      if (info.topLevel) await run.checkpointAt(info.stateName, ticket?.rawInput);
      const events = new TaskEvents(run.history, info, ticket?.lane);
      const attempt = run.attempts.open(info.stateName, ticket?.lane);
      if (!info.callback) return runPlain(run, info, handler, effective, events, attempt);
      return runCallback(run, info, handler, effective, ticket?.rawInput, minted, events, attempt);
    };
  }
  return overrides;
}
