import middy from '@middy/core';
import type {
  Context,
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
} from 'aws-lambda';
import * as z from 'zod';
import {
  decodeEvent,
  type ItemImage,
  partsOf,
  taskIdOfKey,
} from '../adapters/dynamodb/item-codec.js';
import { decodeLogItem, logItemHead } from '../adapters/dynamodb/log-item.js';
import { KEY_PREFIX, SORT_KEY } from '../adapters/dynamodb/table.js';
import { lambdaPushRuntime } from '../composition/lambda/push.js';
import type { Runtime } from '../composition/runtime.js';
import type { LoopDeps } from '../core/loop/deps.js';
import { deliverEvent } from '../service/push-delivery.js';
import { handleInOrder } from './stream-batch.js';

/**
 * What delivery works with: the task records and their event log, the push configs, their
 * sealer, the sender.
 */
export type PushRuntime = Pick<Runtime, 'pushConfigs' | 'sealer' | 'webhooks' | 'logger'> & {
  loop: Pick<LoopDeps, 'store' | 'events'>;
};

/** Time kept back from the invocation's end, to report the batch before Lambda stops it. */
const DEADLINE_MARGIN_MS = 3_000;

/** What the event source mapping's filter passes: an inserted log item (or an earlier event item). */
const EventInsertSchema = z.object({
  eventName: z.literal('INSERT'),
  dynamodb: z.object({
    SequenceNumber: z.string().min(1),
    NewImage: z.record(z.string(), z.looseObject({})),
  }),
});

/**
 * The events a stream image carries: a log item's (read from the log when its payload is in
 * pieces, which the image lacks), or an earlier build's one event item's.
 */
const eventsOf = async (runtime: PushRuntime, taskId: string, image: ItemImage) => {
  const sk = image[SORT_KEY]?.S ?? '';
  if (sk.startsWith(KEY_PREFIX.event)) return [decodeEvent(image)];
  if (!sk.startsWith(KEY_PREFIX.log)) return [];
  if (partsOf(image) === 0) return decodeLogItem(image).events();
  const { eventSeq, eventCount } = logItemHead(image);
  return runtime.loop.events.read(taskId, eventSeq - eventCount, eventCount);
};

/**
 * Push-notification delivery (A2A §4.3): each event appended to a task's log is POSTed to the
 * task's push configs, in the order of the log. Returns whether the record is done with; `false`
 * (a config still to be delivered) makes it the batch's failure, and the event source retries
 * from it.
 */
export const handlePushRecord = async (
  runtime: PushRuntime,
  record: DynamoDBRecord,
  deadline: number
): Promise<boolean> => {
  const parsed = EventInsertSchema.safeParse(record);
  const image = parsed.data?.dynamodb.NewImage as ItemImage | undefined;
  // The filter passes nothing else; anything else is not ours to deliver.
  if (image === undefined) return true;
  const taskId = taskIdOfKey(image);
  for (const logged of await eventsOf(runtime, taskId, image)) {
    const delivery = await deliverEvent(
      { ...runtime, store: runtime.loop.store },
      taskId,
      logged,
      deadline
    );
    if (!delivery.complete) return false;
  }
  return true;
};

// In order, stopping at the first record not done with: a task's events reach a webhook in the
// order of its log (a retried record redelivers the ones after it: at least once, not exactly).
export const createPushHandler = (runtime: () => PushRuntime) =>
  middy((event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> => {
    const deadline = Date.now() + context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS;
    return handleInOrder(
      event.Records,
      (record) => handlePushRecord(runtime(), record, deadline),
      runtime().logger
    );
  });

export const handler = createPushHandler(lambdaPushRuntime);
