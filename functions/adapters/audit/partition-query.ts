import { type AttributeValue, type DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { PARTITION_KEY, SORT_KEY, taskPk } from '../dynamodb/table.js';

/** Every item of a task's partition whose sort key starts with `prefix`, in order, all pages. */
export const queryTaskItems = async (
  client: DynamoDBClient,
  tableName: string,
  taskId: string,
  prefix: string
): Promise<Array<Record<string, AttributeValue>>> => {
  const items: Array<Record<string, AttributeValue>> = [];
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
        ExpressionAttributeValues: { ':pk': { S: taskPk(taskId) }, ':prefix': { S: prefix } },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      })
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
};
