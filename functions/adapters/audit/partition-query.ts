import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { queryAll, taskPrefixQuery } from '../dynamodb/table-io.js';

/** Every item of a task's partition whose sort key starts with `prefix`, in order, all pages. */
export const queryTaskItems = (
  client: DynamoDBClient,
  tableName: string,
  taskId: string,
  prefix: string
): Promise<Array<Record<string, AttributeValue>>> =>
  queryAll(client, taskPrefixQuery(tableName, taskId, prefix));
