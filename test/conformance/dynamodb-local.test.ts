import { randomBytes, randomUUID } from 'node:crypto';
import {
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbTaskRecords } from '../../functions/adapters/audit/dynamodb-task-records.js';
import { createTable } from '../../functions/adapters/dynamodb/create-table.js';
import { DynamoDbEventLog } from '../../functions/adapters/dynamodb/dynamodb-event-log.js';
import { DynamoDbPushConfigStore } from '../../functions/adapters/dynamodb/dynamodb-push-config-store.js';
import { DynamoDbRemoteLinks } from '../../functions/adapters/dynamodb/dynamodb-remote-links.js';
import { DynamoDbTaskStore } from '../../functions/adapters/dynamodb/dynamodb-task-store.js';
import {
  decodeTaskRecord,
  encodeEvent,
  encodeHistoryEntry,
  encodeInboxItem,
  encodeOnce,
  type Item,
  taskKey,
  taskToJson,
} from '../../functions/adapters/dynamodb/item-codec.js';
import {
  migrateTaskRecords,
  migrateTaskRecordsResumably,
} from '../../functions/adapters/dynamodb/migrate-records.js';
import { unpackedText } from '../../functions/adapters/dynamodb/packed-text.js';
import { SEEN_ON_RECORD_CHARACTERS } from '../../functions/adapters/dynamodb/seen-at-creation.js';
import {
  ATTR,
  INDEX_BY_PENDING_START,
  SORT_KEY,
  TABLE_DEFINITION,
} from '../../functions/adapters/dynamodb/table.js';
import { getItem } from '../../functions/adapters/dynamodb/table-io.js';
import { TASK_METADATA_KEY } from '../../functions/core/a2a/identifiers.js';
import { intakeAuditKey } from '../../functions/core/audit/intake-key.js';
import { ConcurrencyConflictError, InvalidTaskRecordError } from '../../functions/core/errors.js';
import { buildPlan } from '../../functions/core/plan/plan.js';
import type { TaskCommit, TaskRecord } from '../../functions/core/ports/task-store.js';
import { readExtension, withExtension } from '../../functions/core/task/a2a-task.js';
import {
  type DynamoDbLocal,
  localDynamoDbClientConfig,
  startDynamoDbLocal,
} from '../../functions/local/dynamodb-local.js';
import { endedRows, view } from '../support/harness.js';
import { describeEventLogContract } from './event-log.contract.js';
import { changed, makeRecord, uid } from './fixtures.js';
import { describePushConfigStoreContract } from './push-config-store.contract.js';
import { describeRemoteLinksContract } from './remote-links.contract.js';
import { describeTaskStoreContract } from './task-store.contract.js';

let local: DynamoDbLocal;
let client: DynamoDBClient;

/** A fresh table per suite, so no run (or suite) sees another's items. */
const freshTable = async () => {
  const tableName = `tasks-${randomUUID()}`;
  return createTable(client, tableName);
};

beforeAll(async () => {
  const started = Date.now();
  local = await startDynamoDbLocal();
  client = new DynamoDBClient(localDynamoDbClientConfig(local.endpoint));
  console.info(`DynamoDB Local ready at ${local.endpoint} in ${Date.now() - started} ms`);
});

afterAll(async () => {
  client?.destroy();
  await local?.stop();
});

describeTaskStoreContract('DynamoDbTaskStore', async () => {
  const { tableName } = await freshTable();
  return {
    agentId: 'tiny-harness',
    store: new DynamoDbTaskStore({ client, tableName, agentId: 'tiny-harness' }),
    events: new DynamoDbEventLog({ client, tableName }),
    pushConfigs: new DynamoDbPushConfigStore({ client, tableName }),
  };
});

// Every read of the parts from the table: the cache's misses are the whole of this run.
describeTaskStoreContract('DynamoDbTaskStore (no part cache)', async () => {
  const { tableName } = await freshTable();
  return {
    store: new DynamoDbTaskStore({ client, tableName, partCache: false }),
    events: new DynamoDbEventLog({ client, tableName }),
    pushConfigs: new DynamoDbPushConfigStore({ client, tableName }),
  };
});

describeEventLogContract('DynamoDbEventLog', async () => {
  const { tableName } = await freshTable();
  return {
    log: new DynamoDbEventLog({ client, tableName }),
    store: new DynamoDbTaskStore({ client, tableName }),
  };
});

describePushConfigStoreContract('DynamoDbPushConfigStore', async () => {
  const { tableName } = await freshTable();
  return { store: new DynamoDbPushConfigStore({ client, tableName }) };
});

describeRemoteLinksContract('DynamoDbRemoteLinks', async () => {
  const { tableName } = await freshTable();
  return { links: new DynamoDbRemoteLinks({ client, tableName }) };
});

