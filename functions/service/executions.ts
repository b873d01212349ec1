import type { TurnRef } from '../core/loop/route.schema.js';

/**
 * The turn state machine's executions as the handlers and the A2A service drive them (the public
 * methods of the Step Functions adapter, TurnExecutions). A seam: tests pass a recording fake.
 */
export interface Executions {
  /** Starts the execution of a generation; a second start of the same one is a no-op. */
  start(ref: TurnRef): Promise<void>;
  /** Resumes a parked execution with its token; false when the token is nobody's any more. */
  resume(token: string): Promise<boolean>;
  /** Fails a parked execution with its token. */
  fail(token: string, error: string, cause: string): Promise<void>;
  /** Whether the execution of a generation is running (false when it ended or never started). */
  isRunning(taskId: string, generation: number): Promise<boolean>;
  /** Stops a generation's running execution. */
  stop(taskId: string, generation: number, cause: string): Promise<void>;
}
