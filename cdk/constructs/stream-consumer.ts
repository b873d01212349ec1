/**
 * Feeds the table's stream to StreamFunction (DESIGN §4): a child's change reaches its parent.
 * Only task records with a parent pass the filter, so the function is not invoked for the
 * transcript, inbox and event-log writes that make up most of the stream.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import {
  FilterCriteria,
  FilterRule,
  type IFunction,
  StartingPosition,
} from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ATTR, SORT_KEY, SORT_KEY_VALUE } from '../../functions/adapters/dynamodb/table.js';

/** The event-source filter: inserted or modified task records of tasks that have a parent. */
export const STREAM_FILTER = FilterCriteria.filter({
  eventName: FilterRule.or('INSERT', 'MODIFY'),
  dynamodb: {
    NewImage: {
      [SORT_KEY]: { S: FilterRule.isEqual(SORT_KEY_VALUE.task) },
      // `parent_id` is NULL (not S) on a task without a parent.
      [ATTR.parentId]: { S: FilterRule.exists() },
    },
  },
});

export interface StreamConsumerProps {
  readonly table: ITableV2;
  readonly handler: IFunction;
}

export class StreamConsumer extends Construct {
  /** Where a batch goes after its retries: it holds the shard position, not the records. */
  readonly failureQueue: Queue;

  constructor(scope: Construct, id: string, props: StreamConsumerProps) {
    super(scope, id);
    this.failureQueue = new Queue(this, 'FailureQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.failureQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself the on-failure destination (dead-letter queue) of the stream consumer; a dead-letter queue for it would hold nothing new.',
    });

    props.handler.addEventSource(
      new DynamoEventSource(props.table, {
        // A fresh deployment acts on changes from now on; TRIM_HORIZON would replay a day.
        startingPosition: StartingPosition.LATEST,
        batchSize: 10,
        // A poisoned record must not block its shard (DESIGN §4): bounded retries, bisect to
        // isolate it, report per-record failures, give up on records older than an hour, and
        // send what failed to the queue for an operator (the alarm in alarms.ts fires).
        retryAttempts: 3,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        maxRecordAge: Duration.hours(1),
        onFailure: new SqsDlq(this.failureQueue),
        filters: [STREAM_FILTER],
      })
    );
  }
}
