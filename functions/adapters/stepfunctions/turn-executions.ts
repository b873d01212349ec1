import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  SendTaskFailureCommand,
  SendTaskSuccessCommand,
  type SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
  TaskDoesNotExist,
  TaskTimedOut,
} from '@aws-sdk/client-sfn';
import type { TurnRef } from '../../core/loop/route.schema.js';

/** Execution names are deterministic per (task, generation): a second start is a no-op. */
export const executionName = (taskId: string, generation: number): string =>
  `${taskId}-g${generation}`;

const EXECUTION_NAME = /(?:^|:)([^:]+)-g([1-9][0-9]*)$/;

/**
 * The task and generation an execution name (or ARN) stands for; undefined for a name not of
 * this form.
 */
export const parseExecutionName = (
  nameOrArn: string
): { taskId: string; generation: number } | undefined => {
  const match = EXECUTION_NAME.exec(nameOrArn);
  if (match === null) return undefined;
  return { taskId: match[1] as string, generation: Number(match[2]) };
};

export const executionArn = (stateMachineArn: string, taskId: string, generation: number): string =>
  `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${executionName(taskId, generation)}`;

/**
 * The turn state machine's executions, as the handlers drive them: start a generation, resume a
 * parked one with its token, stop one whose turn was cut.
 */
export class TurnExecutions {
  readonly #client: SFNClient;
  readonly #stateMachineArn: string;

  constructor(options: { client: SFNClient; stateMachineArn: string }) {
    this.#client = options.client;
    this.#stateMachineArn = options.stateMachineArn;
  }

  async start(ref: TurnRef): Promise<void> {
    try {
      await this.#client.send(
        new StartExecutionCommand({
          stateMachineArn: this.#stateMachineArn,
          name: executionName(ref.taskId, ref.generation),
          input: JSON.stringify({ ref }),
        })
      );
    } catch (error) {
      // Retries and duplicate wakes start the same name: the first one is the execution.
      if (!(error instanceof ExecutionAlreadyExists)) throw error;
    }
  }

  /** Resumes a parked execution. A token already used or timed out is nobody's to resume. */
  async resume(token: string): Promise<boolean> {
    try {
      await this.#client.send(new SendTaskSuccessCommand({ taskToken: token, output: '{}' }));
      return true;
    } catch (error) {
      if (error instanceof TaskDoesNotExist || error instanceof TaskTimedOut) return false;
      throw error;
    }
  }

  async fail(token: string, error: string, cause: string): Promise<void> {
    try {
      await this.#client.send(new SendTaskFailureCommand({ taskToken: token, error, cause }));
    } catch (caught) {
      if (!(caught instanceof TaskDoesNotExist || caught instanceof TaskTimedOut)) throw caught;
    }
  }

  async isRunning(taskId: string, generation: number): Promise<boolean> {
    try {
      const { status } = await this.#client.send(
        new DescribeExecutionCommand({
          executionArn: executionArn(this.#stateMachineArn, taskId, generation),
        })
      );
      return status === 'RUNNING';
    } catch (error) {
      if ((error as Error).name === 'ExecutionDoesNotExist') return false;
      throw error;
    }
  }

  async stop(taskId: string, generation: number, cause: string): Promise<void> {
    try {
      await this.#client.send(
        new StopExecutionCommand({
          executionArn: executionArn(this.#stateMachineArn, taskId, generation),
          cause,
        })
      );
    } catch (error) {
      if ((error as Error).name !== 'ExecutionDoesNotExist') throw error;
    }
  }
}
