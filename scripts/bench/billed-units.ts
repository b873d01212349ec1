/**
 * Write request units as AWS bills them, from the commands' inputs alone (pure). DynamoDB Local's
 * own ConsumedCapacity is not what AWS bills: it charges a lone small item in a transaction 4
 * units where AWS bills 2, and several items of one size in one transaction as if they were one.
 *
 * The rules, from the DynamoDB Developer Guide ("DynamoDB read and write operations", "Amazon
 * DynamoDB Transactions: How it works", "DynamoDB item sizes and formats"; 1 KB = 1024 bytes):
 * - PutItem, UpdateItem, DeleteItem: ⌈size ÷ 1 KB⌉ units, at least 1, where size is the larger of
 *   the item before and after the write (a delete: the item deleted).
 * - BatchWriteItem: each put or delete as if it were sent alone, then summed.
 * - TransactWriteItems: DynamoDB makes two underlying writes of every item in the transaction
 *   (prepare and commit): 2 × ⌈size ÷ 1 KB⌉ for each Put, Update and Delete, and for each
 *   ConditionCheck, whose item is an item of the transaction too (sized as it stands).
 * - A refused condition is billed: a standalone write consumes what it would have written (the
 *   guide's example: an existing 300 KB item, a new one of 310 KB, 310 KB consumed). For a
 *   cancelled transaction the guide says only that every item takes two underlying writes; it is
 *   billed here as if it had committed, the upper bound.
 *
 * Approximated:
 * - An item the meter never saw written (written before it existed, or by another client) is
 *   taken as absent: its "before" is nothing.
 * - An update's result is computed from the item as last seen and the update expression: `SET`
 *   of a value or of `if_not_exists`, `list_append`, `+`, `-`; `REMOVE`; `ADD` and `DELETE` of
 *   numbers and sets. Paths into a list or a map (`a.b`, `a[0]`) are not followed: a `SET` of one
 *   adds the value's size to its top-level attribute without taking away what it replaces, a
 *   `REMOVE` of one changes nothing, and reading one yields nothing. Sums of numbers are exact
 *   for decimals, and the size of a number is the documented approximation (one byte per two
 *   significant digits, plus one).
 * - The legacy `AttributeUpdates` and `Expected` parameters are ignored; a batch's unprocessed
 *   items (the response, which the meter does not see) are counted as written.
 * - Writes to global secondary indexes, which AWS bills on top of the table's, are not counted.
 */
import { PARTITION_KEY, SORT_KEY } from '../../functions/adapters/dynamodb/table.js';

/** A marshalled attribute value, as the SDK's commands take it: `{ S: 'x' }`, `{ N: '1' }`, ... */
export type AttributeValue = Readonly<Record<string, unknown>>;
/** A marshalled item: attribute name → value. */
export type Item = Readonly<Record<string, AttributeValue>>;

/** 1 KB, as DynamoDB counts it. */
export const KB = 1024;

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

const NUMBER = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * A number's size: 1 byte per two significant digits (leading and trailing zeros trimmed), plus
 * 1 byte. AWS gives this as an approximation.
 */
export const numberBytes = (text: string): number => {
  const match = NUMBER.exec(text.trim());
  if (match === null) return utf8(text);
  const significant = `${match[2] ?? ''}${match[3] ?? ''}`.replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(significant.length / 2) + 1;
};

