/**
 * The turn loop as states: the machine routes, the core decides. Every Task calls
 * TurnStepFunction with one operation and references only; the function answers
 * `{ ref, route }` and "Route Turn" follows `route.next`.
 *
 * JSONPath on purpose (no JSONata, no variables): the local interpreter runs this very
 * definition and cannot run JSONata.
 */
import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import {
  Choice,
  Condition,
  DefinitionBody,
  Fail,
  IntegrationPattern,
  JitterType,
  JsonPath,
  LogLevel,
  Map as MapState,
  Pass,
  Result,
  type RetryProps,
  type State,
  StateMachine,
  StateMachineType,
  Succeed,
  TaskInput,
  Timeout,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { TRANSIENT_SERVICE_ERROR_NAME } from '../../functions/adapters/aws/transient-error.js';
import { RETRYABLE_ERROR_NAMES } from '../../functions/core/errors.js';
import type { RouteName } from '../../functions/core/loop/route.schema.js';
import { acknowledge, wildcardResourceFinding } from './nag.js';

export const STATE_NAMES = {
  takeTurn: 'Take Turn',
  routeTurn: 'Route Turn',
  executeToolCalls: 'Execute Tool Calls',
  executeToolCall: 'Execute Tool Call',
  park: 'Park',
  parkUntilDeadline: 'Park Until Deadline',
  renewExecution: 'Renew Execution',
  renewed: 'Renewed',
  taskEnded: 'Task Ended',
  superseded: 'Superseded',
  unknownRoute: 'Unknown Route',
  failTask: 'Fail Task',
  failed: 'Failed',
} as const;

/** The error the execution fails with when a step failed for good. */
export const TASK_FAILED_ERROR = 'TaskFailed';

/** What "Unknown Route" hands to "Fail Task" as the failure. */
export const UNKNOWN_ROUTE_ERROR = {
  Error: 'UnknownRoute',
  Cause: 'The turn step returned a route.next this state machine does not know.',
} as const;

/**
 * The Retry list of every Task state, in the order Step Functions tries them (the first whose
 * ErrorEquals matches applies). Every entry backs off exponentially with full jitter, so a burst
 * of throttled steps does not come back in step.
 */
export const RETRY_POLICY: readonly RetryProps[] = [
  {
    // A lost optimistic write, a throttled or overloaded model.
    errors: [...RETRYABLE_ERROR_NAMES],
    interval: Duration.seconds(1),
    backoffRate: 2,
    maxAttempts: 5,
    jitterStrategy: JitterType.FULL,
    maxDelay: Duration.seconds(60),
  },
  {
    // The step's own AWS calls (DynamoDB, Step Functions, KMS, Secrets Manager, Bedrock) that
    // were throttled or failed transiently past the SDK's retries (functions/adapters/aws).
    errors: [TRANSIENT_SERVICE_ERROR_NAME],
    interval: Duration.seconds(2),
    backoffRate: 2,
    maxAttempts: 6,
    jitterStrategy: JitterType.FULL,
    maxDelay: Duration.seconds(60),
  },
  {
    // Lambda refused the invocation: the account's or the function's concurrency is used up.
    // Waits of at most 2, 4, 8, 16, 32, then 60 s: up to 6 minutes in all (3 on average with full
    // jitter), time for open streams to give instances back.
    errors: ['Lambda.TooManyRequestsException'],
    interval: Duration.seconds(2),
    backoffRate: 2,
    maxAttempts: 10,
    jitterStrategy: JitterType.FULL,
    maxDelay: Duration.seconds(60),
  },
  {
    // Lambda's own transient failures (AWS's list for the Lambda integration).
    errors: [
      'Lambda.ClientExecutionTimeoutException',
      'Lambda.ServiceException',
      'Lambda.AWSLambdaException',
      'Lambda.SdkClientException',
    ],
    interval: Duration.seconds(2),
    backoffRate: 2,
    maxAttempts: 6,
    jitterStrategy: JitterType.FULL,
    maxDelay: Duration.seconds(60),
  },
];

/**
 * What each state that can fail hands to "Fail Task". `States.DataLimitExceeded` (a result over
 * the 256 KiB payload limit) is not matched by `States.ALL` and must be named; `States.Runtime`
 * can be neither caught nor retried: the execution fails, and the reconciler (EventBridge on
 * the execution's status) deals with the task.
 */
export const CATCH_ERRORS: readonly (readonly string[])[] = [
  ['States.DataLimitExceeded'],
  ['States.ALL'],
];

const ERROR_PATH = '$.error';
const ref = () => JsonPath.objectAt('$.ref');

export interface TurnStateMachineProps {
  /** TurnStepFunction: every Task state but "Execute Tool Call" invokes it. */
  readonly handler: IFunction;
  /** ToolStepFunction: "Execute Tool Call" invokes it, once per tool call. */
  readonly toolHandler: IFunction;
  /** Fixed, so the functions can know the ARN without a reference (see turn-machine-arns.ts). */
  readonly stateMachineName: string;
  /** How long "Park" waits for a token before the execution renews itself. */
  readonly parkTimeout: Duration;
  /** @default one month */
  readonly logRetention?: RetentionDays;
}

export class TurnStateMachine extends Construct {
  readonly stateMachine: StateMachine;
  readonly logGroup: LogGroup;

  readonly #handler: IFunction;
  readonly #toolHandler: IFunction;

  constructor(scope: Construct, id: string, props: TurnStateMachineProps) {
    super(scope, id);
    this.#handler = props.handler;
    this.#toolHandler = props.toolHandler;

    const failTask = this.#failTask();
    const renewExecution = this.#step(STATE_NAMES.renewExecution, { op: 'renew', ref: ref() });
    renewExecution.next(new Succeed(this, STATE_NAMES.renewed));

    // One turn is one state: the inbox folded, the model called (the model call is this state's
    // Lambda invocation in the history), a turn without tool calls ended (docs/architecture.md).
    const takeTurn = this.#step(STATE_NAMES.takeTurn, { op: 'turn', ref: ref() });
    const routeTurn = new Choice(this, STATE_NAMES.routeTurn);
    const executeTools = this.#executeToolCalls();
    const park = this.#park(STATE_NAMES.park, Timeout.duration(props.parkTimeout), renewExecution);
    // A park with a deadline of its own (a call awaiting approval): it ends at the deadline.
    const parkUntilDeadline = this.#park(
      STATE_NAMES.parkUntilDeadline,
      Timeout.at('$.route.timeoutSeconds'),
      renewExecution
    );

    for (const state of [takeTurn, park, parkUntilDeadline, renewExecution]) {
      for (const errors of CATCH_ERRORS) {
        state.addCatch(failTask, { errors: [...errors], resultPath: ERROR_PATH });
      }
    }
    for (const errors of CATCH_ERRORS) {
      executeTools.addCatch(failTask, { errors: [...errors], resultPath: ERROR_PATH });
    }

    takeTurn.next(routeTurn);
    executeTools.next(takeTurn);
    park.next(takeTurn);
    parkUntilDeadline.next(takeTurn);

    // A turn that goes on (its tool results read, a step re-entered from an earlier checkpoint)
    // is the next turn state's: it reads where the task stands and goes on from there.
    const targets: Record<RouteName, State> = {
      turn: takeTurn,
      execute_tools: executeTools,
      park,
      renew: renewExecution,
      end: new Succeed(this, STATE_NAMES.taskEnded),
      superseded: new Succeed(this, STATE_NAMES.superseded, {
        comment: 'A newer generation owns the task; this execution stops quietly.',
      }),
    };
    // First: a park that carries its own timeout waits in its own state (the same transitions).
    routeTurn.when(
      Condition.and(
        Condition.stringEquals('$.route.next', 'park'),
        Condition.isPresent('$.route.timeoutSeconds')
      ),
      parkUntilDeadline
    );
    for (const [route, target] of Object.entries(targets)) {
      routeTurn.when(Condition.stringEquals('$.route.next', route), target);
    }
    // A route this machine does not know fails the task like any step failure (the task does not
    // stay WORKING behind a failed execution).
    routeTurn.otherwise(
      new Pass(this, STATE_NAMES.unknownRoute, {
        result: Result.fromObject(UNKNOWN_ROUTE_ERROR),
        resultPath: ERROR_PATH,
      }).next(failTask)
    );

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
    });
    this.stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineName: props.stateMachineName,
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromChainable(takeTurn),
      // Execution data stays out of the logs: the history already has it, and payloads are
      // references anyway. Auditors read the execution history (docs/deploy.md).
      logs: { destination: this.logGroup, level: LogLevel.ALL, includeExecutionData: false },
      tracingEnabled: true,
    });
    this.#acknowledgeFindings();
  }

  #acknowledgeFindings(): void {
    const role = this.stateMachine.role;
    for (const handler of [this.#handler, this.#toolHandler]) {
      acknowledge(
        role,
        wildcardResourceFinding(this, `${handler.functionArn}:*`),
        "CDK's LambdaInvoke grants the turn and tool step functions and their versions and aliases (<function ARN>:*); the state machine invokes no other function."
      );
    }
    acknowledge(
      role,
      'AwsSolutions-IAM5[Resource::*]',
      'Step Functions log delivery (logs:CreateLogDelivery and related) and X-Ray tracing support no resource-level permissions; AWS documents "*" for both.'
    );
  }

  /** A routing step: one operation on TurnStepFunction whose `{ ref, route }` replaces the state. */
  #step(name: string, payload: Record<string, unknown>): LambdaInvoke {
    return withRetries(
      new LambdaInvoke(this, name, {
        lambdaFunction: this.#handler,
        retryOnServiceExceptions: false,
        payload: TaskInput.fromObject(payload),
        payloadResponseOnly: true,
        resultPath: JsonPath.entirePayload,
      })
    );
  }

  /**
   * One Map iteration per tool call, one at a time (calls apply in order), so each call is its
   * own entry in the execution history. The iterations' results live in the store: discarded.
   */
  #executeToolCalls(): MapState {
    const executeToolCall = withRetries(
      new LambdaInvoke(this, STATE_NAMES.executeToolCall, {
        lambdaFunction: this.#toolHandler,
        retryOnServiceExceptions: false,
        payload: TaskInput.fromObject({ op: 'execute_tool', call: JsonPath.objectAt('$') }),
        payloadResponseOnly: true,
      })
    );
    // A failing iteration fails the Map; the Map's Catch (not the iteration's) reaches Fail Task.
    return new MapState(this, STATE_NAMES.executeToolCalls, {
      itemsPath: JsonPath.stringAt('$.route.calls'),
      maxConcurrency: 1,
      resultPath: JsonPath.DISCARD,
    }).itemProcessor(executeToolCall);
  }

  /**
   * Waits on a task token: the Lambda stores the token on the task; whoever wakes the task
   * answers it. Nobody heartbeats a person, so HeartbeatSeconds only bounds the wait like the
   * timeout does: ASL requires it strictly smaller than TimeoutSeconds, so it is one minute
   * less, and it is the one that fires. Either expiry renews the execution, so a long wait
   * continues in a fresh one (and a fresh 25,000-event history), whose first turn sees what the
   * wait was for (an approval's deadline passed: a rejection). A timeout read from the route
   * (`Timeout.at`) has no heartbeat: the route's seconds are the whole wait.
   */
  #park(name: string, timeout: Timeout, renewExecution: LambdaInvoke): LambdaInvoke {
    const fixed = timeout.seconds;
    const park = withRetries(
      new LambdaInvoke(this, name, {
        lambdaFunction: this.#handler,
        retryOnServiceExceptions: false,
        integrationPattern: IntegrationPattern.WAIT_FOR_TASK_TOKEN,
        payload: TaskInput.fromObject({
          op: 'park',
          ref: ref(),
          subState: JsonPath.stringAt('$.route.subState'),
          // The whole route: a park the turn decided on a version it names commits without a read.
          route: JsonPath.objectAt('$.route'),
          token: JsonPath.taskToken,
        }),
        resultPath: JsonPath.DISCARD,
        taskTimeout: timeout,
        ...(fixed === undefined
          ? {}
          : {
              heartbeatTimeout: Timeout.duration(
                Duration.seconds(fixed).minus(Duration.minutes(1))
              ),
            }),
      })
    );
    park.addCatch(renewExecution, {
      errors: ['States.Timeout', 'States.HeartbeatTimeout'],
      resultPath: ERROR_PATH,
    });
    return park;
  }

  /**
   * Records the failure on the task, then fails the execution. It has no Catch of its own: if it
   * still fails past its retries, the execution fails and the reconciler fails the task.
   */
  #failTask(): LambdaInvoke {
    const failTask = withRetries(
      new LambdaInvoke(this, STATE_NAMES.failTask, {
        lambdaFunction: this.#handler,
        retryOnServiceExceptions: false,
        payload: TaskInput.fromObject({
          op: 'fail',
          ref: ref(),
          error: JsonPath.objectAt(ERROR_PATH),
        }),
        payloadResponseOnly: true,
        // Keep `$.error` for the Fail state's cause.
        resultPath: JsonPath.DISCARD,
      })
    );
    failTask.next(
      new Fail(this, STATE_NAMES.failed, { error: TASK_FAILED_ERROR, causePath: '$.error.Cause' })
    );
    return failTask;
  }
}

/** The Retry list of every Task state (RETRY_POLICY) replaces CDK's default Lambda retry. */
const withRetries = (task: LambdaInvoke): LambdaInvoke => {
  for (const retry of RETRY_POLICY) task.addRetry(retry);
  return task;
};