describe('DynamoDB table and items', () => {
  let tableName: string;
  let streamArn: string;
  let store: DynamoDbTaskStore;
  let streams: DynamoDBStreamsClient;

  beforeAll(async () => {
    ({ tableName, streamArn } = await freshTable());
    store = new DynamoDbTaskStore({ client, tableName });
    streams = new DynamoDBStreamsClient(localDynamoDbClientConfig(local.endpoint));
  });

  afterAll(() => streams?.destroy());

  const rawTaskItem = async (taskId: string) =>
    (await client.send(new GetItemCommand({ TableName: tableName, Key: taskKey(taskId) }))).Item;

  it('is created from TABLE_DEFINITION with a NEW_AND_OLD_IMAGES stream and both indexes', async () => {
    const { Table: table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    expect(table?.StreamSpecification).toEqual({
      StreamEnabled: true,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    });
    expect(table?.LatestStreamArn).toBe(streamArn);
    expect(table?.GlobalSecondaryIndexes?.map((index) => index.IndexName).sort()).toEqual(
      TABLE_DEFINITION.globalSecondaryIndexes.map((index) => index.indexName).sort()
    );
    expect(table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
  });

  it('gives a table an earlier build made the indexes added since, keeping its items', async () => {
    const earlier = {
      ...TABLE_DEFINITION,
      attributeDefinitions: TABLE_DEFINITION.attributeDefinitions.filter(
        (attribute) => attribute.name !== ATTR.startPk && attribute.name !== ATTR.startSk
      ),
      globalSecondaryIndexes: TABLE_DEFINITION.globalSecondaryIndexes.filter(
        (index) => index.indexName !== INDEX_BY_PENDING_START
      ),
    };
    const old = `tasks-${randomUUID()}`;
    await createTable(client, old, { definition: earlier });
    const before = new DynamoDbTaskStore({ client, tableName: old });
    const kept = makeRecord(uid('task'));
    await before.commit({ kind: 'create', record: kept });

    await createTable(client, old, { ifNotExists: true });

    const { Table: table } = await client.send(new DescribeTableCommand({ TableName: old }));
    expect(table?.GlobalSecondaryIndexes?.map((index) => index.IndexName).sort()).toEqual(
      TABLE_DEFINITION.globalSecondaryIndexes.map((index) => index.indexName).sort()
    );
    const after = new DynamoDbTaskStore({ client, tableName: old });
    expect(await after.get(kept.task.id)).toEqual(await before.get(kept.task.id));
    expect(await after.list({ startPendingBefore: '2100-01-01T00:00:00.000Z' })).toEqual([]);
  });

  it('puts state, sub_state and parent_id on the task item', async () => {
    const parent = uid('parent');
    const child = makeRecord(uid('task'), {
      state: 'TASK_STATE_INPUT_REQUIRED',
      subState: 'awaiting-answer',
      parentId: parent,
    });
    await store.commit({ kind: 'create', record: child });
    const item = await rawTaskItem(child.task.id);
    expect(item?.[ATTR.state]).toEqual({ S: 'TASK_STATE_INPUT_REQUIRED' });
    expect(item?.[ATTR.subState]).toEqual({ S: 'awaiting-answer' });
    expect(item?.[ATTR.parentId]).toEqual({ S: parent });
    expect(item?.[ATTR.version]).toEqual({ N: '1' });

    const orphan = makeRecord(uid('task'));
    await store.commit({ kind: 'create', record: orphan });
    const plain = await rawTaskItem(orphan.task.id);
    expect(plain?.[ATTR.subState]).toEqual({ NULL: true });
    expect(plain?.[ATTR.parentId]).toEqual({ NULL: true });
  });

  it('streams a task-record update with the old and the new state', async () => {
    const { record: created } = await store.commit({
      kind: 'create',
      record: makeRecord(uid('task')),
    });
    if (created === undefined) throw new Error('created');
    await store.commit({
      kind: 'update',
      base: created,
      record: changed(created, { state: 'TASK_STATE_WORKING' }),
    });

    const { StreamDescription: description } = await streams.send(
      new DescribeStreamCommand({ StreamArn: streamArn })
    );
    expect(description?.StreamViewType).toBe('NEW_AND_OLD_IMAGES');
    const shardId = description?.Shards?.[0]?.ShardId;
    expect(shardId).toBeDefined();
    let iterator = (
      await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shardId,
          ShardIteratorType: 'TRIM_HORIZON',
        })
      )
    ).ShardIterator;

    const isOurModify = (record: StreamRecord) =>
      record.eventName === 'MODIFY' &&
      record.dynamodb?.Keys?.pk?.S === `TASK#${created.task.id}` &&
      record.dynamodb?.Keys?.sk?.S === 'TASK';
    let found: StreamRecord | undefined;
    const deadline = Date.now() + 10_000;
    while (!found && iterator && Date.now() < deadline) {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      found = page.Records?.find(isOurModify);
      iterator = page.NextShardIterator;
      if (!found && (page.Records?.length ?? 0) === 0) await new Promise((r) => setTimeout(r, 50));
    }
    expect(found).toBeDefined();
    const images = found!.dynamodb!;
    expect(images.OldImage?.[ATTR.state]?.S).toBe('TASK_STATE_SUBMITTED');
    expect(images.NewImage?.[ATTR.state]?.S).toBe('TASK_STATE_WORKING');
    expect(images.OldImage?.[ATTR.version]?.N).toBe('1');
    expect(images.NewImage?.[ATTR.version]?.N).toBe('2');
    // A stream consumer decodes an image with the same codec as the store.
    expect(decodeTaskRecord(images.NewImage!, created.task.id)).toEqual(
      await store.get(created.task.id)
    );
  });

  it('marks for push delivery the events committed while the task has a push config, and no others', async () => {
    const pushConfigs = new DynamoDbPushConfigStore({ client, tableName });
    const { record: created } = await store.commit({
      kind: 'create',
      record: makeRecord(uid('task')),
      events: [{ kind: 'task', task: makeRecord('e1').task }],
    });
    if (created === undefined) throw new Error('created');
    const taskId = created.task.id;
    const config = {
      taskId,
      id: 'hook',
      ownerId: 'alice',
      url: 'https://hooks.example.com/',
      token: '',
      authentication: null,
    };
    await pushConfigs.put(config);
    const configured = (await store.get(taskId))!;
    const { record: second } = await store.commit({
      kind: 'update',
      base: configured,
      record: changed(configured, { turn: 1 }),
      events: [{ kind: 'task', task: configured.task }],
    });
    await pushConfigs.delete(taskId, 'hook');
    const bare = (await store.get(taskId))!;
    await store.commit({
      kind: 'update',
      base: bare,
      record: changed(bare, { turn: 2 }),
      events: [{ kind: 'task', task: bare.task }],
    });
    // Each commit's events are in its log item, marked as a whole.
    const { Items: logged = [] } = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :log)',
        ExpressionAttributeValues: { ':pk': { S: `TASK#${taskId}` }, ':log': { S: 'LOG#' } },
        ConsistentRead: true,
      })
    );
    expect(logged.map((item) => [item[ATTR.eventSeq]?.N, item[ATTR.push]?.BOOL])).toEqual([
      ['1', undefined],
      ['2', true],
      ['3', undefined],
    ]);
    expect(second?.pushConfigured).toBe(true);
    expect((await rawTaskItem(taskId))?.[ATTR.pushIds]).toBeUndefined();
  });

  /** A record with `rows` sub-task rows (each with a reason) and a plan of `steps` steps. */
  const grownRecord = (rows: number, steps: number): TaskRecord => {
    const base = makeRecord(uid('task'));
    const plan = buildPlan(
      Array.from({ length: steps }, (_, n) => ({
        name: `Step ${n + 1}`,
        description: `what step ${n + 1} does, at some length`,
        depends_on: [],
      }))
    );
    const subTasks = endedRows(rows, uid('child')).map((row) => ({
      ...row,
      reason: 'r'.repeat(100),
    }));
    return {
      ...base,
      task: withExtension(base.task, { ...readExtension(base.task), sub_tasks: subTasks, plan }),
    };
  };

  /** A task with `rows` sub-task rows and an empty plan, as the shared store created it. */
  const createdGrown = async (rows: number): Promise<TaskRecord> => {
    const { record } = await store.commit({ kind: 'create', record: grownRecord(rows, 0) });
    if (record === undefined) throw new Error('created');
    return record;
  };

  /** A store whose client tells which items each write (and each read) names, by sort key. */
  const recordingStore = () => {
    const recording = new DynamoDBClient(localDynamoDbClientConfig(local.endpoint));
    const written: string[][] = [];
    const read: string[] = [];
    recording.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as {
          TransactItems?: Array<Record<string, { Item?: Item; Key?: Item }>>;
          Item?: Item;
          Key?: Item;
        };
        const sortKeys = (input.TransactItems ?? [input]).map((action) => {
          const inner = input.TransactItems === undefined ? action : Object.values(action)[0];
          return String((inner?.Item ?? inner?.Key)?.[SORT_KEY]?.S);
        });
        const command = context.commandName ?? '';
        if (/Put|Update|Delete|TransactWrite/.test(command)) written.push(sortKeys);
        if (/Get|Query/.test(command)) read.push(command.replace(/Command$/, ''));
        return next(args);
      },
      { step: 'initialize' }
    );
    return {
      store: new DynamoDbTaskStore({ client: recording, tableName, agentId: 'tiny-harness' }),
      written,
      read,
      recording,
    };
  };

  it('reads a large task again as its record alone while the parts it names are the ones this store read last, and again whole once another writer changed them', async () => {
    const { store: cached, read, recording } = recordingStore();
    const other = new DynamoDbTaskStore({ client, tableName, partCache: false });
    const { record: created } = await other.commit({
      kind: 'create',
      record: grownRecord(1_000, 200),
    });
    const taskId = created!.task.id;

    const first = (await cached.get(taskId))!;
    expect(first).toEqual(created);
    expect(read).toEqual(['GetItem', 'BatchGetItem', 'BatchGetItem']);
    read.length = 0;
    // A turn by another writer: the record moves, its parts do not.
    const { record: turned } = await other.commit({
      kind: 'update',
      base: first,
      record: { ...first, loop: { ...first.loop, turn: 1 } },
    });
    expect(await cached.get(taskId)).toEqual(turned);
    expect(read).toEqual(['GetItem']);
    expect(await cached.list({ contextId: created!.task.contextId })).toEqual([turned]);

    // Another writer changes the rows: the next read reads them, as they are now.
    read.length = 0;
    const fewer = withExtension(turned!.task, {
      ...readExtension(turned!.task),
      sub_tasks: readExtension(turned!.task).sub_tasks.slice(0, 10),
    });
    const { record: shrunk } = await other.commit({
      kind: 'update',
      base: turned!,
      record: { ...turned!, task: fewer },
    });
    const after = (await cached.get(taskId))!;
    expect(view(after).extension.sub_tasks).toHaveLength(10);
    expect(after).toEqual(shrunk);
    expect(read).toEqual(['GetItem', 'BatchGetItem']);

    // This store changes the rows: it holds what it wrote, and reads the record alone next.
    const fewest = withExtension(after.task, {
      ...readExtension(after.task),
      sub_tasks: readExtension(after.task).sub_tasks.slice(0, 3),
    });
    const { record: written } = await cached.commit({
      kind: 'update',
      base: after,
      record: { ...after, task: fewest },
    });
    read.length = 0;
    expect(await cached.get(taskId)).toEqual(written);
    expect(read).toEqual(['GetItem']);
    expect(await other.get(taskId)).toEqual(written);
    recording.destroy();
  });

  it('takes no part of another revision than its record names: it reads the task again in one Query, and holds none of it', async () => {
    const taskId = (await createdGrown(20)).task.id;
    // The rows' item as another revision left it than the record names (a write between the
    // record's read and the rows').
    const rowsKey = { ...taskKey(taskId), [SORT_KEY]: { S: 'TASK#sub_tasks' } };
    const rows = (await client.send(new GetItemCommand({ TableName: tableName, Key: rowsKey })))
      .Item!;
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: { ...rows, [ATTR.partRevision]: { N: '99' }, [ATTR.data]: { S: '[]' } },
      })
    );
    const { store: reader, read, recording } = recordingStore();
    for (let attempt = 0; attempt < 2; attempt++) {
      read.length = 0;
      await reader.get(taskId);
      expect(read).toEqual(['GetItem', 'BatchGetItem', 'Query']);
    }
    recording.destroy();
  });

  it('gives a part of no known revision (stored before revisions were kept) one at its next write', async () => {
    const created = await createdGrown(30);
    const taskId = created.task.id;
    const raw = (await rawTaskItem(taskId))!;
    delete raw[ATTR.partRevisions];
    await client.send(new PutItemCommand({ TableName: tableName, Item: raw }));
    const read = (await store.get(taskId))!;
    expect(read.partsApart).toEqual({ plan: 0, sub_tasks: 0 });
    expect(read.task).toEqual(created.task);
    const { record: next } = await store.commit({
      kind: 'update',
      base: read,
      record: { ...read, loop: { ...read.loop, turn: 1 } },
    });
    expect(next?.partsApart).toEqual({ plan: 2, sub_tasks: 2 });
    expect(await store.get(taskId)).toEqual(next);
  });

  it('keeps the plan and the sub-task rows in items of their own: the record item stays small, a commit that changes neither writes neither, and every read has them whole', async () => {
    const { store: recorded, written, recording } = recordingStore();
    const { record: created } = await recorded.commit({
      kind: 'create',
      record: grownRecord(1_000, 200),
    });
    if (created === undefined) throw new Error('created');
    const taskId = created.task.id;
    expect(written.at(-1)).toEqual(
      expect.arrayContaining(['TASK', 'TASK#plan', 'TASK#sub_tasks', 'PIECE#TASK#sub_tasks#1'])
    );
    const raw = (await rawTaskItem(taskId))!;
    expect(JSON.stringify(raw).length).toBeLessThan(4_096);
    expect(raw[ATTR.partsApart]).toEqual({ L: [{ S: 'plan' }, { S: 'sub_tasks' }] });

    const read = (await recorded.get(taskId))!;
    expect(view(read).extension.sub_tasks).toHaveLength(1_000);
    expect(read).toEqual(created);
    expect(await recorded.list({ contextId: created.task.contextId })).toEqual([read]);

    // A turn's commit: the loop and the status move, the plan and the rows do not.
    written.length = 0;
    const { record: turned } = await recorded.commit({
      kind: 'update',
      base: read,
      record: changed(
        { ...read, loop: { ...read.loop, turn: 1 } },
        { state: 'TASK_STATE_WORKING' }
      ),
    });
    expect(written).toEqual([['TASK']]);
    expect(await recorded.get(taskId)).toEqual(turned);

    // Ten rows left: the rows' part is written again, whole in one item, and its pieces go.
    const fewer = withExtension(turned!.task, {
      ...readExtension(turned!.task),
      sub_tasks: readExtension(turned!.task).sub_tasks.slice(0, 10),
    });
    written.length = 0;
    const { record: shrunk } = await recorded.commit({
      kind: 'update',
      base: turned!,
      record: { ...turned!, task: fewer },
    });
    expect(written).toEqual([
      ['TASK', 'TASK#sub_tasks', 'PIECE#TASK#sub_tasks#1', 'PIECE#TASK#sub_tasks#2'],
    ]);
    expect(view((await recorded.get(taskId))!).extension.sub_tasks).toHaveLength(10);
    expect(await recorded.get(taskId)).toEqual(shrunk);

    // No plan any more: its part is deleted and the record no longer names it.
    const planless = withExtension(shrunk!.task, { ...readExtension(shrunk!.task), plan: null });
    await recorded.commit({
      kind: 'update',
      base: shrunk!,
      record: { ...shrunk!, task: planless },
    });
    expect((await rawTaskItem(taskId))?.[ATTR.partsApart]).toEqual({ L: [{ S: 'sub_tasks' }] });
    const remaining = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': taskKey(taskId).pk as Item[string] },
      })
    );
    expect((remaining.Items ?? []).map((item) => item[SORT_KEY]?.S).sort()).toEqual([
      'PART#alice',
      'TASK',
      'TASK#sub_tasks',
    ]);
    recording.destroy();
  });

  it('reads a record an earlier build stored with its plan and rows inside whole, and moves them out at its next write', async () => {
    const { record: created } = await store.commit({
      kind: 'create',
      record: makeRecord(uid('task')),
    });
    if (created === undefined) throw new Error('created');
    const taskId = created.task.id;
    const grown = grownRecord(50, 20);
    const whole = withExtension(created.task, {
      ...readExtension(created.task),
      sub_tasks: readExtension(grown.task).sub_tasks,
      plan: readExtension(grown.task).plan,
    });
    // As an earlier build stored it: the whole task in the record item, no parts apart.
    const legacy = { ...(await rawTaskItem(taskId))! };
    legacy[ATTR.task] = { S: JSON.stringify(taskToJson(whole)) };
    delete legacy[ATTR.partsApart];
    delete legacy[ATTR.partRevisions];
    await client.send(new PutItemCommand({ TableName: tableName, Item: legacy }));

    const read = (await store.get(taskId))!;
    expect(read.task).toEqual(whole);
    expect(read.partsApart).toBeUndefined();
    const { record: next } = await store.commit({
      kind: 'update',
      base: read,
      record: { ...read, loop: { ...read.loop, turn: 1 } },
    });
    const after = (await store.get(taskId))!;
    expect(after.task).toEqual(whole);
    expect(after).toEqual(next);
    expect(after.partsApart).toEqual({ plan: next!.version, sub_tasks: next!.version });
    expect(
      JSON.parse(unpackedText((await rawTaskItem(taskId))?.[ATTR.task]?.S ?? '{}'))
    ).not.toHaveProperty(['metadata', TASK_METADATA_KEY, 'sub_tasks']);
  });

  /** Three records, two of them as an earlier build stored them: whole in the record item. */
  const wholeRecords = async () => {
    const { tableName: table } = await freshTable();
    const migrating = new DynamoDbTaskStore({ client, tableName: table });
    const records: TaskRecord[] = [];
    for (const size of [0, 3, 30]) {
      const { record } = await migrating.commit({
        kind: 'create',
        record: grownRecord(size, size),
      });
      records.push(record!);
    }
    for (const record of records.slice(1)) {
      const raw = (
        await client.send(new GetItemCommand({ TableName: table, Key: taskKey(record.task.id) }))
      ).Item!;
      raw[ATTR.task] = { S: JSON.stringify(taskToJson(record.task)) };
      delete raw[ATTR.partsApart];
      delete raw[ATTR.partRevisions];
      await client.send(new PutItemCommand({ TableName: table, Item: raw }));
    }
    const before = await Promise.all(records.map((record) => migrating.get(record.task.id)));
    // The first was stored by this build (its empty plan apart already), the others whole.
    expect(before.map((record) => record?.partsApart)).toEqual([{ plan: 1 }, undefined, undefined]);
    const movedApart = async () => {
      const after = await Promise.all(records.map((record) => migrating.get(record.task.id)));
      expect(after.map((record) => record?.task)).toEqual(records.map((record) => record.task));
      expect(after.map((record) => record?.partsApart)).toEqual([
        { plan: 1 },
        { plan: 2, sub_tasks: 2 },
        { plan: 2, sub_tasks: 2 },
      ]);
    };
    return { table, movedApart };
  };

  it('moves the plan and rows of every record an earlier build stored whole, once: a second run finds nothing', async () => {
    const { table, movedApart } = await wholeRecords();
    expect(await migrateTaskRecords(client, table)).toEqual({ found: 2, moved: 2 });
    await movedApart();
    expect(await migrateTaskRecords(client, table)).toEqual({ found: 0, moved: 0 });
  });

  it('migrates resumably: each call goes on from where the last one stopped, and a done run scans no more', async () => {
    const { table, movedApart } = await wholeRecords();
    // One item a page, and no time for a second page: every call scans one page.
    const slices = [];
    for (let call = 0; call < 50; call++) {
      const slice = await migrateTaskRecordsResumably(client, table, 'run-1', () => false, 1);
      slices.push(slice);
      if (slice.done) break;
    }
    const last = slices.at(-1)!;
    expect(last).toEqual({ found: 2, moved: 2, done: true, startedAt: expect.any(String) });
    // Every call of the run says when its first began.
    expect(new Set(slices.map((slice) => slice.startedAt)).size).toBe(1);
    // The table holds many more items than records: the run took many calls, none of them twice.
    expect(slices.length).toBeGreaterThan(3);
    expect(slices.slice(0, -1).every((slice) => !slice.done)).toBe(true);
    await movedApart();
    // The same run again: done, nothing scanned or counted again.
    expect(await migrateTaskRecordsResumably(client, table, 'run-1', () => true)).toEqual(last);
    // A later deployment's run scans again and finds nothing left.
    expect(await migrateTaskRecordsResumably(client, table, 'run-2', () => true)).toEqual({
      found: 0,
      moved: 0,
      done: true,
      startedAt: expect.any(String),
    });
  });

  it('streams a record image without its parts, whose child change and reports read the same', async () => {
    const { record: created } = await store.commit({ kind: 'create', record: grownRecord(5, 2) });
    const image = (await rawTaskItem(created!.task.id))!;
    const decoded = decodeTaskRecord(image);
    expect(readExtension(decoded.task).sub_tasks).toEqual([]);
    expect(readExtension(decoded.task).plan).toBeNull();
    expect(decoded.task.status).toEqual(created!.task.status);
  });

  it('reads and parks a record stored before it kept its inbox count and park token apart', async () => {
    const message = (id: string) => ({
      kind: 'message' as const,
      id,
      participantId: 'alice',
      source: 'human' as const,
      text: id,
    });
    const { record: created } = await store.commit({
      kind: 'create',
      record: makeRecord(uid('task')),
      enqueue: [message('m1'), message('m2')],
    });
    if (created === undefined) throw new Error('created');
    const taskId = created.task.id;
    // As an earlier build stored it: no inbox count, the token in the loop state.
    const legacy = { ...(await rawTaskItem(taskId))! };
    delete legacy[ATTR.inboxCount];
    delete legacy[ATTR.parkToken];
    legacy[ATTR.loop] = { S: JSON.stringify({ ...created.loop, parkToken: 'old-token' }) };
    legacy[ATTR.parked] = { BOOL: true };
    await client.send(new PutItemCommand({ TableName: tableName, Item: legacy }));

    const read = (await store.get(taskId))!;
    expect(read).toEqual({
      ...created,
      inboxCount: 0,
      loop: { ...created.loop, parkToken: 'old-token' },
    });
    expect(await store.list({ contextId: created.task.contextId })).toEqual([read]);
    const { record: claimed } = await store.commit({
      kind: 'update',
      base: read,
      record: { ...read, loop: { ...read.loop, parkToken: null } },
    });
    expect(await store.get(taskId)).toEqual(claimed);

    // A park decided on it (nothing counted yet) applies; once an enqueue counts, one is refused.
    await store.commit({
      kind: 'park',
      taskId,
      version: claimed!.version,
      inboxCount: 0,
      token: 't',
    });
    const parked = (await store.get(taskId))!;
    expect(parked.loop.parkToken).toBe('t');
    await store.commit({ kind: 'guarded', taskId, unparked: false, enqueue: [message('m3')] });
    expect((await rawTaskItem(taskId))?.[ATTR.inboxCount]).toEqual({ N: '1' });
    await expect(
      store.commit({ kind: 'park', taskId, version: parked.version, inboxCount: 0, token: 'u' })
    ).rejects.toBeInstanceOf(ConcurrencyConflictError);
    expect((await store.readInbox(taskId)).map((item) => item.seq)).toEqual([1, 2, 3]);
  });

  it('refuses corrupt stored records with InvalidTaskRecordError', async () => {
    const { record: created } = await store.commit({
      kind: 'create',
      record: makeRecord(uid('task')),
    });
    if (created === undefined) throw new Error('created');
    const corrupt = async (attribute: string, value: Record<string, unknown>) => {
      await client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: taskKey(created.task.id),
          UpdateExpression: 'SET #a = :v',
          ExpressionAttributeNames: { '#a': attribute },
          ExpressionAttributeValues: { ':v': value as never },
        })
      );
      await expect(store.get(created.task.id)).rejects.toBeInstanceOf(InvalidTaskRecordError);
    };
    const original = await rawTaskItem(created.task.id);
    await corrupt(ATTR.task, { S: '{not json' });
    await corrupt(ATTR.task, {
      S: JSON.stringify({ id: created.task.id, status: { state: 'X' } }),
    });
    await corrupt(ATTR.task, { S: JSON.stringify({ id: 'someone-else' }) });
    await client.send(new PutItemCommand({ TableName: tableName, Item: original! }));
    await corrupt(ATTR.loop, { S: JSON.stringify({ schemaVersion: 2 }) });
    await client.send(new PutItemCommand({ TableName: tableName, Item: original! }));
    await corrupt(ATTR.version, { S: 'one' });
    await client.send(new PutItemCommand({ TableName: tableName, Item: original! }));
    expect(await store.get(created.task.id)).toEqual(created);
  });

  it('stores a payload too large for one item in parts, and deletes the parts with their item', async () => {
    const record = makeRecord(uid('task'));
    const taskId = record.task.id;
    const big = 'y'.repeat(250_000);
    const { record: created } = await store.commit({
      kind: 'create',
      record,
      enqueue: [{ kind: 'message', id: 'm', participantId: 'alice', source: 'human', text: big }],
    });
    const parts = async () =>
      (
        await client.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :part)',
            ExpressionAttributeValues: { ':pk': { S: `TASK#${taskId}` }, ':part': { S: 'PIECE#' } },
          })
        )
      ).Items ?? [];
    expect((await parts()).map((item) => item.sk?.S)).toEqual([
      'PIECE#INBOX#000000000001#1',
      'PIECE#INBOX#000000000001#2',
    ]);
    const [item] = await store.readInbox(taskId);
    await store.commit({ kind: 'update', base: created!, record: created!, consumed: [item!] });
    expect(await parts()).toEqual([]);
  });

  it('writes what a commit says (entries, events, audit records) as one log item beside the record', async () => {
    const { store: recorded, written } = recordingStore();
    const taskId = uid('task');
    const { record: created } = await recorded.commit({
      kind: 'create',
      record: makeRecord(taskId),
      events: [{ kind: 'task', task: makeRecord(taskId).task }],
    });
    written.length = 0;
    await recorded.commit({
      kind: 'update',
      base: created!,
      record: changed(created!, { turn: 1 }),
      history: [1, 2, 3].map((seq) => ({ seq, kind: 'assistant_message', text: `turn ${seq}` })),
      events: [
        { kind: 'task', task: created!.task },
        { kind: 'task', task: created!.task },
      ],
      audit: [
        { key: 'model/1', value: { n: 1 } },
        { key: 'tool/1', value: { n: 2 } },
      ],
    });
    expect(written).toEqual([['TASK', 'LOG#000000000003#000000000002']]);
    // Its JSON is stored deflated, since that is shorter (the record's task and loop too).
    const logItem = await getItem(client, tableName, {
      pk: { S: `TASK#${taskId}` },
      sk: { S: 'LOG#000000000003#000000000002' },
    });
    const stored = logItem?.[ATTR.data]?.S ?? '';
    expect(stored.startsWith('~')).toBe(true);
    expect(JSON.parse(unpackedText(stored)).history).toHaveLength(3);
    expect((await rawTaskItem(taskId))?.[ATTR.task]?.S?.startsWith('~')).toBe(true);
    // A commit that says nothing writes the record alone.
    const read = (await recorded.get(taskId))!;
    written.length = 0;
    await recorded.commit({ kind: 'update', base: read, record: changed(read, { turn: 2 }) });
    expect(written).toEqual([['TASK']]);
    const events = new DynamoDbEventLog({ client, tableName });
    expect((await events.read(taskId)).map((logged) => logged.seq)).toEqual([1, 2, 3]);
    expect((await events.read(taskId, 1, 1)).map((logged) => logged.seq)).toEqual([2]);
    expect((await store.readHistory(taskId, 1)).map((entry) => entry.seq)).toEqual([2, 3]);
    expect(await store.getAudit(taskId, 'tool/1')).toEqual({ n: 2 });
  });

  it('holds a small message a record write enqueues on the record until the write that consumes it', async () => {
    const { store: recorded, written, read } = recordingStore();
    const taskId = uid('task');
    const message = (id: string, text = `text of ${id}`) => ({
      kind: 'message' as const,
      id,
      participantId: 'alice',
      source: 'human' as const,
      text,
    });
    const { record: created } = await recorded.commit({
      kind: 'create',
      record: makeRecord(taskId),
    });
    written.length = 0;
    read.length = 0;
    // A claim's commit: the record holds the message; only its marker is an item of its own.
    const { record: claimed } = await recorded.commit({
      kind: 'update',
      base: created!,
      record: created!,
      enqueue: [message('m-1')],
    });
    expect(written).toEqual([['INBOXSEQ'], ['TASK', 'INBOXID#m-1']]);
    const [first] = await recorded.readInbox(taskId);
    expect(first).toMatchObject({ seq: 1, id: 'm-1', text: 'text of m-1' });
    expect(read).toEqual(['GetItem']);
    // The record says its inbox whole: what it holds, as the commit answered and as read.
    expect(claimed?.inbox).toEqual([first]);
    expect((await recorded.get(taskId))?.inbox).toEqual([first]);
    // A message to the running task is an item apart, read beside the held one, in seq order.
    await recorded.commit({ kind: 'guarded', taskId, unparked: true, enqueue: [message('m-2')] });
    // One too large to hold goes apart too.
    const large = 'x'.repeat(20_000);
    const { record: more } = await recorded.commit({
      kind: 'update',
      base: claimed!,
      record: claimed!,
      enqueue: [message('m-3', large)],
    });
    // With items apart it does not: they are read.
    expect(more?.inbox).toBeUndefined();
    expect((await recorded.get(taskId))?.inbox).toBeUndefined();
    read.length = 0;
    const waiting = await new DynamoDbTaskStore({ client, tableName }).readInbox(taskId);
    expect(waiting.map((item) => [item.seq, item.id])).toEqual([
      [1, 'm-1'],
      [2, 'm-2'],
      [3, 'm-3'],
    ]);
    // The drain takes them all: the held one off the record, the others' items deleted.
    written.length = 0;
    await recorded.commit({ kind: 'update', base: more!, record: more!, consumed: waiting });
    expect(written).toEqual([['TASK', 'INBOX#000000000002', 'INBOX#000000000003']]);
    read.length = 0;
    expect(await recorded.readInbox(taskId)).toEqual([]);
    expect(read).toEqual(['GetItem']);
    const raw = (await rawTaskItem(taskId))!;
    expect(raw[ATTR.inboxHeld]).toBeUndefined();
    expect(raw[ATTR.inboxApart]).toEqual({ N: '0' });
    expect((await recorded.get(taskId))?.inbox).toEqual([]);
  });

  it('queries the inbox of a record that never counted its items apart', async () => {
    const { store: recorded, read } = recordingStore();
    const taskId = uid('task');
    await recorded.commit({ kind: 'create', record: makeRecord(taskId) });
    const raw = (await rawTaskItem(taskId))!;
    delete raw[ATTR.inboxCounted];
    delete raw[ATTR.inboxApart];
    await client.send(new PutItemCommand({ TableName: tableName, Item: raw }));
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: encodeInboxItem(taskId, {
          seq: 4,
          kind: 'message',
          id: 'earlier',
          participantId: 'alice',
          source: 'human',
          text: 'left by an earlier build',
        }),
      })
    );
    read.length = 0;
    expect((await recorded.readInbox(taskId)).map((item) => item.id)).toEqual(['earlier']);
    expect(read).toEqual(['GetItem', 'Query']);
    // Nor does its record say its inbox whole.
    expect((await recorded.get(taskId))?.inbox).toBeUndefined();
  });

  it('keeps intake’s row of a message it takes in on the message’s marker, and a refusal’s on its own', async () => {
    const { store: recorded, written } = recordingStore();
    const taskId = uid('task');
    await recorded.commit({ kind: 'create', record: makeRecord(taskId) });
    written.length = 0;
    const row = (id: string, accepted: boolean) => ({
      key: intakeAuditKey(id),
      value: { message_id: id, accepted },
    });
    await recorded.commit({
      kind: 'guarded',
      taskId,
      unparked: true,
      enqueue: [
        { kind: 'message', id: 'm-1', participantId: 'alice', source: 'human', text: 'hi' },
      ],
      seen: ['m-2'],
      audit: [row('m-1', true), row('m-2', true), { key: 'other', value: 1 }],
    });
    await recorded.commit({ kind: 'guarded', taskId, unparked: false, audit: [row('m-3', false)] });
    expect(written).toEqual([
      ['INBOXSEQ'],
      ['TASK', 'INBOX#000000000001', 'INBOXID#m-1', 'INBOXID#m-2', 'ONCE#other'],
      ['TASK', 'ONCE#audit:m-3'],
    ]);
    expect(await store.inboxSeqOf(taskId, 'm-1')).toBe(1);
    expect(await store.inboxSeqOf(taskId, 'm-2')).toBe(0);
    const records = await new DynamoDbTaskRecords({ client, tableName }).all(taskId);
    expect(Object.fromEntries(records)).toEqual({
      'audit:m-1': { message_id: 'm-1', accepted: true },
      'audit:m-2': { message_id: 'm-2', accepted: true },
      'audit:m-3': { message_id: 'm-3', accepted: false },
      other: 1,
    });
  });

  it('keeps a new task’s seen ids on its record, their rows in its log, and refuses them after', async () => {
    const { store: recorded, written, read } = recordingStore();
    const taskId = uid('task');
    const long = `m-${'x'.repeat(SEEN_ON_RECORD_CHARACTERS)}`;
    const row = (id: string) => ({ key: intakeAuditKey(id), value: { message_id: id } });
    await recorded.commit({
      kind: 'create',
      // The agent's own id is a participant no membership item lists.
      record: makeRecord(taskId, { participants: ['alice', 'tiny-harness'] }),
      seen: ['first', long],
      audit: [row('first'), row(long)],
    });
    // The short id is on the record; the long one keeps its marker, with its row.
    expect(written).toEqual([
      ['TASK', 'PART#alice', expect.stringMatching(/^LOG#/), `INBOXID#${long}`],
    ]);
    read.length = 0;
    expect(await recorded.inboxSeqOf(taskId, 'first')).toBe(0);
    expect(await recorded.inboxSeqOf(taskId, long)).toBe(0);
    expect(await recorded.inboxSeqOf(taskId, 'never')).toBeUndefined();
    // Each is one read: the id's marker and the record's ids together.
    expect(read).toEqual(['BatchGetItem', 'BatchGetItem', 'BatchGetItem']);
    const records = await new DynamoDbTaskRecords({ client, tableName }).all(taskId);
    expect(Object.fromEntries(records)).toEqual({
      'audit:first': { message_id: 'first' },
      [`audit:${long}`]: { message_id: long },
    });
    const created = (await store.get(taskId))!;
    const message = {
      kind: 'message',
      id: 'first',
      participantId: 'alice',
      source: 'human',
      text: 'again',
    } as const;
    for (const commit of [
      { kind: 'guarded', taskId, unparked: false, enqueue: [message] },
      { kind: 'guarded', taskId, unparked: false, seen: ['first'] },
      { kind: 'update', base: created, record: created, enqueue: [message] },
    ] satisfies TaskCommit[]) {
      await expect(store.commit(commit)).rejects.toBeInstanceOf(ConcurrencyConflictError);
    }
    expect(await store.readInbox(taskId)).toEqual([]);
    expect(await store.get(taskId)).toEqual(created);
  });

  it('reads an earlier build’s transcript, events and audit records before the log items that follow them', async () => {
    const taskId = uid('task');
    const { record: created } = await store.commit({ kind: 'create', record: makeRecord(taskId) });
    // As an earlier build left it: an item per entry, event and record, and a record naming no
    // log origin.
    const earlier = [
      encodeHistoryEntry(taskId, { seq: 1, kind: 'assistant_message', text: 'earlier 1' }),
      encodeHistoryEntry(taskId, { seq: 2, kind: 'assistant_message', text: 'earlier 2' }),
      encodeEvent(taskId, 1, { kind: 'task', task: created!.task }, { historySeq: 2 }),
      encodeOnce(taskId, 'model/1', { earlier: true }),
      encodeOnce(taskId, 'tool/1', { earlier: true }),
    ];
    for (const item of earlier) {
      await client.send(new PutItemCommand({ TableName: tableName, Item: item }));
    }
    const raw = (await rawTaskItem(taskId))!;
    delete raw[ATTR.logEventsFrom];
    delete raw[ATTR.logHistoryFrom];
    raw[ATTR.eventSeq] = { N: '1' };
    raw[ATTR.loop] = { S: JSON.stringify({ ...created!.loop, historySeq: 2 }) };
    await client.send(new PutItemCommand({ TableName: tableName, Item: raw }));

    // A fresh process reads it as that build wrote it...
    const fresh = new DynamoDbTaskStore({ client, tableName });
    const before = (await fresh.get(taskId))!;
    expect(before.logFrom).toBeUndefined();
    expect((await fresh.readHistory(taskId)).map((entry) => entry.seq)).toEqual([1, 2]);
    // ...and its next commit puts what it says in a log item, naming where they begin.
    const { record: after } = await fresh.commit({
      kind: 'update',
      base: before,
      record: { ...before, loop: { ...before.loop, historySeq: 3 } },
      history: [{ seq: 3, kind: 'assistant_message', text: 'logged 3' }],
      events: [{ kind: 'task', task: before.task }],
      audit: [{ key: 'tool/1', value: { logged: true } }],
    });
    expect(after?.logFrom).toEqual({ eventSeq: 1, historySeq: 2 });
    for (const reader of [fresh, new DynamoDbTaskStore({ client, tableName })]) {
      expect(
        (await reader.readHistory(taskId)).map((entry) => (entry as { text?: string }).text)
      ).toEqual(['earlier 1', 'earlier 2', 'logged 3']);
      expect((await reader.readHistory(taskId, 1, 2)).map((entry) => entry.seq)).toEqual([2]);
      expect((await reader.readHistory(taskId, 2)).map((entry) => entry.seq)).toEqual([3]);
    }
    const events = new DynamoDbEventLog({ client, tableName });
    expect((await events.read(taskId)).map((logged) => [logged.seq, logged.historySeq])).toEqual([
      [1, 2],
      [2, 3],
    ]);
    expect((await events.read(taskId, 0, 1)).map((logged) => logged.seq)).toEqual([1]);
    expect((await events.read(taskId, 1)).map((logged) => logged.seq)).toEqual([2]);
    // A log item's record replaces an earlier one of the same key.
    const records = await new DynamoDbTaskRecords({ client, tableName }).all(taskId);
    expect(Object.fromEntries(records)).toEqual({
      'model/1': { earlier: true },
      'tool/1': { logged: true },
    });
  });

  it('keeps a log item past the item limit in pieces, read whole by every reader', async () => {
    const taskId = uid('task');
    // Text that does not deflate: packed, it would fit one item.
    const text = randomBytes(187_500).toString('base64');
    const { record: created } = await store.commit({
      kind: 'create',
      record: makeRecord(taskId),
      history: [{ seq: 1, kind: 'assistant_message', text }],
      events: [{ kind: 'task', task: makeRecord(taskId).task }],
      audit: [{ key: 'big', value: { text } }],
    });
    expect(created).toBeDefined();
    const pieces = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :piece)',
        ExpressionAttributeValues: {
          ':pk': { S: `TASK#${taskId}` },
          ':piece': { S: 'PIECE#LOG#' },
        },
      })
    );
    expect(pieces.Items?.length).toBeGreaterThan(1);
    const fresh = new DynamoDbTaskStore({ client, tableName });
    expect(await fresh.readHistory(taskId)).toEqual([{ seq: 1, kind: 'assistant_message', text }]);
    expect(await fresh.getAudit(taskId, 'big')).toEqual({ text });
    const events = await new DynamoDbEventLog({ client, tableName }).read(taskId);
    expect(events.map((logged) => logged.seq)).toEqual([1]);
  });

  it('refuses corrupt history, inbox and audit items with InvalidTaskRecordError', async () => {
    const taskId = uid('task');
    await store.commit({
      kind: 'create',
      record: makeRecord(taskId),
      history: [{ seq: 1, kind: 'assistant_message', text: 'ok' }],
    });
    const logItem = (sk: string, data: unknown) => ({
      pk: { S: `TASK#${taskId}` },
      sk: { S: sk },
      [ATTR.eventSeq]: { N: '0' },
      [ATTR.eventCount]: { N: '0' },
      [ATTR.historySeq]: { N: '2' },
      [ATTR.historyTop]: { N: '2' },
      data: { S: JSON.stringify(data) },
    });
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: logItem('LOG#000000000000#000000000002', {
          history: [{ seq: 2, kind: 'not an entry' }],
          events: [],
          audit: [],
        }),
      })
    );
    await expect(store.readHistory(taskId)).rejects.toBeInstanceOf(InvalidTaskRecordError);
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: logItem('LOG#000000000000#000000000002', { history: 'none', events: [], audit: [] }),
      })
    );
    await expect(store.getAudit(taskId, 'k')).rejects.toBeInstanceOf(InvalidTaskRecordError);
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: logItem('LOG#000000000000#000000000002', { history: [], events: [], audit: [] }),
      })
    );
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: {
          pk: { S: `TASK#${taskId}` },
          sk: { S: 'INBOX#000000000001' },
          seq: { N: '1' },
          data: { S: JSON.stringify({ seq: 1, kind: 'message', id: 'm' }) },
        },
      })
    );
    // The record counts the items apart it has: one, as a commit that enqueued it would have.
    const count = (delta: number) =>
      client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: taskKey(taskId),
          UpdateExpression: 'ADD #apart :n',
          ExpressionAttributeNames: { '#apart': ATTR.inboxApart },
          ExpressionAttributeValues: { ':n': { N: String(delta) } },
        })
      );
    await count(1);
    await expect(store.readInbox(taskId)).rejects.toBeInstanceOf(InvalidTaskRecordError);
    await count(-1);
    await client.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: taskKey(taskId),
        UpdateExpression: 'SET #held = :held',
        ExpressionAttributeNames: { '#held': ATTR.inboxHeld },
        ExpressionAttributeValues: { ':held': { S: '[{"seq":1}]' } },
      })
    );
    await expect(store.readInbox(taskId)).rejects.toBeInstanceOf(InvalidTaskRecordError);
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: {
          pk: { S: `TASK#${taskId}` },
          sk: { S: 'ONCE#k' },
          key: { S: 'k' },
          data: { S: '{not json' },
        },
      })
    );
    await expect(store.getAudit(taskId, 'k')).rejects.toBeInstanceOf(InvalidTaskRecordError);
  });
});