/** Binary values count their raw bytes (they travel as base64, which is not what is counted). */
const binaryBytes = (value: unknown): number => {
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return value.byteLength;
  return typeof value === 'string' ? utf8(value) : 0;
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((each) => typeof each === 'string') : [];

/** A value's size without its attribute name. */
export const valueBytes = (value: AttributeValue): number => {
  if (typeof value.S === 'string') return utf8(value.S);
  if (typeof value.N === 'string') return numberBytes(value.N);
  if (value.B !== undefined) return binaryBytes(value.B);
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (Array.isArray(value.SS)) return strings(value.SS).reduce((sum, s) => sum + utf8(s), 0);
  if (Array.isArray(value.NS)) return strings(value.NS).reduce((sum, n) => sum + numberBytes(n), 0);
  if (Array.isArray(value.BS)) return value.BS.reduce((sum, b) => sum + binaryBytes(b), 0);
  // Lists and maps: 3 bytes, and 1 byte per element besides its size (a map's keys count as names).
  if (Array.isArray(value.L)) {
    return value.L.reduce<number>(
      (sum, each) => sum + 1 + (isRecord(each) ? valueBytes(each) : 0),
      3
    );
  }
  if (isRecord(value.M)) {
    return Object.entries(value.M).reduce<number>(
      (sum, [name, each]) => sum + 1 + utf8(name) + (isRecord(each) ? valueBytes(each) : 0),
      3
    );
  }
  return 0;
};

/** An item's size as DynamoDB counts it: every attribute's name and value. */
export const itemBytes = (item: Item): number =>
  Object.entries(item).reduce((sum, [name, value]) => sum + utf8(name) + valueBytes(value), 0);

/** Write units for one write of an item of `bytes` (not in a transaction). */
export const writeUnitsOf = (bytes: number): number => Math.max(1, Math.ceil(bytes / KB));

/**
 * What is remembered of one attribute: its value's size and, for numbers and sets (small, and
 * needed to apply `ADD` and `DELETE`), the value itself.
 */
export interface StoredAttribute {
  bytes: number;
  value?: AttributeValue;
}
/** What is remembered of an item: each attribute by name. */
export type ItemShape = ReadonlyMap<string, StoredAttribute>;

const SET_TYPES = ['SS', 'NS', 'BS'] as const;

const stored = (value: AttributeValue): StoredAttribute => {
  const keep = typeof value.N === 'string' || SET_TYPES.some((type) => Array.isArray(value[type]));
  return keep ? { bytes: valueBytes(value), value } : { bytes: valueBytes(value) };
};

export const shapeOf = (item: Item): ItemShape =>
  new Map(Object.entries(item).map(([name, value]) => [name, stored(value)]));

/** The size of an item as remembered; an item never seen is absent: 0. */
export const shapeBytes = (shape: ItemShape | undefined): number =>
  shape === undefined
    ? 0
    : [...shape].reduce((sum, [name, attribute]) => sum + utf8(name) + attribute.bytes, 0);

/** The key the meter remembers an item by: its table and its partition and sort keys. */
export const itemKey = (table: string, item: Item): string =>
  JSON.stringify([table, item[PARTITION_KEY] ?? null, item[SORT_KEY] ?? null]);

// --- Numbers, exactly: a decimal as digits × 10^-scale. ---

const decimalOf = (text: string): { digits: bigint; scale: number } | undefined => {
  const match = NUMBER.exec(text.trim());
  if (match === null || `${match[2] ?? ''}${match[3] ?? ''}` === '') return undefined;
  const fraction = match[3] ?? '';
  const digits = BigInt(`${match[2] ?? ''}${fraction}` || '0');
  return {
    digits: match[1] === '-' ? -digits : digits,
    scale: fraction.length - Number(match[4] ?? 0),
  };
};

const addNumbers = (a: string, b: string, sign: 1 | -1): string | undefined => {
  const x = decimalOf(a);
  const y = decimalOf(b);
  if (x === undefined || y === undefined) return undefined;
  const scale = Math.max(x.scale, y.scale);
  const align = (d: { digits: bigint; scale: number }) => d.digits * 10n ** BigInt(scale - d.scale);
  const sum = align(x) + BigInt(sign) * align(y);
  return scale === 0 ? String(sum) : `${sum}e${-scale}`;
};

// --- Sets: their elements, by identity. ---

const setType = (value: AttributeValue | undefined) =>
  SET_TYPES.find((type) => Array.isArray(value?.[type]));

const elementsOf = (value: AttributeValue, type: (typeof SET_TYPES)[number]): unknown[] =>
  (value[type] as unknown[] | undefined) ?? [];

const identity = (element: unknown) =>
  typeof element === 'string' ? element : Buffer.from(element as Uint8Array).toString('base64');

/** The set `existing` with `change`'s elements added (`ADD`) or taken away (`DELETE`). */
const changedSet = (
  existing: AttributeValue | undefined,
  change: AttributeValue,
  add: boolean
): StoredAttribute | undefined => {
  const type = setType(change);
  if (type === undefined) return existing === undefined ? undefined : stored(existing);
  const elements = new Map<string, unknown>();
  if (setType(existing) === type && existing !== undefined) {
    for (const element of elementsOf(existing, type)) elements.set(identity(element), element);
  }
  for (const element of elementsOf(change, type)) {
    if (add) elements.set(identity(element), element);
    else elements.delete(identity(element));
  }
  if (elements.size === 0) return undefined;
  return stored({ [type]: [...elements.values()] });
};

// --- Update expressions. ---

/** `text` split at `separator` outside parentheses, each part trimmed, empty parts dropped. */
const splitTop = (text: string, separator: string): string[] => {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '(') depth++;
    else if (char === ')') depth--;
    else if (char === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part !== '');
};

/** The index of the last `+` or `-` outside parentheses, or -1. */
const topLevelOperator = (text: string): number => {
  let depth = 0;
  let found = -1;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '(') depth++;
    else if (char === ')') depth--;
    else if ((char === '+' || char === '-') && depth === 0) found = i;
  }
  return found;
};

