/**
 * The benchmark's write units as AWS bills them (scripts/bench/billed-units.ts): item sizes by
 * AWS's rules, and the units of each write command, against the Developer Guide's own examples
 * where it gives any.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type AttributeValue,
  applyUpdate,
  billObservation,
  billWrite,
  type Item,
  type ItemShape,
  itemBytes,
  itemKey,
  KB,
  numberBytes,
  shapeBytes,
  shapeOf,
  valueBytes,
} from '../../scripts/bench/billed-units.js';
import { BenchFiguresSchema } from '../../scripts/bench/figures.js';
import { DynamoDbMeter } from '../../scripts/bench/meter.js';
import { PRICES } from '../../scripts/bench/prices.js';
import { renderReadme, renderReport } from '../../scripts/bench/report.js';
import type { LocalRun } from '../../scripts/bench/scenarios.js';
import { scenarioFigures } from '../../scripts/bench/summarize.js';

const TABLE = 'tasks';

/** An item of exactly `bytes` bytes: its keys and a string attribute `data` to fill it. */
const sized = (sk: string, bytes: number): Item => {
  const keys = { pk: { S: 'TASK#t1' }, sk: { S: sk } };
  const filler = bytes - itemBytes(keys) - 'data'.length;
  if (filler < 0) throw new Error(`no item of ${bytes} bytes has that key`);
  return { ...keys, data: { S: 'x'.repeat(filler) } };
};
const keyOf = (item: Item): Item => ({
  pk: item.pk as AttributeValue,
  sk: item.sk as AttributeValue,
});

/** What a meter would know after these items were written. */
const knowing = (...items: Item[]) => {
  const known = new Map<string, ItemShape>(
    items.map((item) => [itemKey(TABLE, item), shapeOf(item)])
  );
  return (key: string) => known.get(key);
};
const nothingKnown = () => undefined;

const put = (item: Item) => ({ TableName: TABLE, Item: item });

describe('item sizes, by AWS’s rules', () => {
  it('counts names and strings in UTF-8 bytes, binary in raw bytes, booleans and nulls as 1', () => {
    expect(itemBytes({ name: { S: 'héllo' } })).toBe(4 + 6);
    expect(itemBytes({ blob: { B: new Uint8Array(10) } })).toBe(4 + 10);
    expect(valueBytes({ BOOL: false })).toBe(1);
    expect(valueBytes({ NULL: true })).toBe(1);
  });

  it('counts a number as one byte per two significant digits, plus one', () => {
    expect(numberBytes('123')).toBe(3);
    expect(numberBytes('0.0012300')).toBe(3); // leading and trailing zeros trimmed: 123
    expect(numberBytes('1000')).toBe(2);
    expect(numberBytes('-1.5')).toBe(2);
    expect(numberBytes('0')).toBe(1);
    expect(numberBytes('12345678901234567890')).toBe(11);
  });

  it('gives lists and maps 3 bytes and each element 1 more, a map’s keys counted as names', () => {
    expect(valueBytes({ L: [] })).toBe(3);
    expect(valueBytes({ L: [{ S: 'a' }, { N: '12' }] })).toBe(3 + (1 + 1) + (1 + 2));
    expect(valueBytes({ M: { k: { S: 'xy' }, n: { BOOL: true } } })).toBe(
      3 + (1 + 1 + 2) + (1 + 1 + 1)
    );
    expect(valueBytes({ L: [{ M: { a: { L: [] } } }] })).toBe(3 + 1 + (3 + 1 + 1 + 3));
  });

  it('gives sets their elements’ sizes and nothing more', () => {
    expect(valueBytes({ SS: ['ab', 'c'] })).toBe(3);
    expect(valueBytes({ NS: ['1', '22'] })).toBe(2 + 2);
    expect(valueBytes({ BS: [new Uint8Array(4), new Uint8Array(6)] })).toBe(10);
  });

  it('sizes a whole item as the sum of its attributes', () => {
    const item = {
      pk: { S: 'TASK#t1' },
      sk: { S: 'TASK' },
      version: { N: '12' },
      parked: { BOOL: true },
      push_ids: { SS: ['a', 'bc'] },
    };
    expect(itemBytes(item)).toBe(2 + 7 + (2 + 4) + (7 + 2) + (6 + 1) + (8 + 3));
    expect(shapeBytes(shapeOf(item))).toBe(itemBytes(item));
    expect(itemBytes(sized('HIST#1', 1500))).toBe(1500);
  });
});

