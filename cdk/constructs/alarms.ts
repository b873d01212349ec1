/**
 * What an operator is told about: a turn execution that failed for good, a stream batch that
 * gave up (a parent may have missed news of a child), and a push batch that gave up (a webhook
 * missed events). All notify one encrypted topic.
 */
import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';

const PERIOD = Duration.minutes(5);

export interface HarnessAlarmsProps {
  readonly stateMachine: IStateMachine;
  readonly streamFailureQueue: IQueue;
  readonly pushFailureQueue: IQueue;
}

export class HarnessAlarms extends Construct {
  readonly topic: Topic;
  readonly executionsFailed: Alarm;
  readonly streamFailures: Alarm;
  readonly pushFailures: Alarm;

  constructor(scope: Construct, id: string, props: HarnessAlarmsProps) {
    super(scope, id);
    // A customer managed key: CloudWatch must be allowed to use it, and the AWS managed
    // alias/aws/sns key's policy cannot grant that (alarms would silently fail to publish).
    const key = new Key(this, 'TopicKey', {
      description: 'tiny-harness alarm topic encryption',
      enableKeyRotation: true,
    });
    key.grant(
      new ServicePrincipal('cloudwatch.amazonaws.com'),
      'kms:Decrypt',
      'kms:GenerateDataKey*'
    );
    this.topic = new Topic(this, 'Topic', { masterKey: key, enforceSSL: true });
    const action = new SnsAction(this.topic);

    this.executionsFailed = new Alarm(this, 'ExecutionsFailed', {
      alarmDescription:
        'A turn execution failed (the task is marked failed; read its execution history).',
      metric: props.stateMachine.metricFailed({ period: PERIOD, statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    /** A message in a consumer's on-failure queue: a batch that gave up. */
    const failureQueueAlarm = (alarmId: string, queue: IQueue, alarmDescription: string) =>
      new Alarm(this, alarmId, {
        alarmDescription,
        metric: queue.metricApproximateNumberOfMessagesVisible({
          period: PERIOD,
          statistic: 'Maximum',
        }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    this.streamFailures = failureQueueAlarm(
      'StreamFailures',
      props.streamFailureQueue,
      'A stream batch gave up after its retries: a parent may have missed a child change.'
    );
    this.pushFailures = failureQueueAlarm(
      'PushFailures',
      props.pushFailureQueue,
      'A push-notification batch gave up after its retries: a webhook missed events (see docs/push-notifications.md).'
    );
    for (const alarm of [this.executionsFailed, this.streamFailures, this.pushFailures]) {
      alarm.addAlarmAction(action);
    }
  }
}
