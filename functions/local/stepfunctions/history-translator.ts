/**
 * Turns the interpreter's `eventLogs` (StateEntered/Exited/Failed/Retried, MapIteration*,
 * Execution*) into `GetExecutionHistory` events (`TaskStateEntered`, `MapStateStarted`,
 * `ChoiceStateExited`, ...). Task work events (TaskScheduled, TaskSucceeded, ...) are written by
 * the handler wrappers, which see the calls; this side only covers a Task that failed without
 * its wrapper noticing (the interpreter's own timeout) and feeds the wrappers' tickets.
 */
import type { HistoryEventType } from '@aws-sdk/client-sfn';
import type { StateMachine } from 'aws-local-stepfunctions';
import type { AslState, TaskStateInfo } from './asl-walk.js';
import type { ExecutionHistory, Lane } from './history.js';
import { readReferencePath } from './json-path-lite.js';
import type { TaskAttempts, TaskTickets } from './task-tickets.js';

export type InterpreterEvent =
  ReturnType<StateMachine['run']>['eventLogs'] extends AsyncGenerator<infer E> ? E : never;

export type ExecutionEnd =
  | { status: 'SUCCEEDED'; output: string }
  | { status: 'FAILED'; error: string; cause: string }
  | { status: 'TIMED_OUT'; error: string; cause: string };

export interface TranslatorDeps {
  history: ExecutionHistory;
  tickets: TaskTickets;
  attempts: TaskAttempts;
  tasks: ReadonlyMap<string, TaskStateInfo>;
  /** Original state definitions by name (for a Map's item count). */
  states: ReadonlyMap<string, AslState>;
  /** Rehydration re-runs from this state: its entry is already in the saved history. */
  resumedState?: string;
  onEnd(end: ExecutionEnd): void;
}

const json = (value: unknown) => JSON.stringify(value ?? null);
const untruncated = { truncated: false };

/** `error.cause ?? error.message` from the interpreter may be anything; the history wants text. */
const causeText = (cause: unknown): string => {
  if (typeof cause === 'string') return cause;
  if (cause instanceof Error) return cause.message;
  return json(cause);
};

export class HistoryTranslator {
  readonly #deps: TranslatorDeps;
  #skipEntry: string | undefined;
  /** States (by name and lane) that failed: a caught Map/Parallel exits without "Succeeded". */
  readonly #failed = new Set<string>();

  constructor(deps: TranslatorDeps) {
    this.#deps = deps;
    this.#skipEntry = deps.resumedState;
  }