describe('standalone writes', () => {
  it('bills ⌈size ÷ 1 KB⌉, at least one unit (the guide: a 1.6 KB item is 2 units)', () => {
    expect(billWrite('PutItem', put(sized('A', 100)), nothingKnown).units).toBe(1);
    expect(billWrite('PutItem', put(sized('A', KB)), nothingKnown).units).toBe(1);
    expect(billWrite('PutItem', put(sized('A', KB + 1)), nothingKnown).units).toBe(2);
    expect(billWrite('PutItem', put(sized('A', Math.round(1.6 * KB))), nothingKnown).units).toBe(2);
    // "if your item size is 2 KB, you require 2 write units ... or 4 ... for a transactional write"
    const twoKb = sized('A', 2 * KB);
    expect(billWrite('PutItem', put(twoKb), nothingKnown).units).toBe(2);
    expect(
      billWrite('TransactWriteItems', { TransactItems: [{ Put: put(twoKb) }] }, nothingKnown).units
    ).toBe(4);
  });

  it('bills the larger of the item before and after: a put that shrinks it, a delete', () => {
    const large = sized('TASK', 3 * KB - 10);
    const small = sized('TASK', 100);
    expect(billWrite('PutItem', put(small), knowing(large)).units).toBe(3);
    expect(billWrite('PutItem', put(large), knowing(small)).units).toBe(3);
    const deleting = { TableName: TABLE, Key: keyOf(large) };
    expect(billWrite('DeleteItem', deleting, knowing(large))).toEqual({
      units: 3,
      writes: [{ key: itemKey(TABLE, large), after: undefined }],
    });
    // An item never seen is taken as absent: a delete of it bills the minimum.
    expect(billWrite('DeleteItem', deleting, nothingKnown).units).toBe(1);
    // Another table's item of the same key is another item.
    expect(billWrite('PutItem', { TableName: 'other', Item: small }, knowing(large)).units).toBe(1);
  });

  it('bills an update at the larger of the item before and after it', () => {
    const before = sized('TASK', 3 * KB - 10);
    const shrink = {
      TableName: TABLE,
      Key: keyOf(before),
      UpdateExpression: 'SET #d = :d',
      ExpressionAttributeNames: { '#d': 'data' },
      ExpressionAttributeValues: { ':d': { S: 'short' } },
    };
    const billed = billWrite('UpdateItem', shrink, knowing(before));
    expect(billed.units).toBe(3);
    expect(shapeBytes(billed.writes[0]?.after)).toBe(
      itemBytes({ ...keyOf(before), data: { S: 'short' } })
    );
    // Grown past 1 KB by the update: billed after.
    const grow = { ...shrink, ExpressionAttributeValues: { ':d': { S: 'y'.repeat(1500) } } };
    expect(billWrite('UpdateItem', grow, knowing(sized('TASK', 200))).units).toBe(2);
    // An update of an item never seen makes it: its key and what is set.
    const fresh = billWrite('UpdateItem', grow, nothingKnown);
    expect(shapeBytes(fresh.writes[0]?.after)).toBe(
      itemBytes({ ...keyOf(before), data: { S: 'y'.repeat(1500) } })
    );
  });
});

