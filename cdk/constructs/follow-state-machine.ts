/**
 * The stand-in of a child on a remote agent, as states: "Follow" asks RemoteFollowFunction for
 * one step (deliver what changed, send a cancel, poll GetTask) and how long to wait; "Wait"
 * waits that long (no Lambda runs meanwhile); until the child ended and its parent took it.
 * One execution per child (`rf-<link>-<run>`). Polls back off from seconds to minutes, so a child
 * that answers in seconds is seen in seconds and one that takes a day costs a few hundred state
 * transitions.
 *
 * JSONPath on purpose (no JSONata): the local interpreter runs this very definition.
 */
import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import {
  Choice,
  Condition,
  DefinitionBody,
  Fail,
  JsonPath,
  LogLevel,
  StateMachine,
  StateMachineType,
  Succeed,
  TaskInput,
  Wait,
  WaitTime,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { acknowledge, wildcardResourceFinding } from './nag.js';
import { CATCH_ERRORS, RETRY_POLICY } from './turn-state-machine.js';

export const FOLLOW_STATE_NAMES = {
  follow: 'Follow',
  followed: 'Followed?',
  wait: 'Wait',
  done: 'Done',
  followFailed: 'Follow Failed',
  failed: 'Failed',
} as const;

export interface FollowStateMachineProps {
  /** RemoteFollowFunction: every Task state invokes it. */
  readonly handler: IFunction;
  /** Fixed, so the functions that start followers know its ARN without a reference. */
  readonly stateMachineName: string;
  /** @default one month */
  readonly logRetention?: RetentionDays;
}

export class FollowStateMachine extends Construct {
  readonly stateMachine: StateMachine;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: FollowStateMachineProps) {
    super(scope, id);
    const follow = new LambdaInvoke(this, FOLLOW_STATE_NAMES.follow, {
      lambdaFunction: props.handler,
      retryOnServiceExceptions: false,
      // The follower's state ({ parentId, linkId, run, steps }) is the step's input (no payload:
      // the state itself) and its output.
      payloadResponseOnly: true,
      resultPath: JsonPath.entirePayload,
    });
    for (const retry of RETRY_POLICY) follow.addRetry(retry);

    // Following failed for good: the child fails with the reason, so its parent does not wait on
    // a child nobody follows.
    const followFailed = new LambdaInvoke(this, FOLLOW_STATE_NAMES.followFailed, {
      lambdaFunction: props.handler,
      retryOnServiceExceptions: false,
      payload: TaskInput.fromObject({
        op: 'fail',
        parentId: JsonPath.stringAt('$.parentId'),
        linkId: JsonPath.stringAt('$.linkId'),
        error: JsonPath.objectAt('$.error'),
      }),
      payloadResponseOnly: true,
      resultPath: JsonPath.DISCARD,
    });
    for (const retry of RETRY_POLICY) followFailed.addRetry(retry);
    followFailed.next(new Fail(this, FOLLOW_STATE_NAMES.failed, { causePath: '$.error.Cause' }));
    for (const errors of CATCH_ERRORS) {
      follow.addCatch(followFailed, { errors: [...errors], resultPath: '$.error' });
    }

    const wait = new Wait(this, FOLLOW_STATE_NAMES.wait, {
      time: WaitTime.secondsPath('$.waitSeconds'),
    });
    follow.next(
      new Choice(this, FOLLOW_STATE_NAMES.followed)
        .when(Condition.booleanEquals('$.done', true), new Succeed(this, FOLLOW_STATE_NAMES.done))
        .otherwise(wait)
    );
    wait.next(follow);

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
    });
    this.stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineName: props.stateMachineName,
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromChainable(follow),
      logs: { destination: this.logGroup, level: LogLevel.ALL, includeExecutionData: false },
      tracingEnabled: true,
      // A follower renews itself long before; this only bounds one that lost its way.
      timeout: Duration.days(30),
    });
    acknowledge(
      this.stateMachine.role,
      wildcardResourceFinding(this, `${props.handler.functionArn}:*`),
      "CDK's LambdaInvoke grants the follow function and its versions and aliases (<function ARN>:*); the state machine invokes no other function."
    );
    acknowledge(
      this.stateMachine.role,
      'AwsSolutions-IAM5[Resource::*]',
      'Step Functions log delivery (logs:CreateLogDelivery and related) and X-Ray tracing support no resource-level permissions; AWS documents "*" for both.'
    );
  }
}
