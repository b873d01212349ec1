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
import { LocalExecution } from './execution.js';
import { type CompiledMachine, type CreateStateMachineInput, compileMachine } from './machine.js';
import { paginate } from './pagination.js';
import { abortedError, SfnServiceError } from './sfn-errors.js';
import { MAX_PAYLOAD_BYTES } from './task-dispatch.js';
import { TokenRegistry } from './token-registry.js';
import type { CheckpointStore, ExecutionCheckpoint, ExecutionStatus } from './types.js';

export type { CreateStateMachineInput } from './machine.js';

export interface LocalStepFunctionsOptions {
  region?: string;
  accountId?: string;
  /** Keeps executions' checkpoints so `rehydrate()` can resume them after a restart. */
  store?: CheckpointStore;
  /** A failed store write does not fail the execution; it is reported here (default: console). */
  onStoreError?: (error: unknown, operation: 'save' | 'delete') => void;
}

export interface RehydrateResult {
  /** Parked executions waiting again on their tokens. */
  rehydrated: string[];
  /** Running executions re-entering the state they were in. */
  resumed: string[];
  failed: Array<{ executionArn: string; stateName: string; reason: string }>;
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
  readonly #registry = new TokenRegistry();
  readonly #machines = new Map<string, CompiledMachine>();
  readonly #executions = new Map<string, LocalExecution>();
  /** Store writes in flight, so `close()` can wait for them. */
  readonly #writes = new Set<Promise<void>>();
  #closing = false;

  constructor(options: LocalStepFunctionsOptions = {}) {
    this.#region = options.region ?? 'us-east-1';
    this.#accountId = options.accountId ?? '000000000000';
    this.#store = options.store;
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
    const events = [...this.#execution(input.executionArn).history.events];
    if (input.reverseOrder) events.reverse();
    const { page, nextToken } = paginate(events, input);
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
    const items: ExecutionListItem[] = [...this.#executions.values()]
      .filter((e) => e.spec.stateMachineArn === input.stateMachineArn)
      .filter((e) => !input.statusFilter || e.status === input.statusFilter)
      .sort((a, b) => b.spec.startDate.getTime() - a.spec.startDate.getTime())
      .map((e) => ({
        executionArn: e.executionArn,
        stateMachineArn: e.spec.stateMachineArn,
        name: e.spec.name,
        status: e.status,
        startDate: e.spec.startDate,
        ...(e.stopDate ? { stopDate: e.stopDate } : {}),
      }));
    const { page, nextToken } = paginate(items, input);
    return { executions: page, ...(nextToken ? { nextToken } : {}) };
  }

  /** Resolves with the execution's description once it has ended. */
  async waitForExecution(executionArn: string): Promise<DescribeExecutionOutput> {
    await this.#execution(executionArn).settled;
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
      this.#resumeFrom(machine, checkpoint);
      (checkpoint.park === undefined ? result.resumed : result.rehydrated).push(executionArn);
    }
    return result;
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
      }
    );
    this.#executions.set(run.executionArn, execution);
    return execution;
  }

  #write(
    operation: 'save' | 'delete',
    write: () => Promise<void> | void | undefined
  ): Promise<void> {
    const pending = (async () => {
      try {
        await write();
      } catch (error) {
        this.#onStoreError(error, operation);
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