describe('update expressions', () => {
  const record: Item = {
    pk: { S: 'TASK#t1' },
    sk: { S: 'TASK' },
    version: { N: '99' },
    note: { S: 'hello' },
    forks: { L: [{ S: 'f1' }] },
    push_ids: { SS: ['a', 'b'] },
  };
  const updated = (expression: string, values: Record<string, AttributeValue>, names = {}) =>
    applyUpdate(shapeOf(record), {
      UpdateExpression: expression,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
  const without = (name: string) =>
    Object.fromEntries(Object.entries(record).filter(([key]) => key !== name)) as Item;

  it('SET replaces or adds an attribute; REMOVE takes one away', () => {
    const replaced = updated(
      'SET #n = :n, added = :a',
      { ':n': { S: 'hi' }, ':a': { BOOL: true } },
      {
        '#n': 'note',
      }
    );
    expect(shapeBytes(replaced)).toBe(
      itemBytes({ ...record, note: { S: 'hi' }, added: { BOOL: true } })
    );
    expect(shapeBytes(updated('REMOVE note', {}))).toBe(itemBytes(without('note')));
    // The clauses in any order and case; every operand reads the item before the update.
    const both = updated('remove note SET copy = note', {});
    expect(shapeBytes(both)).toBe(itemBytes({ ...without('note'), copy: { S: 'hello' } }));
  });

  it('list_append adds the new elements, if_not_exists keeps what exists', () => {
    const fork = { M: { id: { S: 'f2' } } };
    const appended = updated(
      'SET #forks = list_append(if_not_exists(#forks, :none), :fork)',
      { ':none': { L: [] }, ':fork': { L: [fork] } },
      { '#forks': 'forks' }
    );
    expect(shapeBytes(appended)).toBe(itemBytes({ ...record, forks: { L: [{ S: 'f1' }, fork] } }));
    const kept = updated('SET note = if_not_exists(note, :n)', { ':n': { S: 'x'.repeat(500) } });
    expect(shapeBytes(kept)).toBe(itemBytes(record));
  });

  it('ADD sums numbers exactly and unites sets; DELETE takes elements out of a set', () => {
    const added = updated(
      'SET #t = :t ADD version :one, push_ids :ids',
      {
        ':t': { S: 'x' },
        ':one': { N: '1' },
        ':ids': { SS: ['b', 'cc'] },
      },
      { '#t': 'type' }
    );
    expect(added.get('version')).toEqual({ bytes: numberBytes('100'), value: { N: '100' } });
    expect(added.get('push_ids')?.bytes).toBe(valueBytes({ SS: ['a', 'b', 'cc'] }));
    expect(updated('ADD version :x', { ':x': { N: '0.5' } }).get('version')?.bytes).toBe(
      numberBytes('99.5')
    );
    expect(updated('ADD counter :n', { ':n': { N: '3' } }).get('counter')?.bytes).toBe(2);
    const deleted = updated('DELETE push_ids :gone', { ':gone': { SS: ['a', 'b'] } });
    expect(deleted.has('push_ids')).toBe(false);
    expect(
      updated('DELETE push_ids :gone', { ':gone': { SS: ['a'] } }).get('push_ids')?.bytes
    ).toBe(1);
  });
});

describe('transactions and batches', () => {
  const transaction = (...items: Item[]) => ({
    TransactItems: items.map((item) => ({ Put: put(item) })),
  });

  it('bills 2 × ⌈size ÷ 1 KB⌉ per item (the guide: three 500-byte items are 6 units)', () => {
    expect(
      billWrite(
        'TransactWriteItems',
        transaction(sized('A', 500), sized('B', 500), sized('C', 500)),
        nothingKnown
      ).units
    ).toBe(6);
    // Where DynamoDB Local reports 4, 4, 8 and 24.
    expect(billWrite('TransactWriteItems', transaction(sized('A', 100)), nothingKnown).units).toBe(
      2
    );
    const five = (bytes: number) => ['A', 'B', 'C', 'D', 'E'].map((sk) => sized(sk, bytes));
    expect(billWrite('TransactWriteItems', transaction(...five(100)), nothingKnown).units).toBe(10);
    expect(billWrite('TransactWriteItems', transaction(...five(1536)), nothingKnown).units).toBe(
      20
    );
    const mixed = transaction(sized('A', 100), sized('B', 1536), sized('C', 2560));
    expect(billWrite('TransactWriteItems', mixed, nothingKnown).units).toBe(2 * (1 + 2 + 3));
  });

  it('bills a condition check at two writes of the item checked, and every action its size', () => {
    const record = sized('TASK', 2 * KB + 1);
    const hist = sized('HIST#1', 700);
    const items = {
      TransactItems: [
        { ConditionCheck: { TableName: TABLE, Key: keyOf(record), ConditionExpression: 'x' } },
        { Delete: { TableName: TABLE, Key: keyOf(hist) } },
        {
          Update: {
            TableName: TABLE,
            Key: keyOf(sized('INBOXSEQ', 50)),
            UpdateExpression: 'ADD seq :n',
            ExpressionAttributeValues: { ':n': { N: '1' } },
          },
        },
      ],
    };
    const billed = billWrite('TransactWriteItems', items, knowing(record, hist));
    expect(billed.units).toBe(2 * 3 + 2 * 1 + 2 * 1);
    // The check writes nothing; the delete and the update do.
    expect(billed.writes.map((write) => write.after === undefined)).toEqual([true, false]);
    expect(billWrite('TransactWriteItems', items, nothingKnown).units).toBe(6);
  });

  it('bills a batch’s puts and deletes each alone (the guide: 500 bytes and 3.5 KB are 5 units)', () => {
    const known = sized('OLD', 2 * KB);
    const batch = {
      RequestItems: {
        [TABLE]: [
          { PutRequest: { Item: sized('A', 500) } },
          { PutRequest: { Item: sized('B', 3.5 * KB) } },
        ],
      },
    };
    expect(billWrite('BatchWriteItem', batch, nothingKnown).units).toBe(5);
    const withDelete = {
      RequestItems: {
        [TABLE]: [...batch.RequestItems[TABLE], { DeleteRequest: { Key: keyOf(known) } }],
      },
    };
    expect(billWrite('BatchWriteItem', withDelete, knowing(known)).units).toBe(5 + 2);
  });

  it('bills nothing for a command that writes nothing', () => {
    expect(
      billWrite('GetItem', { TableName: TABLE, Key: keyOf(sized('A', 100)) }, nothingKnown)
    ).toEqual({
      units: 0,
      writes: [],
    });
  });
});

describe('refused writes', () => {
  const existing = sized('TASK', 300 * KB);
  const replacement = sized('TASK', 310 * KB);

  it('bills a refused conditional write as if written, and writes nothing (the guide’s 300 KB and 310 KB)', () => {
    const observation = {
      command: 'PutItem',
      input: { ...put(replacement), ConditionExpression: 'attribute_not_exists(pk)' },
      error: 'ConditionalCheckFailedException',
    };
    expect(billObservation(observation, knowing(existing))).toEqual({ units: 310, writes: [] });
    expect(
      billObservation({ ...observation, error: undefined }, knowing(existing)).writes
    ).toHaveLength(1);
  });

  it('bills a cancelled transaction as if it had committed; another error bills nothing', () => {
    const input = {
      TransactItems: [{ Put: put(sized('A', 100)) }, { Put: put(sized('B', 1500)) }],
    };
    const cancelled = {
      command: 'TransactWriteItems',
      input,
      error: 'TransactionCanceledException',
    };
    expect(billObservation(cancelled, nothingKnown)).toEqual({ units: 2 * (1 + 2), writes: [] });
    expect(billObservation({ ...cancelled, error: 'ValidationException' }, nothingKnown)).toEqual({
      units: 0,
      writes: [],
    });
  });
});

describe('the meter’s billed write units', () => {
  const observation = (command: string, input: unknown, extra: object = {}) => ({
    command,
    input,
    consumed: { read: 0, write: 1 },
    ms: 1,
    ...extra,
  });

  it('remembers items written while not counting, counts only while counting, keeps them across resets', () => {
    const meter = new DynamoDbMeter();
    const large = sized('TASK', 3 * KB - 10);
    const small = sized('TASK', 100);
    meter.observe(observation('PutItem', put(large)));
    expect(meter.billedWriteUnits).toBe(0);

    meter.counting = true;
    meter.observe(observation('PutItem', put(small)));
    expect(meter.billedWriteUnits).toBe(3); // the item before it was 3 KB
    expect(meter.writeUnits).toBe(1); // DynamoDB Local's figure, kept beside it

    meter.reset();
    expect(meter.billedWriteUnits).toBe(0);
    // A refused update changes nothing: the delete after it deletes the 100-byte item.
    meter.observe(
      observation(
        'UpdateItem',
        {
          TableName: TABLE,
          Key: keyOf(small),
          UpdateExpression: 'SET #d = :d',
          ExpressionAttributeNames: { '#d': 'data' },
          ExpressionAttributeValues: { ':d': { S: 'z'.repeat(4000) } },
        },
        { consumed: undefined, error: 'ConditionalCheckFailedException' }
      )
    );
    expect(meter.billedWriteUnits).toBe(4);
    expect(meter.failedWrites).toBe(1);
    meter.observe(observation('DeleteItem', { TableName: TABLE, Key: keyOf(small) }));
    expect(meter.billedWriteUnits).toBe(4 + 1);
    // Deleted, so absent: putting the large item again bills it alone.
    meter.observe(observation('TransactWriteItems', { TransactItems: [{ Put: put(large) }] }));
    expect(meter.billedWriteUnits).toBe(4 + 1 + 6);
    // Reads bill nothing.
    meter.observe(observation('GetItem', { TableName: TABLE, Key: keyOf(large) }));
    expect(meter.billedWriteUnits).toBe(11);
  });
});

describe('the billed write units in the figures and the tables', () => {
  const run = (billedWriteUnits: number, writeUnits: number): LocalRun => ({
    turns: 10,
    messages: 10,
    wallMs: 100,
    callTimes: [],
    transitions: 30,
    events: 100,
    statesEntered: new Map(),
    turnStepInvocations: 20,
    turnStepMs: 50,
    turnStepBilledMs: 50,
    a2aInvocations: 10,
    a2aBilledMs: 10,
    readRequests: 30,
    writeRequests: 100,
    readUnits: 30,
    writeUnits,
    billedWriteUnits,
    failedWrites: 0,
    ddbMs: 20,
    commands: new Map(),
    items: new Map(),
  });

  it('reports both figures per turn and prices DynamoDB at the billed one', () => {
    const figures = scenarioFigures({
      scenario: { key: 'chat', label: 'no tool call', calls: 0 },
      local: [run(200, 500)],
      inProcessMs: [1],
    });
    expect(figures.wru_billed_per_turn).toBe(20);
    expect(figures.wru_per_turn).toBe(50);
    expect(figures.usd_per_1000_turns_by_service.dynamodb).toBeCloseTo(
      3 * 1000 * PRICES.readRequestUnit + 20 * 1000 * PRICES.writeRequestUnit,
      12
    );
  });

  const documented = () =>
    BenchFiguresSchema.parse(
      JSON.parse(readFileSync(new URL('../../docs/benchmark.json', import.meta.url), 'utf8'))
    );

  it('shows the billed units beside DynamoDB Local’s in the docs and the README', () => {
    const figures = documented();
    const scenarios = figures.scenarios;
    if (scenarios === null || figures.task_growth === null) throw new Error('a whole run');
    for (const scenario of Object.values(scenarios)) scenario.wru_billed_per_turn = 12.25;
    for (const row of figures.task_growth.rows) row.wru_billed_per_turn = 7.5;
    const report = renderReport(figures, 'markdown');
    expect(report).toContain('| RRU/turn | WRU/turn (as billed) | WRU/turn (DynamoDB Local) |');
    expect(report).toContain(
      `| ${scenarios.chat.rru_per_turn.toFixed(1)} | 12.3 | ${scenarios.chat.wru_per_turn.toFixed(1)} |`
    );
    expect(report).toContain('| write units (as billed) | 12.25 | 12.25 | 0.00 |');
    expect(report).toContain(
      '| items/turn | WRU/turn (as billed) | WRU/turn (DynamoDB Local) | ms/turn |'
    );
    expect(report).toContain('the write units as AWS bills them');
    const readme = renderReadme(figures);
    expect(readme).toContain(`| 12.3 (${scenarios.chat.wru_per_turn.toFixed(1)}) |`);
  });

  it('renders a run from before the billed units as it was rendered then', () => {
    // The documented run, as a run before the billed units wrote it: without their figures.
    const figures = documented();
    const unbilled = <T extends { wru_billed_per_turn?: number }>(row: T): T => {
      const { wru_billed_per_turn: _billed, ...rest } = row;
      return rest as T;
    };
    const before = BenchFiguresSchema.parse({
      ...figures,
      scenarios:
        figures.scenarios === null
          ? null
          : Object.fromEntries(
              Object.entries(figures.scenarios).map(([name, row]) => [name, unbilled(row)])
            ),
      task_growth:
        figures.task_growth === null
          ? null
          : { ...figures.task_growth, rows: figures.task_growth.rows.map(unbilled) },
    });
    const report = renderReport(before, 'markdown');
    expect(report).not.toContain('as billed');
    expect(report).toContain('| RRU/turn | WRU/turn |');
  });
});
