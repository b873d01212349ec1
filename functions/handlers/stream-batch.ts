import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { errorFields, type Logger } from '../core/ports/logger.js';

/**
 * Runs `handle` on each record of a stream batch in order and stops at the first that fails
 * (throws, or returns `false`): it is reported as the batch's item failure, and the event source
 * retries from it on, so nothing later in the shard is applied before it.
 */
export const handleInOrder = async (
  records: readonly DynamoDBRecord[],
  handle: (record: DynamoDBRecord) => Promise<boolean>,
  logger: Logger
): Promise<DynamoDBBatchResponse> => {
  for (const record of records) {
    const sequenceNumber = record.dynamodb?.SequenceNumber ?? '';
    let done: boolean;
    try {
      done = await handle(record);
    } catch (error) {
      logger.error('stream record failed', { sequenceNumber, ...errorFields(error) });
      done = false;
    }
    if (!done) return { batchItemFailures: [{ itemIdentifier: sequenceNumber }] };
  }
  return { batchItemFailures: [] };
};
