import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  CONTENDED_ATTEMPTS,
  DynamoDbTaskStore,
} from '../../../functions/adapters/dynamodb/dynamodb-task-store.js';
import { isContendedOnly } from '../../../functions/adapters/dynamodb/table-io.js';
import { ConcurrencyConflictError } from '../../../functions/core/errors.js';
import type { TaskCommit } from '../../../functions/core/ports/task-store.js';

/** A cancelled transaction as the SDK raises it, with one reason per action. */
const cancelled = (...codes: string[]) =>
  Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

/** A client whose writes answer with `outcomes` in turn (an error is thrown), and what it sent. */
const clientAnswering = (...outcomes: unknown[]) => {
  const sent: string[] = [];
  const client = {
    send: async (command: { constructor: { name: string } }) => {
      sent.push(command.constructor.name);
      const outcome = outcomes[Math.min(sent.length, outcomes.length) - 1];
      if (outcome instanceof Error) throw outcome;
      return {};
    },
  } as unknown as DynamoDBClient;
  return { client, sent };
};

/** A message taken into a running task: a check that it is open, and its audit record. */
const guarded: TaskCommit = {
  kind: 'guarded',
  taskId: 'task-1',
  unparked: false,
  audit: [{ key: 'audit:m-1', value: { accepted: true } }],
};

describe('a commit refused only because another transaction held one of its items', () => {
  it('is sent again as it is, and commits', async () => {
    const { client, sent } = clientAnswering(cancelled('TransactionConflict', 'None'), {});
    const store = new DynamoDbTaskStore({ client, tableName: 't', partCache: false });
    await expect(store.commit(guarded)).resolves.toEqual({ enqueued: [] });
    expect(sent).toEqual(['TransactWriteItemsCommand', 'TransactWriteItemsCommand']);
  });

  it('is a conflict to decide again once it has lost every attempt', async () => {
    const { client, sent } = clientAnswering(cancelled('TransactionConflict', 'None'));
    const store = new DynamoDbTaskStore({ client, tableName: 't', partCache: false });
    await expect(store.commit(guarded)).rejects.toBeInstanceOf(ConcurrencyConflictError);
    expect(sent).toHaveLength(CONTENDED_ATTEMPTS);
  });

  it('is never sent again when one of its conditions was found false', async () => {
    const { client, sent } = clientAnswering(
      cancelled('ConditionalCheckFailed', 'TransactionConflict')
    );
    const store = new DynamoDbTaskStore({ client, tableName: 't', partCache: false });
    await expect(store.commit(guarded)).rejects.toBeInstanceOf(ConcurrencyConflictError);
    expect(sent).toHaveLength(1);
  });
});

describe('whether a write was refused only for contention', () => {
  it('is so for a conflict alone, and for a plain write meeting a transaction', () => {
    expect(isContendedOnly(cancelled('None', 'TransactionConflict'))).toBe(true);
    expect(
      isContendedOnly(Object.assign(new Error('x'), { name: 'TransactionConflictException' }))
    ).toBe(true);
    expect(isContendedOnly(cancelled('ConditionalCheckFailed', 'TransactionConflict'))).toBe(false);
    expect(isContendedOnly(cancelled('ValidationError'))).toBe(false);
    expect(isContendedOnly(cancelled('None'))).toBe(false);
    expect(isContendedOnly(new Error('ECONNREFUSED'))).toBe(false);
  });
});