  handle(event: InterpreterEvent): void {
    const { history } = this.#deps;
    switch (event.type) {
      case 'ExecutionStarted':
        // Written by the execution itself when it starts, so the history is never empty.
        return;
      case 'StateEntered':
        this.#entered(event.state.name, event.state.type, event.state.input, event.index);
        return;
      case 'StateExited':
        this.#exited(event.state.name, event.state.type, event.state.output, event.index);
        return;
      case 'StateFailed':
        this.#stateFailed(
          event.state.name,
          event.state.type,
          event.Error,
          event.Cause,
          event.index
        );
        return;
      case 'StateRetried':
        if (event.state.type === 'Task') {
          this.#deps.tickets.push(event.state.name, {
            lane: event.index,
            rawInput: event.state.input,
          });
        }
        return;
      case 'MapIterationStarted':
      case 'MapIterationSucceeded':
      case 'MapIterationFailed': {
        const details = { name: event.parentState.name, index: event.index };
        const key =
          event.type === 'MapIterationStarted'
            ? 'mapIterationStartedEventDetails'
            : event.type === 'MapIterationSucceeded'
              ? 'mapIterationSucceededEventDetails'
              : 'mapIterationFailedEventDetails';
        history.append(event.type, { [key]: details }, event.index);
        return;
      }
      case 'ExecutionSucceeded': {
        const output = json(event.output);
        history.append('ExecutionSucceeded', {
          executionSucceededEventDetails: { output, outputDetails: untruncated },
        });
        this.#end({ status: 'SUCCEEDED', output });
        return;
      }
      case 'ExecutionFailed': {
        const failure = { error: event.Error, cause: causeText(event.Cause) };
        history.append('ExecutionFailed', { executionFailedEventDetails: failure });
        this.#end({ status: 'FAILED', ...failure });
        return;
      }
      case 'ExecutionTimeout': {
        const timeout = { error: 'States.Timeout', cause: 'The execution timed out' };
        history.append('ExecutionTimedOut', { executionTimedOutEventDetails: timeout });
        this.#end({ status: 'TIMED_OUT', ...timeout });
        return;
      }
      default:
        // ExecutionAborted is written by StopExecution (with its error and cause); Parallel
        // branches have no events of their own in the service's history.
        return;
    }
  }

  #end(end: ExecutionEnd): void {
    this.#deps.history.close();
    this.#deps.onEnd(end);
  }

  #entered(name: string, type: string, rawInput: unknown, lane: Lane): void {
    const { history, tickets } = this.#deps;
    if (type === 'Task') tickets.push(name, { lane, rawInput });
    if (this.#skipEntry === name && lane === undefined) {
      this.#skipEntry = undefined;
      return;
    }
    this.#failed.delete(`${name}#${lane ?? ''}`);
    const details = { name, input: json(rawInput), inputDetails: untruncated };
    history.append(
      `${type}StateEntered` as HistoryEventType,
      { stateEnteredEventDetails: details },
      lane
    );
    if (type === 'Map') {
      const length = this.#mapLength(name, rawInput);
      history.append(
        'MapStateStarted',
        { mapStateStartedEventDetails: length === undefined ? {} : { length } },
        lane
      );
    }
    if (type === 'Parallel') history.append('ParallelStateStarted', {}, lane);
  }

  #exited(name: string, type: string, output: unknown, lane: Lane): void {
    const { history } = this.#deps;
    const failed = this.#failed.delete(`${name}#${lane ?? ''}`);
    if (!failed && type === 'Map') history.append('MapStateSucceeded', {}, lane);
    if (!failed && type === 'Parallel') history.append('ParallelStateSucceeded', {}, lane);
    const details = { name, output: json(output), outputDetails: untruncated };
    history.append(
      `${type}StateExited` as HistoryEventType,
      { stateExitedEventDetails: details },
      lane
    );
  }

  #stateFailed(name: string, type: string, error: string, cause: unknown, lane: Lane): void {
    const { history, attempts, tickets, tasks } = this.#deps;
    this.#failed.add(`${name}#${lane ?? ''}`);
    if (type === 'Map') history.append('MapStateFailed', {}, lane);
    if (type === 'Parallel') history.append('ParallelStateFailed', {}, lane);
    if (type !== 'Task') return;
    const info = tasks.get(name);
    if (!attempts.closeOpen(name, lane)) {
      // No call was running: the state failed on its input paths before its handler was called.
      tickets.drop(name, lane);
      return;
    }
    // A call was still running, so the interpreter failed it itself: its TimeoutSeconds.
    const failure = { error, cause: causeText(cause) };
    const lambda = info?.kind === 'lambda-function';
    const timedOut = error === 'States.Timeout';
    if (lambda) {
      history.append(
        timedOut ? 'LambdaFunctionTimedOut' : 'LambdaFunctionFailed',
        timedOut
          ? { lambdaFunctionTimedOutEventDetails: failure }
          : { lambdaFunctionFailedEventDetails: failure },
        lane
      );
      return;
    }
    const resource = {
      resourceType: info?.resourceType ?? 'unknown',
      resource: info?.resourceName ?? '',
    };
    history.append(
      timedOut ? 'TaskTimedOut' : 'TaskFailed',
      timedOut
        ? { taskTimedOutEventDetails: { ...resource, ...failure } }
        : { taskFailedEventDetails: { ...resource, ...failure } },
      lane
    );
  }

  #mapLength(name: string, rawInput: unknown): number | undefined {
    const state = this.#deps.states.get(name);
    let items = rawInput;
    if (typeof state?.InputPath === 'string') items = readReferencePath(items, state.InputPath);
    if (typeof state?.ItemsPath === 'string') items = readReferencePath(items, state.ItemsPath);
    return Array.isArray(items) ? items.length : undefined;
  }
}
