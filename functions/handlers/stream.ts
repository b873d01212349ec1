import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import middy from '@middy/core';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { decodeTaskRecord } from '../adapters/dynamodb/item-codec.js';
import { errorFields } from '../adapters/system/logger.js';
import { lambdaRuntime, type Runtime } from '../composition/runtime.js';
import { childChangeFromRecords } from '../core/intake/child-change-from-records.js';
import { recordChildChange } from '../core/intake/child-changed.js';

type Image = Record<string, AttributeValue>;

/**
 * The stand-in: a child's state change reaches its parent. For each task record that changed
 * state or sub-state and has a parent on this harness, the parent's row is updated and, for news,
 * the parent is woken. A failing record is reported (partial batch response) and the batch stops
 * there; a redelivered record is a no-op.
 */
export const handleStreamRecord = async (
  runtime: Runtime,
  record: DynamoDBRecord
): Promise<void> => {
  const newImage = record.dynamodb?.NewImage as Image | undefined;
  if (newImage === undefined) return;
  const oldImage = record.dynamodb?.OldImage as Image | undefined;
  const after = decodeTaskRecord(newImage);
  const before = oldImage === undefined ? undefined : decodeTaskRecord(oldImage);
  const change = childChangeFromRecords(before, after, runtime.loop.config.agentId);
  if (change === undefined) return;
  const wake = await recordChildChange(runtime.loop, change);
  runtime.logger.info('child change recorded', {
    taskId: change.parentId,
    childId: change.childId,
    wake: wake.action,
  });
  if (wake.action === 'resume') await runtime.executions.resume(wake.token);
};

export const createStreamHandler = (runtime: () => Runtime) =>
  middy(async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const failures: DynamoDBBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      try {
        await handleStreamRecord(runtime(), record);
      } catch (error) {
        runtime().logger.error('stream record failed', {
          sequenceNumber: record.dynamodb?.SequenceNumber,
          ...errorFields(error),
        });
        // Stop at the first failure: the event source retries from this record on, so later
        // changes of the same child are never applied before an earlier one.
        failures.push({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' });
        break;
      }
    }
    return { batchItemFailures: failures };
  });

export const handler = createStreamHandler(lambdaRuntime);
