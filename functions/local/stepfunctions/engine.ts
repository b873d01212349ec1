/**
 * The local Step Functions service: state machines and their executions, run in-process by
 * aws-local-stepfunctions, with what that interpreter lacks (callback task tokens, heartbeats,
 * StopExecution that releases parked work, GetExecutionHistory, survival across restarts
 * through a `ParkedStore`). Operations and answers follow the Step Functions API, so the HTTP
 * facade is a thin translation and handlers use the real SDK client unchanged.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type {
  DescribeExecutionOutput,
  ExecutionListItem,
  GetExecutionHistoryOutput,
  HistoryEvent,
  ListExecutionsOutput,
} from '@aws-sdk/client-sfn';
import { type Deferred, deferred } from './deferred.js';
import { LocalExecution } from './execution.js';
import { type CompiledMachine, type CreateStateMachineInput, compileMachine } from './machine.js';
import { paginate } from './pagination.js';
import { abortedError, SfnServiceError } from './sfn-errors.js';
import { MAX_PAYLOAD_BYTES } from './task-dispatch.js';
import { TokenRegistry } from './token-registry.js';
import type {
  CheckpointStore,
  ExecutionCheckpoint,
  ExecutionStatus,
  ParkedState,
} from './types.js';

export type { CreateStateMachineInput } from './machine.js';

export interface LocalStepFunctionsOptions {
  region?: string;
  accountId?: string;
  /** Keeps executions' checkpoints so `rehydrate()` can resume them after a restart. */
  store?: CheckpointStore;
  /**
   * Keep parked executions out of memory (default: whenever the store can read one checkpoint
   * back, `loadCheckpoint`): a parked execution costs its place in a few maps and its timers,
   * and is resumed from its checkpoint when its token is answered, times out or is stopped.
   */
  hibernateParked?: boolean;
  /** A failed store write does not fail the execution; it is reported here (default: console). */
  onStoreError?: (error: unknown, operation: 'save' | 'delete' | 'load') => void;
  /** Told of each execution that ends (not of one the engine's shutdown halts), as EventBridge is. */
  onExecutionEnd?: (execution: DescribeExecutionOutput) => void;
}

export interface RehydrateResult {
  /** Parked executions waiting again on their tokens. */
  rehydrated: string[];
  /** Running executions re-entering the state they were in. */
  resumed: string[];
  failed: Array<{ executionArn: string; stateName: string; reason: string }>;
}

/** A parked execution out of memory: what describing and listing it need, and its token. */
interface HibernatedExecution {
  stateMachineArn: string;
  name: string;
  input: string;
  startDate: Date;
  token: string;
  /** Resolved once it is back in memory. */
  woken: Deferred<void>;
}

const EXECUTION_NAME = /^[A-Za-z0-9_-]{1,80}$/;
const TOKEN_MAX = 2048;

const parseJson = (text: string, error: 'InvalidExecutionInput' | 'InvalidOutput'): unknown => {
  if (Buffer.byteLength(text) > MAX_PAYLOAD_BYTES) {
    throw new SfnServiceError(error, `Over the ${MAX_PAYLOAD_BYTES}-byte payload limit`);
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new SfnServiceError(error, `Invalid JSON: ${(cause as Error).message}`);
  }
};

const checkToken = (token: string): void => {
  if (typeof token !== 'string' || token.length === 0 || token.length > TOKEN_MAX) {
    throw new SfnServiceError('InvalidToken', 'Invalid Token');
  }
};

export class LocalStepFunctions {
  readonly #region: string;
  readonly #accountId: string;
  readonly #store: CheckpointStore | undefined;
  readonly #onStoreError: NonNullable<LocalStepFunctionsOptions['onStoreError']>;
  readonly #onExecutionEnd: LocalStepFunctionsOptions['onExecutionEnd'];
  readonly #registry = new TokenRegistry();
  readonly #machines = new Map<string, CompiledMachine>();
  readonly #executions = new Map<string, LocalExecution>();
  readonly #hibernated = new Map<string, HibernatedExecution>();
  readonly #hibernate: boolean;
  /** Store writes in flight, so `close()` can wait for them. */
  readonly #writes = new Set<Promise<boolean>>();
  #closing = false;

