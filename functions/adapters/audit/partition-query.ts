import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PARTITION_KEY, SORT_KEY, taskPk } from '../dynamodb/table.js';
import { queryAll } from '../dynamodb/table-io.js';

/** Every item of a task's partition whose sort key starts with `prefix`, in order, all pages. */
export const queryTaskItems = (
  client: DynamoDBClient,
  tableName: string,
  taskId: string,
  prefix: string
): Promise<Array<Record<string, AttributeValue>>> =>
  queryAll(client, {
    TableName: tableName,
    KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
    ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
    ExpressionAttributeValues: { ':pk': { S: taskPk(taskId) }, ':prefix': { S: prefix } },
    ConsistentRead: true,
  });
