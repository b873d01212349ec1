/**
 * Every way a turn execution can end is observed: an EventBridge rule on the turn state machine's
 * execution status changes (FAILED, TIMED_OUT, ABORTED) invokes the reconciler, which fails the
 * task with a readable reason or starts a fresh generation when work is waiting
 * (functions/service/reconcile.ts). `States.Runtime` errors, a Fail Task that failed itself, a
 * one-year timeout and a stop from the console all end up there. A schedule invokes it every
 * minute to start the generations whose start was lost (a starter that died between its commit
 * and StartExecution: functions/service/pending-starts.ts). Deliveries EventBridge gives up on go
 * to an encrypted queue that the alarms watch.
 */
import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { PENDING_START_SWEEP_MINUTES } from '../../functions/service/pending-start-schedule.js';
import { acknowledge } from './nag.js';

/** The execution ends the reconciler is told of (SUCCEEDED is the task's own business). */
export const RECONCILED_STATUSES = ['FAILED', 'TIMED_OUT', 'ABORTED'] as const;

export interface ExecutionReconcilerProps {
  /** ReconcileFunction (functions/handlers/reconcile.ts). */
  readonly handler: IFunction;
  /** The turn state machine's ARN (computed from its fixed name). */
  readonly stateMachineArn: string;
}

export class ExecutionReconciler extends Construct {
  readonly rule: Rule;
  /** Invokes the reconciler's pending-start sweep on a schedule. */
  readonly sweepRule: Rule;
  /** Execution ends EventBridge could not deliver to the reconciler after its retries. */
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: ExecutionReconcilerProps) {
    super(scope, id);
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledge(
      this.deadLetterQueue,
      'AwsSolutions-SQS3',
      "This queue is itself the dead-letter queue of the reconciler rule's target; a dead-letter queue for it would hold nothing new."
    );
    this.rule = new Rule(this, 'ExecutionEnded', {
      description: 'tiny-harness: a turn execution ended FAILED, TIMED_OUT or ABORTED',
      eventPattern: {
        source: ['aws.states'],
        detailType: ['Step Functions Execution Status Change'],
        detail: {
          status: [...RECONCILED_STATUSES],
          stateMachineArn: [props.stateMachineArn],
        },
      },
    });
    // The reconciler is idempotent, so EventBridge may retry freely; a day is longer than any
    // outage the reconciler's own dependencies (DynamoDB, Step Functions) should have.
    this.rule.addTarget(
      new LambdaFunction(props.handler, {
        retryAttempts: 20,
        maxEventAge: Duration.hours(24),
        deadLetterQueue: this.deadLetterQueue,
      })
    );
    this.sweepRule = new Rule(this, 'PendingStartSweep', {
      description: 'tiny-harness: start the generations whose starter died before starting them',
      schedule: Schedule.rate(Duration.minutes(PENDING_START_SWEEP_MINUTES)),
    });
    // A missed sweep is made up by the next one: a short retry, the same dead-letter queue.
    this.sweepRule.addTarget(
      new LambdaFunction(props.handler, {
        retryAttempts: 2,
        maxEventAge: Duration.minutes(PENDING_START_SWEEP_MINUTES * 5),
        deadLetterQueue: this.deadLetterQueue,
      })
    );
  }
}
