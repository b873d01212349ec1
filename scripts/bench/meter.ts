import type { DynamoDbCommandObservation } from '../../functions/composition/runtime.js';
import { billObservation, type ItemShape } from './billed-units.js';

export const READ_COMMANDS = new Set([
  'GetItem',
  'Query',
  'Scan',
  'BatchGetItem',
  'TransactGetItems',
]);
export const WRITE_COMMANDS = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
]);

export const increment = (map: Map<string, number>, key: string, by = 1): void => {
  map.set(key, (map.get(key) ?? 0) + by);
};

/** Items a command reads or writes (a transaction's or a batch's items each count). */
export const itemsOf = (input: unknown): number => {
  const shaped = input as {
    TransactItems?: unknown[];
    RequestItems?: Record<string, unknown[] | { Keys?: unknown[] }>;
  };
  if (shaped.TransactItems !== undefined) return shaped.TransactItems.length;
  if (shaped.RequestItems !== undefined) {
    return Object.values(shaped.RequestItems).reduce<number>(
      (sum, entry) => sum + (Array.isArray(entry) ? entry.length : (entry.Keys?.length ?? 0)),
      0
    );
  }
  return 1;
};

/**
 * The kinds of item a command touches, from the sort keys in its input
 * (functions/adapters/dynamodb/table.ts): `TASK`, `HIST#`, `HIST# (range)` and `PUSH# (prefix)`
 * for a Query of a task's partition, `index by_context` for a Query of an index.
 */
export const kindsOf = (input: unknown): string[] => {
  const index = (input as { IndexName?: unknown }).IndexName;
  if (typeof index === 'string') return [`index ${index}`];
  const kinds: string[] = [];
  const visit = (value: unknown, key: string) => {
    if (key === 'sk' && typeof value === 'object' && value !== null && 'S' in value) {
      kinds.push(String(value.S).replace(/#.*$/, '#'));
      return;
    }
    if (key === ':from' && typeof value === 'object' && value !== null && 'S' in value) {
      kinds.push(`${String(value.S).replace(/#.*$/, '#')} (range)`);
      return;
    }
    if (key === ':prefix' && typeof value === 'object' && value !== null && 'S' in value) {
      kinds.push(`${String(value.S)} (prefix)`);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    for (const [child, inner] of Object.entries(value)) visit(inner, child);
  };
  visit(input, '');
  return kinds.length > 0 ? kinds : ['?'];
};

/**
 * Counts the runtime's DynamoDB commands while `counting`, and hands every observation, with the
 * time it completed, to its listeners. It remembers every item it sees written, counting or not,
 * so that a write's billed units can take the larger of the item before and after it.
 */
export class DynamoDbMeter {
  counting = false;
  readRequests = 0;
  writeRequests = 0;
  readUnits = 0;
  /** Write units as DynamoDB Local reported them (not what AWS bills: `billedWriteUnits`). */
  writeUnits = 0;
  /** Write units as AWS bills them (scripts/bench/billed-units.ts). */
  billedWriteUnits = 0;
  failedWrites = 0;
  /** The counted commands' durations, summed (their callers mostly wait on one at a time). */
  ms = 0;
  commands = new Map<string, number>();
  items = new Map<string, number>();
  readonly #listeners = new Set<(observation: DynamoDbCommandObservation, at: number) => void>();
  /** Every item seen written, by `itemKey`, as it stands (kept across resets). */
  readonly #items = new Map<string, ItemShape>();

  reset(): void {
    this.readRequests = this.writeRequests = this.readUnits = this.writeUnits = 0;
    this.billedWriteUnits = 0;
    this.failedWrites = 0;
    this.ms = 0;
    this.commands = new Map();
    this.items = new Map();
  }

  /** Calls `listener` with each command as it completes (Date.now()); returns the unsubscribe. */
  listen(listener: (observation: DynamoDbCommandObservation, at: number) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  readonly observe = (observation: DynamoDbCommandObservation): void => {
    if (this.#listeners.size > 0) {
      const at = Date.now();
      for (const listener of this.#listeners) listener(observation, at);
    }
    if (WRITE_COMMANDS.has(observation.command)) {
      const billed = billObservation(observation, (key) => this.#items.get(key));
      for (const { key, after } of billed.writes) {
        if (after === undefined) this.#items.delete(key);
        else this.#items.set(key, after);
      }
      if (this.counting) this.billedWriteUnits += billed.units;
    }
    if (!this.counting) return;
    const { command } = observation;
    this.ms += observation.ms;
    increment(this.commands, command);
    for (const kind of kindsOf(observation.input)) increment(this.items, `${command} ${kind}`);
    const items = itemsOf(observation.input);
    if (READ_COMMANDS.has(command)) this.readRequests += items;
    if (WRITE_COMMANDS.has(command)) this.writeRequests += items;
    if (observation.consumed !== undefined) {
      this.readUnits += observation.consumed.read;
      this.writeUnits += observation.consumed.write;
    } else if (WRITE_COMMANDS.has(command)) {
      // A refused condition reports no capacity, yet AWS bills it: at least one unit per item.
      this.failedWrites += items;
      this.writeUnits += items * (command === 'TransactWriteItems' ? 2 : 1);
    }
  };
}
