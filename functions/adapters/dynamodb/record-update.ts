/**
 * A task record's UpdateItem, as a versioned commit and a guarded one write it: what it SETs,
 * REMOVEs and ADDs, and the conditions it is checked against.
 */
import type { Update } from '@aws-sdk/client-dynamodb';
import type { BudgetAmounts } from '../../core/ports/task-store.js';
import type { BudgetLimit } from '../../core/task/extension.schema.js';
import { type Item, type TaskRecordAttributes, taskKey } from './item-codec.js';
import { notSeenAtCreation } from './seen-at-creation.js';
import { ATTR, availableAttribute } from './table.js';
import { VERSION_MATCHES } from './table-io.js';

/**
 * The record's UpdateItem: SET every attribute, REMOVE absent index keys, ADD inline push
 * config ids; checked against the version read and whether the task had a push config then.
 */
export const recordUpdate = (
  tableName: string,
  taskId: string,
  attributes: TaskRecordAttributes,
  read: {
    expected: number;
    next: number;
    pushConfigured: boolean;
    pushIds: string[];
    enqueued: number;
    apart: number;
    credit: BudgetAmounts;
    takenIn: readonly string[];
  }
): Update => {
  const names: Record<string, string> = { '#version': ATTR.version, '#pushIds': ATTR.pushIds };
  const values: Item = {
    ':expectedVersion': { N: String(read.expected) },
    ':nextVersion': { N: String(read.next) },
  };
  const sets = ['#version = :nextVersion'];
  if (Object.keys(read.credit).length > 0) {
    names['#budgetAccount'] = ATTR.budgetAccount;
    values[':budgetAccount'] = { BOOL: true };
    sets.push('#budgetAccount = :budgetAccount');
  }
  Object.entries(attributes.set).forEach(([name, value], index) => {
    names[`#s${index}`] = name;
    values[`:s${index}`] = value;
    sets.push(`#s${index} = :s${index}`);
  });
  const removes = attributes.remove.map((name, index) => {
    names[`#r${index}`] = name;
    return `#r${index}`;
  });
  const conditions = [
    VERSION_MATCHES,
    read.pushConfigured ? 'attribute_exists(#pushIds)' : 'attribute_not_exists(#pushIds)',
    ...notSeenAtCreation(names, values, read.takenIn),
  ];
  const adds = recordAdds(names, values, read);
  return {
    TableName: tableName,
    Key: taskKey(taskId),
    UpdateExpression: [
      `SET ${sets.join(', ')}`,
      ...(removes.length > 0 ? [`REMOVE ${removes.join(', ')}`] : []),
      ...(adds.length > 0 ? [`ADD ${adds.join(', ')}`] : []),
    ].join(' '),
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
};

/**
 * The ADD clauses of a record write, binding their names and values: the ids of inline push
 * configs, the items enqueued (the inbox count) and the change in items apart, and budget
 * credits. None is part of the record's version.
 */
export const recordAdds = (
  names: Record<string, string>,
  values: Item,
  writes: { pushIds: readonly string[]; enqueued: number; apart: number; credit: BudgetAmounts }
): string[] => {
  const adds: string[] = [];
  if (writes.pushIds.length > 0) {
    names['#pushIds'] = ATTR.pushIds;
    values[':pushIds'] = { SS: [...writes.pushIds] };
    adds.push('#pushIds :pushIds');
  }
  if (writes.enqueued > 0) {
    names['#inboxCount'] = ATTR.inboxCount;
    values[':enqueued'] = { N: String(writes.enqueued) };
    adds.push('#inboxCount :enqueued');
  }
  if (writes.apart !== 0) {
    names['#inboxApart'] = ATTR.inboxApart;
    values[':apart'] = { N: String(writes.apart) };
    adds.push('#inboxApart :apart');
  }
  Object.entries(writes.credit).forEach(([limit, amount], index) => {
    names[`#credit${index}`] = availableAttribute(limit as BudgetLimit);
    values[`:credit${index}`] = { N: String(amount) };
    adds.push(`#credit${index} :credit${index}`);
  });
  return adds;
};