// The clause keywords are reserved words: no bare attribute name can be one.
const CLAUSE = /(?<![\w#:.])(SET|REMOVE|ADD|DELETE)(?!\w)/i;

type Clause = 'SET' | 'REMOVE' | 'ADD' | 'DELETE';

const clausesOf = (expression: string): Record<Clause, string[]> => {
  const clauses: Record<Clause, string[]> = { SET: [], REMOVE: [], ADD: [], DELETE: [] };
  const parts = expression.split(new RegExp(CLAUSE.source, 'gi'));
  for (let i = 1; i < parts.length; i += 2) {
    const clause = (parts[i] ?? '').toUpperCase() as Clause;
    clauses[clause].push(...splitTop(parts[i + 1] ?? '', ','));
  }
  return clauses;
};

interface UpdateBody {
  UpdateExpression?: unknown;
  ExpressionAttributeNames?: unknown;
  ExpressionAttributeValues?: unknown;
}

/** The item after an update, from the item before it (all operands read the item before). */
export const applyUpdate = (before: ItemShape, body: UpdateBody): ItemShape => {
  const after = new Map(before);
  const names = (
    isRecord(body.ExpressionAttributeNames) ? body.ExpressionAttributeNames : {}
  ) as Record<string, string>;
  const values = (
    isRecord(body.ExpressionAttributeValues) ? body.ExpressionAttributeValues : {}
  ) as Record<string, AttributeValue>;
  const expression = typeof body.UpdateExpression === 'string' ? body.UpdateExpression : '';

  /** A path's top-level attribute name, and whether the path goes deeper. */
  const pathOf = (path: string) => {
    const [first = ''] = path.trim().split(/[.[]/, 1);
    const name = first.startsWith('#') ? (names[first] ?? first) : first;
    return { name, nested: /[.[]/.test(path.trim()) };
  };
  const read = (path: string): StoredAttribute | undefined => {
    const { name, nested } = pathOf(path);
    return nested ? undefined : before.get(name);
  };
  const operand = (text: string): StoredAttribute | undefined => {
    const trimmed = text.trim();
    const operator = topLevelOperator(trimmed);
    if (operator > 0) {
      const left = operand(trimmed.slice(0, operator));
      const right = operand(trimmed.slice(operator + 1));
      const a = left?.value?.N;
      const b = right?.value?.N;
      const sum =
        typeof a === 'string' && typeof b === 'string'
          ? addNumbers(a, b, trimmed[operator] === '+' ? 1 : -1)
          : undefined;
      if (sum !== undefined) return stored({ N: sum });
      const bytes = Math.max(left?.bytes ?? 0, right?.bytes ?? 0);
      return bytes > 0 ? { bytes } : undefined;
    }
    const call = /^(\w+)\s*\(([\s\S]*)\)$/.exec(trimmed);
    if (call !== null) {
      const [first = '', second = ''] = splitTop(call[2] ?? '', ',');
      const fn = (call[1] ?? '').toLowerCase();
      if (fn === 'if_not_exists') return read(first) ?? operand(second);
      if (fn === 'list_append') {
        // Both lists' elements, one list's 3 bytes of overhead.
        const bytes = (operand(first)?.bytes ?? 3) + (operand(second)?.bytes ?? 3) - 3;
        return { bytes };
      }
      return undefined;
    }
    if (trimmed.startsWith(':')) {
      const value = values[trimmed];
      return value === undefined ? undefined : stored(value);
    }
    return read(trimmed);
  };

  const clauses = clausesOf(expression);
  for (const action of clauses.SET) {
    const equals = action.indexOf('=');
    if (equals < 0) continue;
    const target = pathOf(action.slice(0, equals));
    const value = operand(action.slice(equals + 1));
    if (value === undefined) continue;
    if (!target.nested) {
      after.set(target.name, value);
      continue;
    }
    // Into a list or a map: the value and its element's byte (and its key, for a map) added.
    const holder = after.get(target.name);
    if (holder === undefined) continue;
    const last = action.slice(0, equals).trim().split('.').at(-1) ?? '';
    const key = last.includes('[') ? '' : last.startsWith('#') ? (names[last] ?? last) : last;
    after.set(target.name, { bytes: holder.bytes + value.bytes + 1 + utf8(key) });
  }
  for (const path of clauses.REMOVE) {
    const target = pathOf(path);
    if (!target.nested) after.delete(target.name);
  }
  for (const [clause, add] of [
    ['ADD', true],
    ['DELETE', false],
  ] as const) {
    for (const action of clauses[clause]) {
      const [path = '', ref = ''] = action.split(/\s+/, 2);
      const change = values[ref.trim()];
      if (change === undefined) continue;
      const { name } = pathOf(path);
      const existing = before.get(name)?.value;
      let result: StoredAttribute | undefined;
      if (typeof change.N === 'string') {
        const current = existing?.N;
        const sum = typeof current === 'string' ? addNumbers(current, change.N, 1) : change.N;
        result = add ? stored({ N: sum ?? change.N }) : before.get(name);
      } else {
        result = changedSet(existing, change, add);
      }
      if (result === undefined) after.delete(name);
      else after.set(name, result);
    }
  }
  return after;
};

// --- Commands. ---

/** One item's write: the item as it stands after it (`undefined`: deleted). */
export interface ItemWrite {
  key: string;
  after: ItemShape | undefined;
}

/** A command's billed write units, and the writes that change what is known of its items. */
export interface BilledWrite {
  units: number;
  writes: ItemWrite[];
}

/** What the meter knows of an item by its key (`itemKey`); `undefined`: never seen, or deleted. */
export type ShapeLookup = (key: string) => ItemShape | undefined;

type Action = 'Put' | 'Update' | 'Delete' | 'ConditionCheck';

interface ActionBody extends UpdateBody {
  TableName?: unknown;
  Item?: unknown;
  Key?: unknown;
}

const itemOf = (value: unknown): Item => (isRecord(value) ? (value as Item) : {});

/** One item's action: the size it is billed at (the larger of before and after) and its write. */
const planned = (
  action: Action,
  body: ActionBody,
  known: ShapeLookup
): { bytes: number; write?: ItemWrite } => {
  const table = typeof body.TableName === 'string' ? body.TableName : '';
  if (action === 'Put') {
    const item = itemOf(body.Item);
    const key = itemKey(table, item);
    const after = shapeOf(item);
    return { bytes: Math.max(shapeBytes(known(key)), shapeBytes(after)), write: { key, after } };
  }
  const keyItem = itemOf(body.Key);
  const key = itemKey(table, keyItem);
  const before = known(key);
  if (action === 'ConditionCheck') return { bytes: shapeBytes(before) };
  if (action === 'Delete') return { bytes: shapeBytes(before), write: { key, after: undefined } };
  const after = applyUpdate(before ?? shapeOf(keyItem), body);
  return { bytes: Math.max(shapeBytes(before), shapeBytes(after)), write: { key, after } };
};

const STANDALONE: Record<string, Action> = {
  PutItem: 'Put',
  UpdateItem: 'Update',
  DeleteItem: 'Delete',
};
const TRANSACT_ACTIONS: readonly Action[] = ['Put', 'Update', 'Delete', 'ConditionCheck'];

/**
 * The write units AWS bills for one command, were it to succeed, and the writes it makes.
 * Commands that write nothing bill nothing.
 */
export const billWrite = (command: string, input: unknown, known: ShapeLookup): BilledWrite => {
  const body = (isRecord(input) ? input : {}) as ActionBody & {
    TransactItems?: unknown;
    RequestItems?: unknown;
  };
  const billed: BilledWrite = { units: 0, writes: [] };
  const add = (plan: { bytes: number; write?: ItemWrite }, factor: number) => {
    billed.units += factor * writeUnitsOf(plan.bytes);
    if (plan.write !== undefined) billed.writes.push(plan.write);
  };
  const standalone = STANDALONE[command];
  if (standalone !== undefined) add(planned(standalone, body, known), 1);
  if (command === 'TransactWriteItems' && Array.isArray(body.TransactItems)) {
    for (const entry of body.TransactItems) {
      if (!isRecord(entry)) continue;
      const action = TRANSACT_ACTIONS.find((name) => isRecord(entry[name]));
      if (action !== undefined) add(planned(action, entry[action] as ActionBody, known), 2);
    }
  }
  if (command === 'BatchWriteItem' && isRecord(body.RequestItems)) {
    for (const [table, requests] of Object.entries(body.RequestItems)) {
      for (const request of Array.isArray(requests) ? requests : []) {
        if (!isRecord(request)) continue;
        if (isRecord(request.PutRequest)) {
          add(planned('Put', { TableName: table, Item: request.PutRequest.Item }, known), 1);
        } else if (isRecord(request.DeleteRequest)) {
          add(planned('Delete', { TableName: table, Key: request.DeleteRequest.Key }, known), 1);
        }
      }
    }
  }
  return billed;
};

/** The errors of a write refused by its condition: billed, nothing written. */
export const REFUSALS: ReadonlySet<string> = new Set([
  'ConditionalCheckFailedException',
  'TransactionCanceledException',
]);

/**
 * A command as it went: a success bills its units and makes its writes; a refusal (`REFUSALS`)
 * bills the same units and writes nothing; any other error neither (the request was not carried
 * out).
 */
export const billObservation = (
  observation: { command: string; input: unknown; error?: string },
  known: ShapeLookup
): BilledWrite => {
  const billed = billWrite(observation.command, observation.input, known);
  if (observation.error === undefined) return billed;
  return { units: REFUSALS.has(observation.error) ? billed.units : 0, writes: [] };
};
