import type { AttributeValue, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  budgetAttributes,
  encodeTaskRecord,
  taskKey,
} from '../../../functions/adapters/dynamodb/item-codec.js';
import {
  emfSpendMetrics,
  SPEND_METRICS,
  spendMetricLine,
} from '../../../functions/adapters/system/emf-metrics.js';
import { readUsage } from '../../../functions/core/loop/usage.js';
import type { TaskRecord } from '../../../functions/core/ports/task-store.js';
import { createStreamHandler } from '../../../functions/handlers/stream.js';
import { ALICE } from '../../support/harness.js';
import { envelopeMessage, textMessage } from '../../support/messages.js';
import { inMemoryRuntime, lambdaContext } from '../support.js';

type Image = Record<string, AttributeValue>;

/** The record's item as the table holds it: with its budget account, when it has one. */
const image = (record: TaskRecord): Image =>
  ({
    ...encodeTaskRecord(record, record.version).item,
    ...budgetAttributes(record.budgetAvailable ?? {}),
  }) as unknown as Image;

let sequence = 5000;

/** A stream record as DynamoDB emits it for the task table (NEW_AND_OLD_IMAGES). */
const streamRecord = (before: TaskRecord | undefined, after: TaskRecord): DynamoDBRecord => {
  const sequenceNumber = String(++sequence);
  return {
    eventID: `event-${sequenceNumber}`,
    eventName: before === undefined ? 'INSERT' : 'MODIFY',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    dynamodb: {
      ApproximateCreationDateTime: 1_700_000_000,
      Keys: taskKey(after.task.id) as unknown as Image,
      NewImage: image(after),
      ...(before === undefined ? {} : { OldImage: image(before) }),
      SequenceNumber: sequenceNumber,
      SizeBytes: 1024,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
};

const NOW = 1_700_000_123_456;

interface EmfLine {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: Array<{
      Namespace: string;
      Dimensions: string[][];
      Metrics: Array<{ Name: string; Unit: string }>;
    }>;
  };
  [field: string]: unknown;
}

/**
 * A harness whose deployment names the `research` type (`*` budgets every other), with a price
 * for the scripted model; each task-record write is kept as the stream would carry it.
 */
const deployment = () => {
  const parts = inMemoryRuntime({
    replies: [{ text: 'First answer.' }, { text: 'Second answer.' }],
    harness: {
      config: {
        defaultModel: 'scripted',
        defaultBudgets: { '*': { usd: 1 }, research: { model_calls: 4 } },
        prices: { scripted: { input: 10, output: 100 } },
      },
    },
  });
  const { store } = parts.harness;
  const changes: Array<{ before: TaskRecord | undefined; after: TaskRecord }> = [];
  store.onChange((before, after) => changes.push({ before, after }));
  const lines: string[] = [];
  const handler = createStreamHandler(
    () => parts.runtime,
    () => emfSpendMetrics({ stage: 'test', sink: (line) => lines.push(line), now: () => NOW })
  );
  const deliver = (...records: DynamoDBRecord[]) =>
    handler({ Records: records } satisfies DynamoDBStreamEvent, lambdaContext('StreamFunction'));
  const start = async (type: string | null) => {
    const started = await parts.harness.start(
      envelopeMessage('task', { name: 'Report', goal: 'Write it', type }, { text: 'go' }),
      ALICE
    );
    return started.task.id;
  };
  /** The write of `taskId` that recorded a model call, with the account the task has now. */
  const modelCall = async (taskId: string) => {
    const change = changes.find(
      ({ before, after }) =>
        after.task.id === taskId &&
        readUsage(after.task).model_calls > (before ? readUsage(before.task).model_calls : 0)
    );
    if (change === undefined) throw new Error(`no model call of ${taskId}`);
    const now = await parts.harness.task(taskId);
    return {
      before: change.before,
      after: { ...change.after, budgetAvailable: now.budgetAvailable },
    };
  };
  return { ...parts, changes, lines, deliver, start, modelCall };
};

const parsed = (lines: string[]): EmfLine[] => lines.map((line) => JSON.parse(line) as EmfLine);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the stream handler publishes spend per task type', () => {
  it('writes one embedded metric format line for a model call: the spend, and the share of the budget used', async () => {
    const { deliver, lines, start, modelCall } = await deployment();
    const taskId = await start('research');
    const call = await modelCall(taskId);

    const response = await deliver(streamRecord(call.before, call.after));
    expect(response).toEqual({ batchItemFailures: [] });
    expect(parsed(lines)).toEqual([
      {
        _aws: {
          Timestamp: NOW,
          CloudWatchMetrics: [
            {
              Namespace: 'TinyHarness',
              Dimensions: [['stage', 'TaskType']],
              Metrics: [
                { Name: 'SpendUsd', Unit: 'None' },
                { Name: 'InputTokens', Unit: 'Count' },
                { Name: 'OutputTokens', Unit: 'Count' },
                { Name: 'ModelCalls', Unit: 'Count' },
                { Name: 'BudgetUsedShare', Unit: 'None' },
              ],
            },
          ],
        },
        stage: 'test',
        TaskType: 'research',
        taskId,
        // The scripted model's 100 tokens in and 10 out, at 10 and 100 USD per million.
        SpendUsd: 0.002,
        InputTokens: 100,
        OutputTokens: 10,
        ModelCalls: 1,
        // One call of the four its type's budget allows.
        BudgetUsedShare: 0.25,
      },
    ]);
  });

  it('publishes a type the deployment does not name as `other`', async () => {
    const { deliver, lines, start, modelCall } = await deployment();
    const call = await modelCall(await start('invented-by-the-client'));
    await deliver(streamRecord(call.before, call.after));
    // Its budget is the deployment-wide `*` one, in dollars: 0.002 of 1.
    expect(parsed(lines)).toMatchObject([
      { TaskType: 'other', ModelCalls: 1, SpendUsd: 0.002, BudgetUsedShare: 0.002 },
    ]);
  });

  it('writes nothing for a change that spent nothing on a task without a budget', async () => {
    const parts = inMemoryRuntime({ replies: [{ text: 'Hello.' }, { text: 'Again.' }] });
    const changes: Array<{ before: TaskRecord | undefined; after: TaskRecord }> = [];
    parts.harness.store.onChange((before, after) => changes.push({ before, after }));
    const lines: string[] = [];
    const handler = createStreamHandler(
      () => parts.runtime,
      () => emfSpendMetrics({ stage: 'test', sink: (line) => lines.push(line) })
    );
    const started = await parts.harness.start(textMessage('hi'), ALICE);
    // The claim that takes a second message in spends nothing.
    await parts.harness.send(started.task.id, textMessage('again'), ALICE);
    const quiet = changes.filter(
      ({ before, after }) =>
        before !== undefined &&
        readUsage(before.task).model_calls === readUsage(after.task).model_calls
    );
    expect(quiet.length).toBeGreaterThan(0);
    await handler(
      { Records: quiet.map(({ before, after }) => streamRecord(before, after)) },
      lambdaContext('StreamFunction')
    );
    expect(lines).toEqual([]);
  });

  it('reads nothing to publish: the two images are all it needs', async () => {
    const { deliver, lines, start, modelCall, harness } = await deployment();
    const taskId = await start('research');
    const call = await modelCall(taskId);
    const reads = harness.store.recordReads.get(taskId) ?? 0;
    await deliver(streamRecord(call.before, call.after));
    expect(lines).toHaveLength(1);
    expect(harness.store.recordReads.get(taskId) ?? 0).toBe(reads);
  });

  it('writes to no log unless given a writer (npm start runs the handler without one)', async () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const { runtime, harness } = await deployment();
    const changes: Array<{ before: TaskRecord | undefined; after: TaskRecord }> = [];
    harness.store.onChange((before, after) => changes.push({ before, after }));
    await harness.start(
      envelopeMessage('task', { name: 'R', goal: 'g', type: 'research' }, { text: 'go' }),
      ALICE
    );
    const handler = createStreamHandler(() => runtime);
    await handler(
      { Records: changes.map(({ before, after }) => streamRecord(before, after)) },
      lambdaContext('StreamFunction')
    );
    expect(write.mock.calls.filter(([text]) => String(text).includes('"_aws"'))).toEqual([]);
  });
});

describe('the embedded metric format line', () => {
  it('holds only the metrics the change has, named in SPEND_METRICS', () => {
    const line = JSON.parse(
      spendMetricLine(
        { taskType: 'other', budgetUsedShare: 0.9 },
        { stage: 'prod', taskId: 't-1', timestamp: 1 }
      )
    ) as EmfLine;
    expect(line).toEqual({
      _aws: {
        Timestamp: 1,
        CloudWatchMetrics: [
          {
            Namespace: SPEND_METRICS.namespace,
            Dimensions: [[SPEND_METRICS.dimensions.stage, SPEND_METRICS.dimensions.taskType]],
            Metrics: [{ Name: SPEND_METRICS.names.budgetUsedShare, Unit: 'None' }],
          },
        ],
      },
      stage: 'prod',
      TaskType: 'other',
      taskId: 't-1',
      BudgetUsedShare: 0.9,
    });
  });
});
