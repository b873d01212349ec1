import { describe, expect, it } from 'vitest';
import { tasksWritten } from '../../functions/local/tasks-written.js';

const key = (pk: string, sk = 'TASK') => ({ pk: { S: pk }, sk: { S: sk } });

describe('the tasks a DynamoDB write names', () => {
  it('reads every kind of write by its items’ partition keys, and only task partitions', () => {
    expect(tasksWritten({ Key: key('TASK#a') })).toEqual(new Set(['a']));
    expect(tasksWritten({ Item: key('TASK#b', 'LOG#1#2') })).toEqual(new Set(['b']));
    expect(
      tasksWritten({
        TransactItems: [
          { Update: { Key: key('TASK#c') } },
          { Put: { Item: key('TASK#c', 'INBOX#1') } },
          { ConditionCheck: { Key: key('TASK#d') } },
          { Delete: { Key: key('PART#alice', 'TASK#c') } },
        ],
      })
    ).toEqual(new Set(['c', 'd']));
    expect(
      tasksWritten({
        RequestItems: {
          table: [
            { PutRequest: { Item: key('TASK#e') } },
            { DeleteRequest: { Key: key('TASK#f') } },
          ],
        },
      })
    ).toEqual(new Set(['e', 'f']));
    expect(tasksWritten({ Item: key('REMOTE#agent') })).toEqual(new Set());
    expect(tasksWritten(undefined)).toEqual(new Set());
  });
});
