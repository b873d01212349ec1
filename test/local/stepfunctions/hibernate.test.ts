import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  type HistoryEvent,
  ListExecutionsCommand,
  SendTaskFailureCommand,
  SendTaskSuccessCommand,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import type { AslMachine } from '../../../functions/local/stepfunctions/asl-walk.js';
import { FileCheckpointStore } from '../../../functions/local/stepfunctions/file-checkpoint-store.js';
import {
  fileStoreFixtures,
  type Harness,
  loadFixture,
  ParkRecorder,
  startHarness,
  twoTurnAgentStep,
  waitForEnd,
} from './harness.js';

const { dirs, harnesses, storePath: inFolder } = fileStoreFixtures('hibernate-');
const storePath = () => inFolder();

/** One park that times out after a second, caught into a Pass state, or answered. */
const shortPark: AslMachine = {
  StartAt: 'Wait For Answer',
  States: {
    'Wait For Answer': {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
      Parameters: {
        FunctionName: 'arn:aws:lambda:us-east-1:000000000000:function:ParkFn',
        Payload: { 'token.$': '$$.Task.Token' },
      },
      TimeoutSeconds: 1,
      Catch: [{ ErrorEquals: ['States.Timeout'], ResultPath: '$.error', Next: 'Gave Up' }],
      End: true,
    },
    'Gave Up': { Type: 'Pass', End: true },
  },
} as unknown as AslMachine;

const boot = async (options: { hibernateParked?: boolean; path?: string } = {}) => {
  const path = options.path ?? storePath();
  const parks = new ParkRecorder();
  const h = await startHarness({
    store: new FileCheckpointStore(path),
    ...(options.hibernateParked === undefined ? {} : { hibernateParked: options.hibernateParked }),
  });
  harnesses.push(h);
  const turn = h.engine.createStateMachine({
    name: 'turn',
    definition: loadFixture('turn-loop.asl.json'),
    taskHandlers: { AgentStep: twoTurnAgentStep, ParkForInput: parks.handler },
  });
  const short = h.engine.createStateMachine({
    name: 'short',
    definition: shortPark,
    taskHandlers: { 'Wait For Answer': parks.handler },
  });
  return { h, parks, path, turnArn: turn.stateMachineArn, shortArn: short.stateMachineArn };
};

