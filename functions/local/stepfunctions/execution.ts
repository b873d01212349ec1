/**
 * One execution: an interpreter run with our Task overrides and a context object, its status,
 * and its history (built from the interpreter's `eventLogs` plus what the handler wrappers see).
 */
import type { HistoryEvent } from '@aws-sdk/client-sfn';
import type { RunOptions, StateMachine } from 'aws-local-stepfunctions';
import { deferred } from './deferred.js';
import { ExecutionHistory } from './history.js';
import { type ExecutionEnd, HistoryTranslator } from './history-translator.js';
import type { CompiledMachine } from './machine.js';
import { abortedError } from './sfn-errors.js';
import {
  buildTaskOverrides,
  type CallbackPark,
  type DispatchRun,
  type ResumedPark,
} from './task-dispatch.js';
import { TaskAttempts, TaskTickets } from './task-tickets.js';
import type { ParkOptions, TokenRegistry } from './token-registry.js';
import type { ExecutionCheckpoint, ExecutionStatus } from './types.js';

/** What an execution runs: the compiled machine's states, handlers and overrides, and its own run. */
export interface ExecutionSpec
  extends Pick<CompiledMachine, 'roleArn' | 'tasks' | 'states' | 'handlers' | 'overrides'> {
  executionArn: string;
  stateMachineArn: string;
  stateMachineName: string;
  name: string;
  /** The execution input as given (JSON text). */
  input: string;
  startDate: Date;
  /** The interpreter machine to run (for rehydration: the one starting at the parked state). */
  machine: StateMachine;
  /** What that machine starts with: the parsed input, or the parked state's raw input. */
  runInput: unknown;
  /** Rehydration: the history saved at the checkpoint. */
  savedHistory?: readonly HistoryEvent[];
  /** Rehydration: the state the run starts in (its entry is in the saved history). */
  resumedState?: string;
  /** Rehydration of a parked state: the park to restore instead of calling its handler. */
  resume?: ResumedPark & { stateName: string };
}

export interface ExecutionEnv {
  registry: TokenRegistry;
  mintToken(): string;
  /** The engine is shutting down: checkpoints stay in the store for the next process. */
  isClosing(): boolean;
  /** Resolves whether the checkpoint was stored (a failed write is reported, not thrown). */
  checkpoint(checkpoint: ExecutionCheckpoint): Promise<boolean>;
  forget(executionArn: string): Promise<boolean>;
  /** A top-level state parked on `token` and its checkpoint is stored: it may leave memory. */
  parked(execution: LocalExecution, token: string): void;
}

type Overrides = NonNullable<RunOptions['overrides']>;

export class LocalExecution implements DispatchRun {
  readonly spec: ExecutionSpec;
  readonly history: ExecutionHistory;
  readonly tickets = new TaskTickets();
  readonly attempts = new TaskAttempts();
  status: ExecutionStatus = 'RUNNING';
  stopDate: Date | undefined;
  output: string | undefined;
  error: string | undefined;
  cause: string | undefined;
  readonly #env: ExecutionEnv;
  readonly #settled = deferred<void>();
  #minted: string | undefined;
  #resume: ExecutionSpec['resume'];
  #abort: (() => void) | undefined;
  /** Out of memory while parked: the engine holds its place, its checkpoint the rest. */
  #hibernated = false;

  constructor(spec: ExecutionSpec, env: ExecutionEnv) {
    this.spec = spec;
    this.#env = env;
    this.#resume = spec.resume;
    this.history = new ExecutionHistory(spec.savedHistory ?? []);
  }

  get executionArn(): string {
    return this.spec.executionArn;
  }

  /** Resolves once the execution has ended (or was stopped). */
  get settled(): Promise<void> {
    return this.#settled.promise;
  }

