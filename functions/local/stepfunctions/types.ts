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

/**
 * Where a running execution is, as persisted at every top-level Task state it enters, so a
 * restarted process resumes it from that state (every state of the turn machine is idempotent:
 * re-running one after a crash repeats nothing it committed). A state parked on a task token
 * carries the park, and is rehydrated waiting on the same token.
 */
export interface ExecutionCheckpoint {
  executionArn: string;
  stateMachineArn: string;
  /** The execution's name. */
  name: string;
  /** The (top-level) state the execution was in. */
  stateName: string;
  /** That state's input before InputPath/Parameters: what the re-run starts from. */
  rawInput: unknown;
  /** When the execution started (ISO 8601). */
  startedAt: string;
  /** The execution's input (JSON text). */
  input: string;
  /** The execution history up to the state's entry (or its park). */
  history: HistoryEvent[];
  /** Set while the state is parked on a task token (a callback state). */
  park?: ParkedState;
}

export interface ParkedState {
  token: string;
  /** When the state parked (ISO 8601): its TimeoutSeconds count from here. */
  parkedAt: string;
  timeoutSeconds?: number;
  heartbeatSeconds?: number;
}

/** Where executions' checkpoints are kept across restarts. */
export interface CheckpointStore {
  saveCheckpoint(checkpoint: ExecutionCheckpoint): Promise<void> | void;
  deleteCheckpoint(executionArn: string): Promise<void> | void;
  loadCheckpoints(): Promise<ExecutionCheckpoint[]> | ExecutionCheckpoint[];
  /**
   * One execution's checkpoint as last saved, read at once (no save of it is in flight): a
   * store that has it lets the engine keep parked executions out of memory.
   */
  loadCheckpoint?(executionArn: string): ExecutionCheckpoint | undefined;
}
