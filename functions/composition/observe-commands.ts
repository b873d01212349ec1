import type { ConsumedCapacity, DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** One DynamoDB command the runtime sent, as the benchmark counts them (scripts/bench.ts). */
export interface DynamoDbCommandObservation {
  /** The SDK's command name: `GetItem`, `Query`, `TransactWriteItems`, ... */
  command: string;
  /** The command's input as sent (a transaction's items are in `TransactItems`). */
  input: unknown;
  /** Capacity units the table (and its indexes) reported; absent when the call failed. */
  consumed?: { read: number; write: number };
  /** The error's name when the call failed (a refused condition still costs a write). */
  error?: string;
  /** How long the call took as its caller waited: serializing, the round trip, parsing. */
  ms: number;
}

const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
const WRITES = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
]);
const ITEM_COMMANDS = new Set([...READS, ...WRITES]);

/** Read and write units from a response's ConsumedCapacity (one entry, or one per table). */
const unitsOf = (command: string, output: unknown) => {
  const raw = (output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] })
    .ConsumedCapacity;
  if (raw === undefined) return undefined;
  const units = { read: 0, write: 0 };
  for (const entry of Array.isArray(raw) ? raw : [raw]) {
    const total = entry.CapacityUnits ?? 0;
    units.read += entry.ReadCapacityUnits ?? (READS.has(command) ? total : 0);
    units.write += entry.WriteCapacityUnits ?? (READS.has(command) ? 0 : total);
  }
  return units;
};

/** Reports every command the client sends (and asks each item command for its capacity). */
export const observeCommands = (
  client: DynamoDBClient,
  observe: (observation: DynamoDbCommandObservation) => void
): void => {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      const input = ITEM_COMMANDS.has(command)
        ? { ReturnConsumedCapacity: 'TOTAL', ...(args.input as object) }
        : args.input;
      const started = performance.now();
      try {
        const result = await next({ ...args, input });
        const consumed = unitsOf(command, result.output);
        const ms = performance.now() - started;
        observe(consumed === undefined ? { command, input, ms } : { command, input, consumed, ms });
        return result;
      } catch (error) {
        observe({ command, input, error: (error as Error).name, ms: performance.now() - started });
        throw error;
      }
    },
    { step: 'initialize', name: 'tinyHarnessObserveCommands' }
  );
};

/**
 * Calls `written` with its input each time a write command the client sent has been answered,
 * refused or not (a refused write changed nothing, and telling of it costs less than telling the
 * two apart).
 */
export const afterWrites = (client: DynamoDBClient, written: (input: unknown) => void): void => {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (!WRITES.has((context.commandName ?? '').replace(/Command$/, ''))) return next(args);
      try {
        return await next(args);
      } finally {
        written(args.input);
      }
    },
    { step: 'initialize', name: 'tinyHarnessAfterWrites' }
  );
};