  start(): void {
    const { spec } = this;
    const translator = new HistoryTranslator({
      history: this.history,
      tickets: this.tickets,
      attempts: this.attempts,
      tasks: new Map(spec.tasks.map((info) => [info.stateName, info])),
      states: spec.states,
      ...(spec.resumedState === undefined ? {} : { resumedState: spec.resumedState }),
      onEnd: (end) => this.#finish(end),
    });
    if (spec.resumedState === undefined) {
      this.history.append('ExecutionStarted', {
        executionStartedEventDetails: {
          input: spec.input,
          inputDetails: { truncated: false },
          roleArn: spec.roleArn,
        },
      });
    }
    const handlers = buildTaskOverrides(this, spec.tasks, spec.handlers);
    const run = spec.machine.run(spec.runInput as never, {
      overrides: {
        ...spec.overrides,
        taskResourceLocalHandlers: handlers as Overrides['taskResourceLocalHandlers'],
      },
      context: this.#context(),
      noThrowOnAbort: true,
    });
    this.#abort = run.abort;
    // The outcome arrives as an event; this only keeps a rejection from going unhandled.
    run.result.catch(() => {});
    void (async () => {
      try {
        for await (const event of run.eventLogs) translator.handle(event);
        this.#finish({
          status: 'FAILED',
          error: 'States.Runtime',
          cause: 'The run ended without a result',
        });
      } catch (error) {
        this.#finish({ status: 'FAILED', error: 'States.Runtime', cause: String(error) });
      }
    })();
  }

  /** StopExecution: ends the execution now and rejects whatever it has parked. */
  stop(error?: string, cause?: string): Date {
    if (this.status !== 'RUNNING') return this.stopDate ?? new Date();
    this.status = 'ABORTED';
    this.stopDate = new Date();
    this.error = error;
    this.cause = cause;
    this.history.append('ExecutionAborted', {
      executionAbortedEventDetails: {
        ...(error === undefined ? {} : { error }),
        ...(cause === undefined ? {} : { cause }),
      },
    });
    this.history.close();
    this.#env.registry.cancelExecution(
      this.executionArn,
      abortedError('The execution was stopped')
    );
    this.#abort?.();
    void this.#env.forget(this.executionArn);
    this.#settled.resolve();
    return this.stopDate;
  }

  /** Engine shutdown: stop the interpreter without recording an end (the checkpoint stays). */
  halt(): void {
    this.#abort?.();
    this.#settled.resolve();
  }

  /**
   * Parked, out of memory: the interpreter stops without recording anything (its checkpoint,
   * saved with the park, is where the engine resumes it when the token is answered).
   */
  hibernate(): void {
    this.#hibernated = true;
    this.halt();
  }

  // DispatchRun, used by the Task wrappers.

  isStopped(): boolean {
    return this.status !== 'RUNNING' || this.#hibernated || this.#env.isClosing();
  }

  claimMintedToken(): string | undefined {
    const token = this.#minted;
    this.#minted = undefined;
    return token;
  }

  mintToken(): string {
    return this.#env.mintToken();
  }

  takeResumedPark(stateName: string): ResumedPark | undefined {
    if (this.#resume?.stateName !== stateName) return undefined;
    const resumed = this.#resume;
    this.#resume = undefined;
    return resumed;
  }

  park(token: string, options: ParkOptions): Promise<unknown> {
    return this.#env.registry.park(token, options);
  }

  discardPark(token: string): void {
    this.#env.registry.discard(token);
  }

  /** Entering a top-level state: a restart resumes the execution from here. */
  async checkpointAt(stateName: string, rawInput: unknown): Promise<void> {
    // A rehydrated park keeps its checkpoint (and token) until it is answered.
    if (this.isStopped() || this.#resume?.stateName === stateName) return;
    await this.#env.checkpoint(this.#checkpoint(stateName, rawInput));
  }

  async persistPark(park: CallbackPark): Promise<void> {
    const stored = await this.#env.checkpoint({
      ...this.#checkpoint(park.stateName, park.rawInput),
      park: {
        token: park.token,
        parkedAt: park.parkedAt.toISOString(),
        ...(park.timeoutSeconds === undefined ? {} : { timeoutSeconds: park.timeoutSeconds }),
        ...(park.heartbeatSeconds === undefined ? {} : { heartbeatSeconds: park.heartbeatSeconds }),
      },
    });
    if (stored && !this.isStopped()) this.#env.parked(this, park.token);
  }

  /**
   * The park is over (answered, failed or timed out): until the next state's checkpoint, a
   * restart re-runs the parked state, which parks again on a new token and, finding the work
   * that woke it, wakes itself (the turn machine's park is idempotent).
   */
  async forgetPark(_token: string, stateName: string, rawInput: unknown): Promise<void> {
    if (this.isStopped()) return;
    await this.#env.checkpoint(this.#checkpoint(stateName, rawInput));
  }

  #checkpoint(stateName: string, rawInput: unknown): ExecutionCheckpoint {
    const { spec } = this;
    return {
      executionArn: spec.executionArn,
      stateMachineArn: spec.stateMachineArn,
      name: spec.name,
      stateName,
      rawInput,
      startedAt: spec.startDate.toISOString(),
      input: spec.input,
      history: [...this.history.events],
    };
  }

  /**
   * The context object. The interpreter overwrites `Execution.Input`/`StartTime` with the
   * run's own, but copies `Task` by reference, so this getter stays live: reading
   * `$$.Task.Token` mints a token, which the callback wrapper claims right after.
   */
  #context(): NonNullable<RunOptions['context']> {
    const { spec } = this;
    const execution = this;
    return {
      Execution: {
        Id: spec.executionArn,
        Name: spec.name,
        StartTime: spec.startDate.toISOString(),
        RoleArn: spec.roleArn,
      },
      StateMachine: { Id: spec.stateMachineArn, Name: spec.stateMachineName },
      Task: {
        get Token() {
          execution.#minted ??= execution.#env.mintToken();
          return execution.#minted;
        },
      },
    };
  }

  #finish(end: ExecutionEnd): void {
    if (this.isStopped()) return;
    this.status = end.status;
    this.stopDate = new Date();
    if (end.status === 'SUCCEEDED') this.output = end.output;
    else {
      this.error = end.error;
      this.cause = end.cause;
    }
    this.history.close();
    // Tokens still parked here belong to work the execution no longer waits for (a Map
    // iteration aborted because a sibling failed); release them with their timers.
    this.#env.registry.cancelExecution(this.executionArn, abortedError('The execution has ended'));
    void this.#env.forget(this.executionArn);
    this.#settled.resolve();
  }
}
