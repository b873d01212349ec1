/**
 * The Task events of one state attempt in GetExecutionHistory terms: `TaskScheduled`,
 * `TaskStarted`, `TaskSubmitted` (callbacks), `TaskSucceeded`/`TaskFailed`/`TaskTimedOut`; or,
 * for a Resource that is a function ARN, the service's `LambdaFunction*` events.
 */
import type { HistoryEventType } from '@aws-sdk/client-sfn';
import type { TaskStateInfo } from './asl-walk.js';
import type { EventDetails, ExecutionHistory, Lane } from './history.js';
import { errorAndCause } from './sfn-errors.js';

export class TaskEvents {
  readonly #history: ExecutionHistory;
  readonly #info: TaskStateInfo;
  readonly #lane: Lane;

  constructor(history: ExecutionHistory, info: TaskStateInfo, lane: Lane) {
    this.#history = history;
    this.#info = info;
    this.#lane = lane;
  }

  get #resource() {
    return { resourceType: this.#info.resourceType, resource: this.#info.resourceName };
  }

  scheduled(effective: unknown, timeoutSeconds?: number, heartbeatSeconds?: number): void {
    const timing = {
      ...(timeoutSeconds === undefined ? {} : { timeoutInSeconds: timeoutSeconds }),
      ...(heartbeatSeconds === undefined ? {} : { heartbeatInSeconds: heartbeatSeconds }),
    };
    if (this.#info.kind === 'lambda-function') {
      this.#append('LambdaFunctionScheduled', {
        lambdaFunctionScheduledEventDetails: {
          resource: this.#info.resource,
          input: JSON.stringify(effective),
          inputDetails: { truncated: false },
          ...(timeoutSeconds === undefined ? {} : { timeoutInSeconds: timeoutSeconds }),
        },
      });
      this.#append('LambdaFunctionStarted', {});
      return;
    }
    this.#append('TaskScheduled', {
      taskScheduledEventDetails: {
        ...this.#resource,
        region: regionOf(this.#info.resource),
        parameters: JSON.stringify(effective),
        ...timing,
      },
    });
    this.#append('TaskStarted', { taskStartedEventDetails: this.#resource });
  }

  submitted(output: unknown): void {
    this.#append('TaskSubmitted', {
      taskSubmittedEventDetails: {
        ...this.#resource,
        output: JSON.stringify(output),
        outputDetails: { truncated: false },
      },
    });
  }

  succeeded(output: unknown): void {
    const text = JSON.stringify(output);
    if (this.#info.kind === 'lambda-function') {
      this.#append('LambdaFunctionSucceeded', {
        lambdaFunctionSucceededEventDetails: { output: text, outputDetails: { truncated: false } },
      });
      return;
    }
    this.#append('TaskSucceeded', {
      taskSucceededEventDetails: {
        ...this.#resource,
        output: text,
        outputDetails: { truncated: false },
      },
    });
  }

  failed(error: Error): void {
    const failure = errorAndCause(error);
    const timedOut = error.name === 'States.Timeout' || error.name === 'States.HeartbeatTimeout';
    if (this.#info.kind === 'lambda-function') {
      this.#append(
        timedOut ? 'LambdaFunctionTimedOut' : 'LambdaFunctionFailed',
        timedOut
          ? { lambdaFunctionTimedOutEventDetails: failure }
          : { lambdaFunctionFailedEventDetails: failure }
      );
      return;
    }
    const details = { ...this.#resource, ...failure };
    this.#append(
      timedOut ? 'TaskTimedOut' : 'TaskFailed',
      timedOut ? { taskTimedOutEventDetails: details } : { taskFailedEventDetails: details }
    );
  }

  #append(type: HistoryEventType, details: EventDetails): void {
    this.#history.append(type, details, this.#lane);
  }
}

/** `arn:aws:states:::lambda:invoke` has no region; the function ARN or the local default does. */
const regionOf = (resource: string) => resource.split(':')[3] || 'us-east-1';