  constructor(options: LocalStepFunctionsOptions = {}) {
    this.#region = options.region ?? 'us-east-1';
    this.#accountId = options.accountId ?? '000000000000';
    this.#store = options.store;
    this.#hibernate =
      (options.hibernateParked ?? true) && options.store?.loadCheckpoint !== undefined;
    this.#onExecutionEnd = options.onExecutionEnd;
    this.#onStoreError =
      options.onStoreError ??
      ((error, operation) =>
        console.warn(`local Step Functions: checkpoint ${operation} failed`, error));
  }

  createStateMachine(input: CreateStateMachineInput): {
    stateMachineArn: string;
    creationDate: Date;
  } {
    const arn = `arn:aws:states:${this.#region}:${this.#accountId}:stateMachine:${input.name}`;
    if (this.#machines.has(arn)) {
      throw new SfnServiceError(
        'StateMachineAlreadyExists',
        `State Machine Already Exists: '${arn}'`
      );
    }
    const roleArn = input.roleArn ?? `arn:aws:iam::${this.#accountId}:role/local-step-functions`;
    const machine = compileMachine(input, arn, roleArn);
    this.#machines.set(arn, machine);
    return { stateMachineArn: arn, creationDate: machine.creationDate };
  }

  startExecution(input: { stateMachineArn: string; name?: string; input?: string }): {
    executionArn: string;
    startDate: Date;
  } {
    this.#assertOpen();
    const machine = this.#machine(input.stateMachineArn);
    const name = input.name ?? randomUUID();
    if (!EXECUTION_NAME.test(name))
      throw new SfnServiceError('InvalidName', `Invalid Name: '${name}'`);
    const text = input.input ?? '{}';
    const parsed = parseJson(text, 'InvalidExecutionInput');
    const executionArn = `arn:aws:states:${this.#region}:${this.#accountId}:execution:${machine.name}:${name}`;
    const hibernated = this.#hibernated.get(executionArn);
    if (hibernated) {
      if (hibernated.input === text) return { executionArn, startDate: hibernated.startDate };
      throw new SfnServiceError(
        'ExecutionAlreadyExists',
        `Execution Already Exists: '${executionArn}'`
      );
    }
    const existing = this.#executions.get(executionArn);
    if (existing) {
      // The service treats a repeated start of a running execution with the same input as a no-op.
      if (existing.status === 'RUNNING' && existing.spec.input === text) {
        return { executionArn, startDate: existing.spec.startDate };
      }
      throw new SfnServiceError(
        'ExecutionAlreadyExists',
        `Execution Already Exists: '${executionArn}'`
      );
    }
    const execution = this.#newExecution(machine, {
      executionArn,
      name,
      input: text,
      startDate: new Date(),
      runInput: parsed,
    });
    execution.start();
    return { executionArn, startDate: execution.spec.startDate };
  }

  describeExecution(input: { executionArn: string }): DescribeExecutionOutput {
    const hibernated = this.#hibernated.get(input.executionArn);
    if (hibernated) {
      return {
        executionArn: input.executionArn,
        stateMachineArn: hibernated.stateMachineArn,
        name: hibernated.name,
        status: 'RUNNING',
        startDate: hibernated.startDate,
        input: hibernated.input,
        inputDetails: { included: true },
      };
    }
    const execution = this.#execution(input.executionArn);
    const { spec } = execution;
    return {
      executionArn: spec.executionArn,
      stateMachineArn: spec.stateMachineArn,
      name: spec.name,
      status: execution.status,
      startDate: spec.startDate,
      ...(execution.stopDate ? { stopDate: execution.stopDate } : {}),
      input: spec.input,
      inputDetails: { included: true },
      ...(execution.output === undefined
        ? {}
        : { output: execution.output, outputDetails: { included: true } }),
      ...(execution.error === undefined ? {} : { error: execution.error }),
      ...(execution.cause === undefined ? {} : { cause: execution.cause }),
    };
  }

  stopExecution(input: { executionArn: string; error?: string; cause?: string }): {
    stopDate: Date;
  } {
    const hibernated = this.#hibernated.get(input.executionArn);
    if (hibernated) {
      // Back in memory to be stopped, so its history records the stop like any other's.
      this.#registry.discard(hibernated.token);
      this.#wake(input.executionArn);
    }
    return { stopDate: this.#execution(input.executionArn).stop(input.error, input.cause) };
  }

  sendTaskSuccess(input: { taskToken: string; output: string }): Record<string, never> {
    checkToken(input.taskToken);
    const output = parseJson(input.output, 'InvalidOutput');
    this.#registry.success(input.taskToken, output);
    return {};
  }

  sendTaskFailure(input: {
    taskToken: string;
    error?: string;
    cause?: string;
  }): Record<string, never> {
    checkToken(input.taskToken);
    this.#registry.failure(input.taskToken, input.error ?? 'States.TaskFailed', input.cause);
    return {};
  }

  sendTaskHeartbeat(input: { taskToken: string }): Record<string, never> {
    checkToken(input.taskToken);
    this.#registry.heartbeat(input.taskToken);
    return {};
  }

  getExecutionHistory(input: {
    executionArn: string;
    maxResults?: number;
    nextToken?: string;
    reverseOrder?: boolean;
    includeExecutionData?: boolean;
  }): GetExecutionHistoryOutput {
    const events = this.#hibernated.has(input.executionArn)
      ? (this.#store?.loadCheckpoint?.(input.executionArn)?.history ?? [])
      : this.#execution(input.executionArn).history.events;
    const { page, nextToken } = paginate(events, input, input.reverseOrder === true);
    const withData = input.includeExecutionData ?? true;
    return {
      events: withData ? page : page.map(withoutData),
      ...(nextToken ? { nextToken } : {}),
    };
  }

  listExecutions(input: {
    stateMachineArn: string;
    statusFilter?: ExecutionStatus;
    maxResults?: number;
    nextToken?: string;
  }): ListExecutionsOutput {
    this.#machine(input.stateMachineArn);
    const items: ExecutionListItem[] = [
      ...[...this.#executions.values()].map((e) => ({
        executionArn: e.executionArn,
        stateMachineArn: e.spec.stateMachineArn,
        name: e.spec.name,
        status: e.status,
        startDate: e.spec.startDate,
        ...(e.stopDate ? { stopDate: e.stopDate } : {}),
      })),
      ...[...this.#hibernated].map(([executionArn, e]) => ({
        executionArn,
        stateMachineArn: e.stateMachineArn,
        name: e.name,
        status: 'RUNNING' as const,
        startDate: e.startDate,
      })),
    ]
      .filter((e) => e.stateMachineArn === input.stateMachineArn)
      .filter((e) => !input.statusFilter || e.status === input.statusFilter)
      .sort((a, b) => b.startDate.getTime() - a.startDate.getTime());
    const { page, nextToken } = paginate(items, input);
    return { executions: page, ...(nextToken ? { nextToken } : {}) };
  }

  /** How many parked executions are out of memory now (`hibernateParked`). */
  get parkedOutOfMemory(): number {
    return this.#hibernated.size;
  }

  /** Resolves with the execution's description once it has ended. */
  async waitForExecution(executionArn: string): Promise<DescribeExecutionOutput> {
    for (;;) {
      const hibernated = this.#hibernated.get(executionArn);
      if (hibernated) await hibernated.woken.promise;
      else await this.#execution(executionArn).settled;
      // Settled by going out of memory: it is still running.
      if (this.#closing || !this.#hibernated.has(executionArn)) break;
    }
    return this.describeExecution({ executionArn });
  }

  /**
   * Resumes the executions the store holds checkpoints of. A parked one is re-run from its parked
   * state with the state's saved raw input and parks again on the same token, so the
   * `SendTaskSuccess` its waker will send still lands. A running one re-enters the state it was
   * in (the states it runs must be idempotent). Create the state machines first.
   */
  async rehydrate(): Promise<RehydrateResult> {
    this.#assertOpen();
    const result: RehydrateResult = { rehydrated: [], resumed: [], failed: [] };
    for (const checkpoint of (await this.#store?.loadCheckpoints()) ?? []) {
      const { executionArn, stateName } = checkpoint;
      const fail = (reason: string) => result.failed.push({ executionArn, stateName, reason });
      if (this.#executions.has(executionArn)) continue;
      const machine = this.#machines.get(checkpoint.stateMachineArn);
      if (!machine) {
        fail(`state machine ${checkpoint.stateMachineArn} is not created`);
        continue;
      }
      const task = machine.tasks.find((t) => t.stateName === stateName);
      if (!task?.topLevel || (checkpoint.park !== undefined && !task.callback)) {
        fail(
          `${stateName} is not a top-level ${checkpoint.park ? 'callback ' : ''}state of ${machine.name}`
        );
        continue;
      }
      if (checkpoint.park !== undefined && this.#hibernate) {
        this.#parkOutOfMemory(checkpoint, checkpoint.park);
      } else {
        this.#resumeFrom(machine, checkpoint);
      }
      (checkpoint.park === undefined ? result.resumed : result.rehydrated).push(executionArn);
    }
    return result;
  }

  /** A parked execution of the store, left there until its token is answered. */
  #parkOutOfMemory(checkpoint: ExecutionCheckpoint, park: ParkedState): void {
    const { executionArn } = checkpoint;
    this.#keepOutOfMemory(executionArn, park.token, {
      ...checkpoint,
      startDate: new Date(checkpoint.startedAt),
    });
    this.#registry.parkHibernated(
      park.token,
      {
        executionArn,
        ...(park.timeoutSeconds === undefined ? {} : { timeoutSeconds: park.timeoutSeconds }),
        ...(park.heartbeatSeconds === undefined ? {} : { heartbeatSeconds: park.heartbeatSeconds }),
        startedAtMs: new Date(park.parkedAt).getTime(),
      },
      () => this.#wake(executionArn)
    );
  }

  /** A parked execution whose checkpoint is stored goes out of memory (`hibernateParked`). */
  #hibernateParked(execution: LocalExecution, token: string): void {
    if (!this.#hibernate || this.#closing || execution.status !== 'RUNNING') return;
    const { executionArn } = execution;
    // Not parked any more (answered while its checkpoint was written): it stays.
    if (!this.#registry.has(token)) return;
    // The execution first, so its parked waiter, released next, unwinds without a trace.
    execution.hibernate();
    this.#registry.hibernate(
      token,
      () => this.#wake(executionArn),
      abortedError('The execution left memory while parked')
    );
    this.#executions.delete(executionArn);
    this.#keepOutOfMemory(executionArn, token, execution.spec);
  }

  /** What stays in memory of a parked execution: what describing and listing it read. */
  #keepOutOfMemory(
    executionArn: string,
    token: string,
    described: Pick<HibernatedExecution, 'stateMachineArn' | 'name' | 'input' | 'startDate'>
  ): void {
    const { stateMachineArn, name, input, startDate } = described;
    this.#hibernated.set(executionArn, {
      stateMachineArn,
      name,
      input,
      startDate,
      token,
      woken: deferred(),
    });
  }

  /** Back in memory, from its checkpoint: it parks again on its token (and finds any answer). */
  #wake(executionArn: string): void {
    const hibernated = this.#hibernated.get(executionArn);
    if (!hibernated || this.#closing) return;
    const machine = this.#machines.get(hibernated.stateMachineArn);
    let checkpoint: ExecutionCheckpoint | undefined;
    try {
      checkpoint = this.#store?.loadCheckpoint?.(executionArn);
    } catch (error) {
      this.#onStoreError(error, 'load');
    }
    if (!machine || checkpoint?.park?.token !== hibernated.token) {
      this.#onStoreError(
        new Error(`${executionArn}: no checkpoint of its park to resume it from`),
        'load'
      );
      return;
    }
    this.#hibernated.delete(executionArn);
    this.#resumeFrom(machine, checkpoint);
    hibernated.woken.resolve();
  }

  /**
   * Rejects every parked task, stops every run and waits for pending store writes. Checkpoints
   * stay in the store: the next process resumes them. No timer or handle is left.
   */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    this.#registry.close(abortedError('The local Step Functions engine closed'));
    for (const execution of this.#executions.values()) execution.halt();
    for (const hibernated of this.#hibernated.values()) hibernated.woken.resolve();
    while (this.#writes.size > 0) await Promise.all([...this.#writes]);
  }

  #resumeFrom(machine: CompiledMachine, checkpoint: ExecutionCheckpoint): void {
    const { park } = checkpoint;
    const execution = this.#newExecution(machine, {
      executionArn: checkpoint.executionArn,
      name: checkpoint.name,
      input: checkpoint.input,
      startDate: new Date(checkpoint.startedAt),
      runInput: checkpoint.rawInput,
      interpreter: machine.startingAt(checkpoint.stateName),
      savedHistory: checkpoint.history,
      resumedState: checkpoint.stateName,
      ...(park === undefined
        ? {}
        : {
            resume: {
              stateName: checkpoint.stateName,
              token: park.token,
              parkedAt: new Date(park.parkedAt),
              ...(park.timeoutSeconds === undefined ? {} : { timeoutSeconds: park.timeoutSeconds }),
              ...(park.heartbeatSeconds === undefined
                ? {}
                : { heartbeatSeconds: park.heartbeatSeconds }),
            },
          }),
    });
    execution.start();
  }

  #newExecution(
    machine: CompiledMachine,
    run: {
      executionArn: string;
      name: string;
      input: string;
      startDate: Date;
      runInput: unknown;
      interpreter?: CompiledMachine['interpreter'];
      savedHistory?: readonly HistoryEvent[];
      resumedState?: string;
      resume?: ConstructorParameters<typeof LocalExecution>[0]['resume'];
    }
  ): LocalExecution {
    const execution = new LocalExecution(
      {
        executionArn: run.executionArn,
        stateMachineArn: machine.arn,
        stateMachineName: machine.name,
        name: run.name,
        input: run.input,
        startDate: run.startDate,
        roleArn: machine.roleArn,
        machine: run.interpreter ?? machine.interpreter,
        runInput: run.runInput,
        tasks: machine.tasks,
        states: machine.states,
        handlers: machine.handlers,
        overrides: machine.overrides,
        ...(run.savedHistory ? { savedHistory: run.savedHistory } : {}),
        ...(run.resumedState === undefined ? {} : { resumedState: run.resumedState }),
        ...(run.resume ? { resume: run.resume } : {}),
      },
      {
        registry: this.#registry,
        mintToken: () => randomBytes(64).toString('base64url'),
        isClosing: () => this.#closing,
        checkpoint: (checkpoint) =>
          this.#write('save', () => this.#store?.saveCheckpoint(checkpoint)),
        forget: (executionArn) =>
          this.#write('delete', () => this.#store?.deleteCheckpoint(executionArn)),
        parked: (execution, token) => this.#hibernateParked(execution, token),
      }
    );
    this.#executions.set(run.executionArn, execution);
    void execution.settled.then(() => {
      if (execution.status === 'RUNNING') return;
      this.#onExecutionEnd?.(this.describeExecution({ executionArn: run.executionArn }));
    });
    return execution;
  }

  #write(
    operation: 'save' | 'delete',
    write: () => Promise<void> | void | undefined
  ): Promise<boolean> {
    const pending = (async () => {
      try {
        await write();
        return this.#store !== undefined;
      } catch (error) {
        this.#onStoreError(error, operation);
        return false;
      }
    })();
    this.#writes.add(pending);
    void pending.finally(() => this.#writes.delete(pending));
    return pending;
  }

  #machine(arn: string): CompiledMachine {
    if (typeof arn !== 'string' || !arn.startsWith('arn:')) {
      throw new SfnServiceError('InvalidArn', `Invalid Arn: '${arn}'`);
    }
    const machine = this.#machines.get(arn);
    if (!machine)
      throw new SfnServiceError(
        'StateMachineDoesNotExist',
        `State Machine Does Not Exist: '${arn}'`
      );
    return machine;
  }

  #execution(arn: string): LocalExecution {
    if (typeof arn !== 'string' || !arn.startsWith('arn:')) {
      throw new SfnServiceError('InvalidArn', `Invalid Arn: '${arn}'`);
    }
    const execution = this.#executions.get(arn);
    if (!execution)
      throw new SfnServiceError('ExecutionDoesNotExist', `Execution Does Not Exist: '${arn}'`);
    return execution;
  }

  #assertOpen(): void {
    if (this.#closing) throw new Error('The local Step Functions engine is closed');
  }
}

/** `includeExecutionData: false`: the events without their inputs and outputs. */
const withoutData = (event: HistoryEvent): HistoryEvent =>
  Object.fromEntries(
    Object.entries(event).map(([key, value]) => {
      if (!key.endsWith('EventDetails') || typeof value !== 'object' || value === null)
        return [key, value];
      const {
        input: _input,
        output: _output,
        parameters: _parameters,
        ...rest
      } = value as Record<string, unknown>;
      return [key, rest];
    })
  ) as HistoryEvent;