const outOfMemory = async (h: Harness, count: number) => {
  const deadline = Date.now() + 10_000;
  while (h.engine.parkedOutOfMemory !== count) {
    if (Date.now() > deadline) {
      throw new Error(`${h.engine.parkedOutOfMemory} parked out of memory, not ${count}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

const historyOf = async (h: Harness, executionArn: string): Promise<HistoryEvent[]> =>
  (await h.client.send(new GetExecutionHistoryCommand({ executionArn }))).events ?? [];

/** What a history says, without its times and its (random) token: types, ids, links, details. */
const shapeOf = (events: readonly HistoryEvent[], token: string) =>
  JSON.parse(
    JSON.stringify(events.map(({ timestamp: _timestamp, ...event }) => event)).replaceAll(
      token,
      '<token>'
    )
  );

const conversation = async (options: { hibernateParked?: boolean }) => {
  const { h, parks, turnArn } = await boot(options);
  const { executionArn } = await h.client.send(
    new StartExecutionCommand({
      stateMachineArn: turnArn,
      name: 'task-1',
      input: JSON.stringify({ taskId: 't-1', turn: 0, lastInput: null }),
    })
  );
  const { token } = await parks.next();
  return { h, parks, executionArn: executionArn!, token };
};

describe('parked executions out of memory', () => {
  it('leave memory once their park is stored, still answer for themselves, and come back when answered, as if they had stayed', async () => {
    const kept = await conversation({ hibernateParked: false });
    await kept.h.client.send(
      new SendTaskSuccessCommand({ taskToken: kept.token, output: '{"text":"hello"}' })
    );
    const keptEnd = await waitForEnd(kept.h.client, kept.executionArn);

    const { h, parks, executionArn, token } = await conversation({});
    await outOfMemory(h, 1);
    const parked = await h.client.send(new DescribeExecutionCommand({ executionArn }));
    expect(parked).toMatchObject({
      status: 'RUNNING',
      name: 'task-1',
      input: JSON.stringify({ taskId: 't-1', turn: 0, lastInput: null }),
    });
    const listed = await h.client.send(
      new ListExecutionsCommand({
        stateMachineArn: parked.stateMachineArn,
        statusFilter: 'RUNNING',
      })
    );
    expect(listed.executions?.map((execution) => execution.executionArn)).toEqual([executionArn]);
    const whileParked = await historyOf(h, executionArn);
    expect(whileParked.at(-1)?.type).toBe('TaskSubmitted');

    await h.client.send(
      new SendTaskSuccessCommand({ taskToken: token, output: '{"text":"hello"}' })
    );
    const end = await waitForEnd(h.client, executionArn);
    expect(end.status).toBe('SUCCEEDED');
    expect(end.output).toBe(keptEnd.output);
    expect(h.engine.parkedOutOfMemory).toBe(0);
    // The park handler ran once: coming back re-parks on the saved token without calling it.
    expect(parks.calls).toHaveLength(1);
    expect(shapeOf(await historyOf(h, executionArn), token)).toEqual(
      shapeOf(await historyOf(kept.h, kept.executionArn), kept.token)
    );
  });

  it('time out out of memory, through the state’s Catch', async () => {
    const { h, parks, shortArn } = await boot();
    const { executionArn } = await h.client.send(
      new StartExecutionCommand({ stateMachineArn: shortArn, input: '{}' })
    );
    await parks.next();
    await outOfMemory(h, 1);
    const end = await waitForEnd(h.client, executionArn, 15_000);
    expect(end.status).toBe('SUCCEEDED');
    expect(JSON.parse(end.output!)).toMatchObject({ error: { Error: 'States.Timeout' } });
    const types = (await historyOf(h, executionArn!)).map((event) => event.type);
    expect(types).toContain('TaskTimedOut');
  });

  it('fail out of memory when their token is failed', async () => {
    const { h, parks, executionArn, token } = await conversation({});
    await outOfMemory(h, 1);
    await h.client.send(
      new SendTaskFailureCommand({ taskToken: token, error: 'Refused', cause: 'no' })
    );
    const end = await waitForEnd(h.client, executionArn);
    expect(end).toMatchObject({ status: 'FAILED', error: 'Refused', cause: 'no' });
    expect(parks.calls).toHaveLength(1);
  });

  it('stop out of memory: aborted, the stop in their history, their checkpoint gone, their token refused', async () => {
    const { h, executionArn, token } = await conversation({});
    const path = join(dirs.at(-1)!, 'executions');
    await outOfMemory(h, 1);
    await h.client.send(
      new StopExecutionCommand({ executionArn, error: 'Stopped', cause: 'test' })
    );
    const end = await waitForEnd(h.client, executionArn);
    expect(end).toMatchObject({ status: 'ABORTED', error: 'Stopped', cause: 'test' });
    expect((await historyOf(h, executionArn)).at(-1)?.type).toBe('ExecutionAborted');
    await expect(
      h.client.send(new SendTaskSuccessCommand({ taskToken: token, output: '{}' }))
    ).rejects.toMatchObject({ name: expect.stringMatching(/TaskDoesNotExist|TaskTimedOut/) });
    await h.engine.close();
    expect(readdirSync(path)).toEqual([]);
  });

  it('stay out of memory after a restart until answered', async () => {
    const before = await conversation({});
    await outOfMemory(before.h, 1);
    const path = join(dirs.at(-1)!, 'executions');
    await before.h.close();
    harnesses.splice(harnesses.indexOf(before.h), 1);

    const after = await boot({ path });
    expect(await after.h.engine.rehydrate()).toMatchObject({ rehydrated: [before.executionArn] });
    expect(after.h.engine.parkedOutOfMemory).toBe(1);
    expect((await historyOf(after.h, before.executionArn)).at(-1)?.type).toBe('TaskSubmitted');
    await after.h.client.send(
      new SendTaskSuccessCommand({ taskToken: before.token, output: '{"text":"later"}' })
    );
    const end = await waitForEnd(after.h.client, before.executionArn);
    expect(end.status).toBe('SUCCEEDED');
    expect(JSON.parse(end.output!)).toMatchObject({ lastInput: 'later' });
    expect(after.parks.calls).toHaveLength(0);
  });
});
