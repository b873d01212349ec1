import { randomBytes } from 'node:crypto';
import type { AttributeValue, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  encodeEvent,
  encodeTaskRecord,
  splitData,
  taskKey,
} from '../../../functions/adapters/dynamodb/item-codec.js';
import { encodeLogItem } from '../../../functions/adapters/dynamodb/log-item.js';
import { startTask } from '../../../functions/core/intake/start-task.js';
import type { LoggedEvent } from '../../../functions/core/ports/event-log.js';
import type { AuditRecord } from '../../../functions/core/ports/task-store.js';
import type { WebhookResult } from '../../../functions/core/ports/webhook-sender.js';
import { runTask } from '../../../functions/core/testing/driver.js';
import { createPushHandler } from '../../../functions/handlers/push.js';
import { PushConfigs, storedIdOf } from '../../../functions/service/push-configs.js';
import { deliverEvent } from '../../../functions/service/push-delivery.js';
import { ALICE, BOB } from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';
import { pushConfigRequest } from '../../support/push.js';
import { inMemoryRuntime, lambdaContext } from '../support.js';

type Image = Record<string, AttributeValue>;

let sequence = 5000;

/** The INSERT of an item, as the table's stream carries it. */
const insertOf = (item: Image): DynamoDBRecord => {
  const sequenceNumber = String(++sequence);
  return {
    eventID: `event-${sequenceNumber}`,
    eventName: 'INSERT',
    eventSource: 'aws:dynamodb',
    dynamodb: {
      Keys: { pk: item.pk!, sk: item.sk! },
      NewImage: item,
      SequenceNumber: sequenceNumber,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
};

/**
 * The INSERT of the log item of a commit that logged `logged` (consecutive events), marked for
 * push; with `audit`, records of its own beside them. Only its first piece when it is in pieces.
 */
const logInsert = (
  taskId: string,
  logged: readonly LoggedEvent[],
  audit: AuditRecord[] = []
): DynamoDBRecord => {
  const last = logged.at(-1)!;
  const item = encodeLogItem(
    taskId,
    { version: last.seq + 1, eventSeq: last.seq, historySeq: last.historySeq ?? 0, push: true },
    { history: [], events: logged.map(({ event }) => event), audit }
  );
  return insertOf(splitData(item!)[0] as unknown as Image);
};

/** The INSERT of a commit's log item that logged one event. */
const eventInsert = (taskId: string, logged: LoggedEvent) => logInsert(taskId, [logged]);

const config = pushConfigRequest;

/** A parked conversation of Alice's with its log (task, WORKING, INPUT_REQUIRED, ...). */
const conversation = async () => {
  const parts = inMemoryRuntime({ replies: [{ text: 'Hello Alice.' }] });
  const { deps } = parts.harness;
  const { record: started } = await startTask(deps, { message: textMessage('hi'), sender: ALICE });
  await runTask(deps, started.task.id);
  const taskId = started.task.id;
  const events = await deps.events.read(taskId);
  const records = events.map((logged) => eventInsert(taskId, logged));
  const handler = createPushHandler(() => parts.runtime);
  const deliver = (records: DynamoDBRecord[], remainingMs = 60_000) =>
    handler({ Records: records } satisfies DynamoDBStreamEvent, {
      ...lambdaContext('PushFunction'),
      getRemainingTimeInMillis: () => remainingMs,
    });
  return {
    ...parts,
    taskId,
    events,
    records,
    deliver,
    configs: new PushConfigs(parts.runtime),
  };
};

const status = (code: number): WebhookResult => ({ kind: 'status', status: code });

describe('the push handler', () => {
  it('POSTs every event, in log order, to each config, with its token and credentials', async () => {
    const setup = await conversation();
    await setup.configs.create(
      config({ id: 'plain', taskId: setup.taskId, url: 'https://a.example.com/hook' }),
      ALICE
    );
    await setup.configs.create(
      config({
        id: 'full',
        taskId: setup.taskId,
        url: 'https://b.example.com/hook',
        token: 'tok-123',
        authentication: { scheme: 'Bearer', credentials: 'webhook-secret-456' },
      }),
      ALICE
    );

    const response = await setup.deliver(setup.records);

    expect(response).toEqual({ batchItemFailures: [] });
    const sent = setup.webhooks.requests;
    const kinds = (url: string) =>
      sent
        .filter((request) => request.url === url)
        .map((request) => Object.keys(JSON.parse(request.body))[0]);
    expect(setup.events.map((logged) => logged.event.kind)).toEqual([
      'task',
      'status_update',
      'status_update',
    ]);
    expect(kinds('https://a.example.com/hook')).toEqual(['task', 'statusUpdate', 'statusUpdate']);
    expect(kinds('https://b.example.com/hook')).toEqual(['task', 'statusUpdate', 'statusUpdate']);
    const states = sent
      .filter((request) => request.url === 'https://a.example.com/hook')
      .map((request) => JSON.parse(request.body).statusUpdate?.status.state);
    expect(states).toEqual([undefined, 'TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED']);
    expect(sent.find((r) => r.url === 'https://a.example.com/hook')?.headers).toEqual({
      'Content-Type': 'application/a2a+json',
    });
    expect(sent.find((r) => r.url === 'https://b.example.com/hook')?.headers).toEqual({
      'Content-Type': 'application/a2a+json',
      'X-A2A-Notification-Token': 'tok-123',
      Authorization: 'Bearer webhook-secret-456',
    });
    expect(sent.every((request) => request.timeoutMs === 10_000)).toBe(true);
    // Every outcome is logged, never a secret.
    const delivered = setup.logs().filter((l) => l.message === 'push notification delivered');
    expect(delivered).toHaveLength(6);
    expect(delivered[0]).toMatchObject({
      taskId: setup.taskId,
      seq: 1,
      webhookHost: expect.any(String),
    });
    expect(setup.lines.join('\n')).not.toMatch(/tok-123|webhook-secret-456/);
  });

  it('costs nothing for a task without configs, and skips records that are not event inserts', async () => {
    const setup = await conversation();
    const record = await setup.harness.task(setup.taskId);
    const taskWrite: DynamoDBRecord = {
      eventName: 'MODIFY',
      dynamodb: {
        Keys: taskKey(setup.taskId) as unknown as Image,
        NewImage: encodeTaskRecord(record, record.version).item as unknown as Image,
        SequenceNumber: '1',
      },
    };
    expect(await setup.deliver([...setup.records, taskWrite])).toEqual({ batchItemFailures: [] });
    expect(setup.webhooks.requests).toEqual([]);
  });

  it('delivers nothing to the config of someone who is not a participant', async () => {
    const setup = await conversation();
    // Stored for Bob as an inline config would be, though Bob is not (or no longer) on the task.
    await setup.configs.storePrepared(
      await setup.configs.prepare(setup.taskId, config({ id: 'bobs' }), BOB)
    );
    expect(await setup.deliver(setup.records)).toEqual({ batchItemFailures: [] });
    expect(setup.webhooks.requests).toEqual([]);
  });

  it('drops an event a webhook refuses for good (4xx), and goes on', async () => {
    const setup = await conversation();
    await setup.configs.create(config({ id: 'gone', taskId: setup.taskId }), ALICE);
    setup.webhooks.respond = () => status(410);

    expect(await setup.deliver(setup.records)).toEqual({ batchItemFailures: [] });
    expect(setup.webhooks.requests).toHaveLength(3);
    expect(setup.logs().filter((l) => l.message === 'push notification rejected')).toHaveLength(3);
  });

  it('reports the first record a webhook could not get in time, and tries nothing after it', async () => {
    const setup = await conversation();
    await setup.configs.create(config({ id: 'down', taskId: setup.taskId }), ALICE);
    setup.webhooks.respond = (_, index) => (index === 0 ? status(200) : status(503));

    // Two seconds to deliver in: the second record's webhook gets two attempts, half a second
    // apart, and there is no time for a third.
    const response = await setup.deliver(setup.records, 5_000);

    expect(response).toEqual({
      batchItemFailures: [{ itemIdentifier: setup.records[1]?.dynamodb?.SequenceNumber }],
    });
    expect(setup.webhooks.requests).toHaveLength(3);
    expect(setup.logs().at(-1)).toMatchObject({
      message: 'push notification not delivered yet',
      why: 'time',
      attempts: 2,
    });
  });

  it('drops a config whose secrets do not open, logging it, and fails on a corrupt event', async () => {
    const setup = await conversation();
    await setup.configs.create(config({ id: 'hook', taskId: setup.taskId, token: 't' }), ALICE);
    const stored = await setup.pushConfigs.get(setup.taskId, storedIdOf(ALICE, 'hook'));
    await setup.pushConfigs.put({ ...stored!, token: `${stored!.token.slice(0, -4)}AAAA` });

    expect(await setup.deliver(setup.records.slice(0, 1))).toEqual({ batchItemFailures: [] });
    expect(setup.webhooks.requests).toEqual([]);
    expect(setup.logs().at(-1)).toMatchObject({
      level: 'error',
      message: 'push config secrets do not open',
      outcome: 'rejected',
    });

    const corrupt = eventInsert(setup.taskId, setup.events[0]!);
    corrupt.dynamodb!.NewImage!.data = { S: '{not json' };
    expect(await setup.deliver([corrupt])).toEqual({
      batchItemFailures: [{ itemIdentifier: corrupt.dynamodb?.SequenceNumber }],
    });
  });
});

describe('the push handler, on what the stream carries', () => {
  const posted = (setup: Awaited<ReturnType<typeof conversation>>) =>
    setup.webhooks.requests.map((request) => Object.keys(JSON.parse(request.body))[0]);

  it('POSTs every event of one commit’s log item, in order', async () => {
    const setup = await conversation();
    await setup.configs.create(config({ id: 'hook', taskId: setup.taskId }), ALICE);
    expect(await setup.deliver([logInsert(setup.taskId, setup.events)])).toEqual({
      batchItemFailures: [],
    });
    expect(posted(setup)).toEqual(['task', 'statusUpdate', 'statusUpdate']);
  });

  it('reads from the log the events of a log item whose image holds only its first piece', async () => {
    const setup = await conversation();
    await setup.configs.create(config({ id: 'hook', taskId: setup.taskId }), ALICE);
    const [first, second] = setup.events;
    const record = logInsert(
      setup.taskId,
      [first!, second!],
      // Text that does not deflate: packed, it would fit one item.
      [{ key: 'large', value: randomBytes(187_500).toString('base64') }]
    );
    expect(record.dynamodb?.NewImage?.parts).toBeDefined();
    expect(await setup.deliver([record])).toEqual({ batchItemFailures: [] });
    expect(posted(setup)).toEqual(['task', 'statusUpdate']);
  });

  it('still POSTs an earlier build’s event item', async () => {
    const setup = await conversation();
    await setup.configs.create(config({ id: 'hook', taskId: setup.taskId }), ALICE);
    const [first] = setup.events;
    const item = encodeEvent(setup.taskId, first!.seq, first!.event, { push: true });
    expect(await setup.deliver([insertOf(item as unknown as Image)])).toEqual({
      batchItemFailures: [],
    });
    expect(posted(setup)).toEqual(['task']);
  });
});

/** The first event of the conversation through deliverEvent, with waits recorded, not waited. */
const deliverFirst = async (setup: Awaited<ReturnType<typeof conversation>>) => {
  const slept: number[] = [];
  const delivery = await deliverEvent(
    {
      ...setup.runtime,
      store: setup.runtime.loop.store,
      sleep: async (ms) => {
        slept.push(ms);
      },
    },
    setup.taskId,
    setup.events[0]!,
    Date.now() + 60_000
  );
  return { delivery, slept };
};

describe('deliverEvent retries', () => {
  it('retries 5xx with exponential backoff and delivers on the third attempt', async () => {
    const setup = await conversation();
    await setup.configs.create(config({ id: 'flaky', taskId: setup.taskId }), ALICE);
    const answers = [status(500), { kind: 'failed', reason: 'ECONNRESET' } as const, status(200)];
    setup.webhooks.respond = (_, index) => answers[index] ?? status(200);

    const { delivery, slept } = await deliverFirst(setup);

    expect(delivery).toEqual({
      outcomes: [{ configId: storedIdOf(ALICE, 'flaky'), outcome: 'delivered' }],
      complete: true,
    });
    expect(slept).toEqual([500, 1_000]);
    expect(setup.logs().at(-1)).toMatchObject({
      message: 'push notification delivered',
      attempts: 3,
    });
  });

  it('gives up after four attempts: the record is not complete', async () => {
    const setup = await conversation();
    await setup.configs.create(config({ id: 'down', taskId: setup.taskId }), ALICE);
    setup.webhooks.respond = () => status(429);

    const { delivery, slept } = await deliverFirst(setup);

    expect(delivery.complete).toBe(false);
    expect(setup.webhooks.requests).toHaveLength(4);
    expect(slept).toEqual([500, 1_000, 2_000]);
    expect(setup.logs().at(-1)).toMatchObject({ why: 'attempts', status: 429, attempts: 4 });
  });
});
