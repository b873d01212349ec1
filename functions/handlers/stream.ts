import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import middy from '@middy/core';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { decodeTaskRecord } from '../adapters/dynamodb/item-codec.js';
import {
  emfSpendMetrics,
  NO_SPEND_METRICS,
  type SpendMetricWriter,
  stdoutSink,
} from '../adapters/system/emf-metrics.js';
import { HARNESS } from '../adapters/tracing/attributes.js';
import { annotate, inTaskSpan, linkToTask } from '../adapters/tracing/step-span.js';
import { flushTraces, NO_TRACING } from '../adapters/tracing/tracing.js';
import { lambdaLoopRuntime } from '../composition/lambda/loop.js';
import type { Runtime } from '../composition/runtime.js';
import { childChangeFromRecords } from '../core/intake/child-change-from-records.js';
import { recordChildChange } from '../core/intake/child-changed.js';
import { namedTaskTypes, spendMetricOf } from '../core/loop/spend-metric.js';
import type { TaskRecord } from '../core/ports/task-store.js';
import { handleInOrder } from './stream-batch.js';

type Image = Record<string, AttributeValue>;

/** What the stand-in works with: the loop and the executions. */
type StreamRuntime = Pick<Runtime, 'loop' | 'executions' | 'logger' | 'tracing'>;

/**
 * A commit took the execution's park token (a wake, an end): answer it, in case its taker died
 * before it could. A token answered already is refused, and that is fine.
 */
const answerReleasedPark = async (
  runtime: StreamRuntime,
  before: TaskRecord | undefined,
  after: TaskRecord
): Promise<void> => {
  const released = before?.loop.parkToken;
  if (released == null || after.loop.parkToken !== null) return;
  const tracing = runtime.tracing ?? NO_TRACING;
  await inTaskSpan(tracing, { id: after.task.id, record: after }, 'wake', {}, async () => {
    const resumed = await runtime.executions.resume(released);
    runtime.logger.info('released park answered', { taskId: after.task.id, resumed });
  });
};

/**
 * A child on this harness that changed state or sub-state: its parent's row is updated and, for
 * news, the parent is woken.
 */
const relayChildChange = async (
  runtime: StreamRuntime,
  before: TaskRecord | undefined,
  after: TaskRecord
): Promise<void> => {
  const change = childChangeFromRecords(before, after, runtime.loop.config.agentId);
  if (change === undefined) return;
  const tracing = runtime.tracing ?? NO_TRACING;
  const news = { [HARNESS.childId]: change.childId };
  const links = await linkToTask(tracing, after);
  await inTaskSpan(
    tracing,
    { id: change.parentId },
    'child news',
    news,
    async () => {
      const wake = await recordChildChange(runtime.loop, change);
      annotate(tracing, { [HARNESS.wake]: wake.action });
      runtime.logger.info('child change recorded', {
        taskId: change.parentId,
        childId: change.childId,
        wake: wake.action,
      });
    },
    links
  );
};

/**
 * One stream record of a task: every released park is answered, so no wake is lost with the
 * process that took it, and a child's change reaches its parent. A failing record is reported
 * (partial batch response) and the batch stops there; a redelivered record is a no-op but for
 * its spend metric, published again. The metric (what the change spent, and the share of its
 * budget the task's tree has used) goes out last, once the record is handled, from the two
 * images alone.
 */
export const handleStreamRecord = async (
  runtime: StreamRuntime,
  record: DynamoDBRecord,
  metrics: SpendMetricWriter = NO_SPEND_METRICS
): Promise<void> => {
  const newImage = record.dynamodb?.NewImage as Image | undefined;
  if (newImage === undefined) return;
  const oldImage = record.dynamodb?.OldImage as Image | undefined;
  const after = decodeTaskRecord(newImage);
  const before = oldImage === undefined ? undefined : decodeTaskRecord(oldImage);
  await answerReleasedPark(runtime, before, after);
  await relayChildChange(runtime, before, after);
  const spent = spendMetricOf(before, after, namedTaskTypes(runtime.loop.config.defaultBudgets));
  if (spent !== undefined) metrics(after.task.id, spent);
};

// Stopping at the first failure means later changes of a child are never applied before it.
export const createStreamHandler = (
  runtime: () => StreamRuntime,
  metrics: () => SpendMetricWriter = () => NO_SPEND_METRICS
) =>
  middy(
    (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> =>
      handleInOrder(
        event.Records,
        async (record) => {
          await handleStreamRecord(runtime(), record, metrics());
          return true;
        },
        runtime().logger
      ).finally(() => flushTraces(runtime().tracing ?? NO_TRACING, runtime().logger))
  );

let metricsMemo: SpendMetricWriter | undefined;
/** In the cloud, the spend metric is an embedded metric format line in the function's log. */
const lambdaSpendMetrics = (): SpendMetricWriter => {
  metricsMemo ??= emfSpendMetrics({
    stage: lambdaLoopRuntime().config.TINY_HARNESS_STAGE,
    sink: stdoutSink,
  });
  return metricsMemo;
};

export const handler = createStreamHandler(lambdaLoopRuntime, lambdaSpendMetrics);
