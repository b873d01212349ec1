import { KEY_PREFIX, PARTITION_KEY } from '../adapters/dynamodb/table.js';

type Key = Record<string, { S?: string } | undefined>;

interface WriteInput {
  Key?: Key;
  Item?: Key;
  TransactItems?: Array<Record<string, { Key?: Key; Item?: Key } | undefined>>;
  RequestItems?: Record<
    string,
    Array<{ PutRequest?: { Item?: Key }; DeleteRequest?: { Key?: Key } }>
  >;
}

/**
 * The tasks a DynamoDB write puts, updates or deletes items of, by their partition keys: every
 * item of a task (its record, its log, its inbox) is in the task's partition. Anything else (a
 * caller's or a remote agent's items) names no task.
 */
export const tasksWritten = (input: unknown): Set<string> => {
  const shaped = (input ?? {}) as WriteInput;
  const keys: Array<Key | undefined> = [shaped.Key, shaped.Item];
  for (const action of shaped.TransactItems ?? []) {
    for (const write of Object.values(action)) keys.push(write?.Key ?? write?.Item);
  }
  for (const requests of Object.values(shaped.RequestItems ?? {})) {
    for (const request of requests) {
      keys.push(request.PutRequest?.Item ?? request.DeleteRequest?.Key);
    }
  }
  const tasks = new Set<string>();
  for (const key of keys) {
    const partition = key?.[PARTITION_KEY]?.S;
    if (partition?.startsWith(KEY_PREFIX.task)) tasks.add(partition.slice(KEY_PREFIX.task.length));
  }
  return tasks;
};
