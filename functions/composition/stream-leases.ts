import {
  DynamoDbStreamLeases,
  type StreamLeases,
} from '../adapters/streams/dynamodb-stream-leases.js';
import { dynamoDbClientOf } from './aws-clients.js';
import type { RuntimeConfig } from './runtime-config.js';

/** A stream's lease outlives the longest stream (14 minutes) by a minute. */
const STREAM_LEASE_TTL_MS = 15 * 60_000;

/** The leases of callers' open streams (the A2A function's per-caller stream cap). */
export const buildStreamLeases = (config: RuntimeConfig): StreamLeases =>
  new DynamoDbStreamLeases({
    client: dynamoDbClientOf(config),
    tableName: config.TINY_HARNESS_TABLE,
    ttlMs: STREAM_LEASE_TTL_MS,
  });
