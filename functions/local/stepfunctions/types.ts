/**
 * Public types of the local Step Functions service. Output shapes reuse the SDK's own models so
 * that code written against `@aws-sdk/client-sfn` reads the engine's answers unchanged.
 */
import type { HistoryEvent } from '@aws-sdk/client-sfn';

export interface TaskHandlerContext {
  executionArn: string;
  stateName: string;
  /** Set for callback (`.waitForTaskToken`) states: the token `SendTaskSuccess` must quote. */
  taskToken?: string;
}

/**
 * Runs one Task state. For Lambda-backed states it plays the function: it receives the invoke
 * `Payload` (or, for a function-ARN Resource, the effective input) and its return value is the
 * function's result. Throw an error whose `name` is the Step Functions error name to match.
 */
export type TaskHandler = (input: unknown, ctx: TaskHandlerContext) => Promise<unknown> | unknown;

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

/** A parked callback state, as persisted so a restarted process can rehydrate it. */
export interface ParkedRecord {
  executionArn: string;
  stateMachineArn: string;
  /** The execution's name. */
  name: string;
  /** The parked (top-level, callback) state. */
  stateName: string;
  /** That state's input before InputPath/Parameters: what the re-run starts from. */
  rawInput: unknown;
  token: string;
  /** When the execution started (ISO 8601). */
  startedAt: string;
  /** The execution's input (JSON text). */
  input: string;
  /** When the state parked (ISO 8601): its TimeoutSeconds count from here. */
  parkedAt: string;
  timeoutSeconds?: number;
  heartbeatSeconds?: number;
  /** The execution history up to the park. */
  history: HistoryEvent[];
}

/** Where parked callback states are kept across restarts. */
export interface ParkedStore {
  saveParked(record: ParkedRecord): Promise<void> | void;
  deleteParked(token: string): Promise<void> | void;
  loadParked(): Promise<ParkedRecord[]> | ParkedRecord[];
}
