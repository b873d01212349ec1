/**
 * Feeds the table's stream to a function through a filtered event source mapping, with what a
 * stream consumer must have so that a poisoned record never blocks its shard:
 * bounded retries, bisection, per-record failures, and an on-failure queue. Two consumers read
 * the stream: StreamFunction (the stand-in: a child's change reaches its parent) and PushFunction
 * (push notifications); the filters keep each function from being invoked for the rest.
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
import {
  ATTR,
  KEY_PREFIX,
  SORT_KEY,
  SORT_KEY_VALUE,
} from '../../functions/adapters/dynamodb/table.js';

/** A child's change for the stand-in: inserted or modified task records of tasks with a parent. */
export const CHILD_CHANGE_FILTER = FilterCriteria.filter({
  eventName: FilterRule.or('INSERT', 'MODIFY'),
  dynamodb: {
    NewImage: {
      [SORT_KEY]: { S: FilterRule.isEqual(SORT_KEY_VALUE.task) },
      // `parent_id` is NULL (not S) on a task without a parent.
      [ATTR.parentId]: { S: FilterRule.exists() },
    },
  },
});

/**
 * A released park: a task record whose commit took its execution's task token (a wake, an end).
 * The stream function answers the token, so a wake whose sender died after the commit is still
 * delivered (the sender answers it at once too; the second answer is refused and ignored).
 */
export const RELEASED_PARK_FILTER = FilterCriteria.filter({
  eventName: FilterRule.isEqual('MODIFY'),
  dynamodb: {
    OldImage: {
      [SORT_KEY]: { S: FilterRule.isEqual(SORT_KEY_VALUE.task) },
      [ATTR.parked]: { BOOL: [true] },
    },
    NewImage: { [ATTR.parked]: { BOOL: [false] } },
  },
});

/**
 * Every change of a task with a budget account (its spend metric and its budget's share are
 * published for each): a top-level task's own calls included, which no other filter passes.
 */
export const BUDGETED_TASK_FILTER = FilterCriteria.filter({
  eventName: FilterRule.or('INSERT', 'MODIFY'),
  dynamodb: {
    NewImage: {
      [SORT_KEY]: { S: FilterRule.isEqual(SORT_KEY_VALUE.task) },
      [ATTR.budgetAccount]: { BOOL: [true] },
    },
  },
});

/** The stream function's filters (any one passes a record). */
export const STREAM_FILTERS = [CHILD_CHANGE_FILTER, RELEASED_PARK_FILTER, BUDGETED_TASK_FILTER];

/**
 * The push function's filter: a commit's log item (`LOG#`; an earlier build's event item, `EVT#`,
 * while it may still run) that the task store marked `push` (it logs events, and the task had a
 * push config as they were committed): a task without one never invokes the function, nor costs
 * it a read of the task's configs. Log items are put once and never changed, so INSERT is all.
 */
export const PUSH_FILTER = FilterCriteria.filter({
  eventName: FilterRule.isEqual('INSERT'),
  dynamodb: {
    NewImage: {
      [SORT_KEY]: {
        S: [...FilterRule.beginsWith(KEY_PREFIX.log), ...FilterRule.beginsWith(KEY_PREFIX.event)],
      },
      [ATTR.push]: { BOOL: [true] },
    },
  },
});

export interface StreamConsumerProps {
  readonly table: ITableV2;
  readonly handler: IFunction;
  /** Records that pass any of these are delivered. */
  readonly filters: ReturnType<typeof FilterCriteria.filter>[];
  /** @default 10 */
  readonly batchSize?: number;
  /**
   * Batches of one shard processed at once. Records with the same partition key (one task)
   * still arrive in order, one batch at a time. @default 1
   */
  readonly parallelizationFactor?: number;
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
        batchSize: props.batchSize ?? 10,
        ...(props.parallelizationFactor === undefined
          ? {}
          : { parallelizationFactor: props.parallelizationFactor }),
        // A poisoned record must not block its shard: bounded retries, bisect to
        // isolate it, report per-record failures, give up on records older than an hour, and
        // send what failed to the queue for an operator (the alarm in alarms.ts fires).
        retryAttempts: 3,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        maxRecordAge: Duration.hours(1),
        onFailure: new SqsDlq(this.failureQueue),
        filters: props.filters,
      })
    );
  }
}
