import {
  DescribeExecutionCommand,
  ExecutionDoesNotExist,
  GetExecutionHistoryCommand,
  type HistoryEvent,
  InvalidToken,
  ListExecutionsCommand,
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  StartExecutionCommand,
  StateMachineDoesNotExist,
  StopExecutionCommand,
  TaskDoesNotExist,
  TaskTimedOut,
} from '@aws-sdk/client-sfn';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AslMachine } from '../../../functions/local/stepfunctions/asl-walk.js';
import { rawRequest } from '../raw-http.js';
import {
  type Harness,
  type LoopTurn,
  loadFixture,
  ParkRecorder,
  startHarness,
  turnLoopAgentStep,
  waitForEnd,
} from './harness.js';

type Turn = LoopTurn;

/** The agent step: two parks, then done at turn 3. */
const agentStep = (seen: Turn[]) => turnLoopAgentStep(3, seen);

const withPark = (base: AslMachine, park: Record<string, unknown>): AslMachine => {
  const copy = structuredClone(base);
  copy.States.ParkForInput = { ...copy.States.ParkForInput, ...park };
  return copy;
};

const types = (events: readonly HistoryEvent[]) => events.map((e) => e.type);

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
});

afterEach(async () => {
  await h.close();
});

describe('a turn loop parked on lambda:invoke.waitForTaskToken', () => {
  const setUp = (definition = loadFixture('turn-loop.asl.json')) => {
    const seen: Turn[] = [];
    const parks = new ParkRecorder();
    const { stateMachineArn } = h.engine.createStateMachine({
      name: 'turn',
      definition,
      taskHandlers: { AgentStep: agentStep(seen), ParkForInput: parks.handler },
    });
    return { seen, parks, stateMachineArn };
  };

  const start = (stateMachineArn: string, name = 'task-1') =>
    h.client.send(
      new StartExecutionCommand({
        stateMachineArn,
        name,
        input: JSON.stringify({ taskId: 't-1', turn: 0, lastInput: null }),
      })
    );

  it('parks, resumes on SendTaskSuccess, and succeeds with the output', async () => {
    const { seen, parks, stateMachineArn } = setUp();
    const { executionArn, startDate } = await start(stateMachineArn);
    expect(startDate).toBeInstanceOf(Date);
    const started = await h.client.send(new GetExecutionHistoryCommand({ executionArn }));
    expect(started.events?.[0]).toMatchObject({
      id: 1,
      previousEventId: 0,
      type: 'ExecutionStarted',
    });

    const first = await parks.next();
    expect(first.executionArn).toBe(executionArn);
    expect(first.payload).toEqual({ taskId: 't-1', turn: 1, taskToken: first.token });
    const running = await h.client.send(new DescribeExecutionCommand({ executionArn }));
    expect(running.status).toBe('RUNNING');
    await h.client.send(
      new SendTaskSuccessCommand({ taskToken: first.token, output: '{"text":"reply 1"}' })
    );

    const second = await parks.next();
    expect(second.token).not.toBe(first.token);
    await h.client.send(new SendTaskHeartbeatCommand({ taskToken: second.token }));
    await h.client.send(
      new SendTaskSuccessCommand({ taskToken: second.token, output: '{"text":"reply 2"}' })
    );

    const done = await waitForEnd(h.client, executionArn);
    expect(done.status).toBe('SUCCEEDED');
    expect(JSON.parse(done.output!)).toEqual({
      taskId: 't-1',
      turn: 3,
      next: 'done',
      lastInput: 'reply 2',
    });
    expect(done.stopDate).toBeInstanceOf(Date);
    // $$.Execution.Id comes from the context object we supply.
    expect(seen.map((t) => [t.turn, t.lastInput, t.executionId])).toEqual([
      [0, null, executionArn],
      [1, 'reply 1', executionArn],
      [2, 'reply 2', executionArn],
    ]);
  });

  it('fails the execution on SendTaskFailure with its error and cause', async () => {
    const { parks, stateMachineArn } = setUp();
    const { executionArn } = await start(stateMachineArn);
    const { token } = await parks.next();
    await h.client.send(
      new SendTaskFailureCommand({ taskToken: token, error: 'User.Refused', cause: 'no' })
    );
    const done = await waitForEnd(h.client, executionArn);
    expect([done.status, done.error, done.cause]).toEqual(['FAILED', 'User.Refused', 'no']);
    const { events = [] } = await h.client.send(
      new GetExecutionHistoryCommand({ executionArn, reverseOrder: true })
    );
    expect(events[0]?.executionFailedEventDetails).toEqual({ error: 'User.Refused', cause: 'no' });
    expect(events[1]?.taskFailedEventDetails).toMatchObject({
      resourceType: 'lambda',
      resource: 'invoke.waitForTaskToken',
      error: 'User.Refused',
    });
  });

  it('times out on a missed heartbeat; heartbeats keep it parked', async () => {
    const { parks, stateMachineArn } = setUp(
      withPark(loadFixture('turn-loop.asl.json'), { HeartbeatSeconds: 1, TimeoutSeconds: 30 })
    );
    const { executionArn } = await start(stateMachineArn);
    const { token } = await parks.next();
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 600));
      await h.client.send(new SendTaskHeartbeatCommand({ taskToken: token }));
    }
    expect((await h.client.send(new DescribeExecutionCommand({ executionArn }))).status).toBe(
      'RUNNING'
    );
    const done = await waitForEnd(h.client, executionArn);
    expect([done.status, done.error]).toEqual(['FAILED', 'States.HeartbeatTimeout']);
    const { events = [] } = await h.client.send(new GetExecutionHistoryCommand({ executionArn }));
    expect(events.find((e) => e.type === 'TaskTimedOut')?.taskTimedOutEventDetails).toMatchObject({
      error: 'States.HeartbeatTimeout',
    });
    await expect(
      h.client.send(new SendTaskSuccessCommand({ taskToken: token, output: '{}' }))
    ).rejects.toBeInstanceOf(TaskTimedOut);
  });

  // That it leaves no handle open is measured in a child process: see no-open-handles.test.ts.
  it('StopExecution aborts a parked execution', async () => {
    const { parks, stateMachineArn } = setUp();
    const { executionArn } = await start(stateMachineArn);
    const { token } = await parks.next();
    const { stopDate } = await h.client.send(
      new StopExecutionCommand({ executionArn, error: 'Task.Canceled', cause: 'user canceled' })
    );
    expect(stopDate).toBeInstanceOf(Date);
    const stopped = await h.client.send(new DescribeExecutionCommand({ executionArn }));
    expect([stopped.status, stopped.error, stopped.cause]).toEqual([
      'ABORTED',
      'Task.Canceled',
      'user canceled',
    ]);
    await expect(
      h.client.send(new SendTaskSuccessCommand({ taskToken: token, output: '{}' }))
    ).rejects.toBeInstanceOf(TaskTimedOut);
    const { events = [] } = await h.client.send(new GetExecutionHistoryCommand({ executionArn }));
    expect(events.at(-1)).toMatchObject({
      type: 'ExecutionAborted',
      executionAbortedEventDetails: { error: 'Task.Canceled', cause: 'user canceled' },
    });
  });

  it('records a GetExecutionHistory with ids, types, state names, inputs and outputs', async () => {
    const { parks, stateMachineArn } = setUp();
    const { executionArn } = await start(stateMachineArn);
    for (const reply of ['a', 'b']) {
      const { token } = await parks.next();
      await h.client.send(
        new SendTaskSuccessCommand({ taskToken: token, output: JSON.stringify({ text: reply }) })
      );
    }
    await waitForEnd(h.client, executionArn);
    const { events = [] } = await h.client.send(
      new GetExecutionHistoryCommand({ executionArn, maxResults: 1000 })
    );
    const turn = [
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSucceeded',
      'TaskStateExited',
      'ChoiceStateEntered',
      'ChoiceStateExited',
    ];
    const park = [
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSubmitted',
      'TaskSucceeded',
      'TaskStateExited',
      'PassStateEntered',
      'PassStateExited',
    ];
    expect(types(events)).toEqual([
      'ExecutionStarted',
      ...turn,
      ...park,
      ...turn,
      ...park,
      ...turn,
      'SucceedStateEntered',
      'SucceedStateExited',
      'ExecutionSucceeded',
    ]);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(events.map((e) => e.previousEventId)).toEqual(events.map((_, i) => i));
    expect(events.every((e) => e.timestamp instanceof Date)).toBe(true);
    expect(events[0]?.executionStartedEventDetails?.input).toBe(
      '{"taskId":"t-1","turn":0,"lastInput":null}'
    );

    const scheduled = events.filter((e) => e.type === 'TaskScheduled');
    expect(scheduled[1]?.taskScheduledEventDetails).toMatchObject({
      resourceType: 'lambda',
      resource: 'invoke.waitForTaskToken',
      region: 'us-east-1',
      timeoutInSeconds: 3600,
      heartbeatInSeconds: 600,
    });
    expect(JSON.parse(scheduled[1]!.taskScheduledEventDetails!.parameters!)).toMatchObject({
      FunctionName: 'arn:aws:lambda:us-east-1:000000000000:function:ParkFn',
      Payload: { taskId: 't-1', turn: 1 },
    });
    const entered = events.filter((e) => e.stateEnteredEventDetails?.name === 'ParkForInput');
    expect(JSON.parse(entered[0]!.stateEnteredEventDetails!.input!)).toEqual({
      taskId: 't-1',
      turn: 1,
      next: 'park',
      lastInput: null,
    });
    const succeeded = events.filter((e) => e.type === 'TaskSucceeded');
    expect(JSON.parse(succeeded[0]!.taskSucceededEventDetails!.output!)).toMatchObject({
      Payload: { turn: 1, next: 'park' },
      StatusCode: 200,
      ExecutedVersion: '$LATEST',
    });
    expect(JSON.parse(succeeded[1]!.taskSucceededEventDetails!.output!)).toEqual({ text: 'a' });
    const submitted = events.find((e) => e.type === 'TaskSubmitted');
    expect(JSON.parse(submitted!.taskSubmittedEventDetails!.output!)).toMatchObject({
      Payload: { parked: true },
    });
    const exited = events
      .filter((e) => e.type === 'ChoiceStateExited')
      .map((e) => e.stateExitedEventDetails?.name);
    expect(exited).toEqual(['Route', 'Route', 'Route']);

    // Paging and reverse order, as the service does them.
    const page1 = await h.client.send(
      new GetExecutionHistoryCommand({ executionArn, maxResults: 10 })
    );
    expect(page1.events?.map((e) => e.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const page2 = await h.client.send(
      new GetExecutionHistoryCommand({ executionArn, maxResults: 10, nextToken: page1.nextToken })
    );
    expect(page2.events?.[0]?.id).toBe(11);
    const last = await h.client.send(
      new GetExecutionHistoryCommand({ executionArn, maxResults: 1, reverseOrder: true })
    );
    expect(last.events?.[0]?.type).toBe('ExecutionSucceeded');
  });

  it('answers typed errors for unknown tokens, executions and machines', async () => {
    const { stateMachineArn } = setUp();
    await expect(
      h.client.send(new SendTaskSuccessCommand({ taskToken: 'no-such-token', output: '{}' }))
    ).rejects.toBeInstanceOf(TaskDoesNotExist);
    await expect(
      h.client.send(new SendTaskHeartbeatCommand({ taskToken: 'x'.repeat(3000) }))
    ).rejects.toBeInstanceOf(InvalidToken);
    const missing = await h.client
      .send(
        new DescribeExecutionCommand({
          executionArn: `${stateMachineArn.replace('stateMachine', 'execution')}:nope`,
        })
      )
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ExecutionDoesNotExist);
    expect(missing).toMatchObject({
      name: 'ExecutionDoesNotExist',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
    });
    await expect(
      h.client.send(new StartExecutionCommand({ stateMachineArn: `${stateMachineArn}-missing` }))
    ).rejects.toBeInstanceOf(StateMachineDoesNotExist);
  });

  it('lists executions, newest first, filtered by status', async () => {
    const { parks, stateMachineArn } = setUp();
    const a = await start(stateMachineArn, 'a');
    await parks.next();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const b = await start(stateMachineArn, 'b');
    await parks.next();
    await h.client.send(new StopExecutionCommand({ executionArn: a.executionArn }));
    const all = await h.client.send(new ListExecutionsCommand({ stateMachineArn }));
    expect(all.executions?.map((e) => [e.name, e.status])).toEqual([
      ['b', 'RUNNING'],
      ['a', 'ABORTED'],
    ]);
    const running = await h.client.send(
      new ListExecutionsCommand({ stateMachineArn, statusFilter: 'RUNNING' })
    );
    expect(running.executions?.map((e) => e.executionArn)).toEqual([b.executionArn]);
  });

  it('sends timestamps as epoch seconds on the wire', async () => {
    const { parks, stateMachineArn } = setUp();
    const { executionArn } = await start(stateMachineArn);
    await parks.next();
    const response = await fetch(h.facade.endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'AWSStepFunctions.DescribeExecution',
      },
      body: JSON.stringify({ executionArn }),
    });
    expect(response.headers.get('content-type')).toBe('application/x-amz-json-1.0');
    const body = (await response.json()) as { startDate: unknown };
    expect(typeof body.startDate).toBe('number');
    expect(Math.abs((body.startDate as number) - Date.now() / 1000)).toBeLessThan(60);
    const unknown = await fetch(h.facade.endpoint, {
      method: 'POST',
      headers: { 'x-amz-target': 'AWSStepFunctions.SendTaskSuccess' },
      body: JSON.stringify({ taskToken: 'nope', output: '{}' }),
    });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toEqual({
      __type: 'com.amazonaws.swf.service.v2.model#TaskDoesNotExist',
      message: 'Task does not exist anymore',
    });
  });
});

describe('a Map over tool calls', () => {
  it('runs each item as a Task and records each iteration', async () => {
    const { stateMachineArn } = h.engine.createStateMachine({
      name: 'tools',
      definition: loadFixture('tool-map.asl.json'),
      taskHandlers: {
        RunTool: async (input) => {
          const { call, index } = input as { call: string; index: number };
          await new Promise((resolve) => setTimeout(resolve, 5 * (3 - index)));
          return { call, result: call.toUpperCase() };
        },
      },
    });
    const { executionArn } = await h.client.send(
      new StartExecutionCommand({
        stateMachineArn,
        input: JSON.stringify({ taskId: 't-2', calls: ['a', 'b', 'c'] }),
      })
    );
    const done = await waitForEnd(h.client, executionArn);
    expect(done.status).toBe('SUCCEEDED');
    expect(JSON.parse(done.output!).results).toEqual([
      { call: 'a', result: 'A' },
      { call: 'b', result: 'B' },
      { call: 'c', result: 'C' },
    ]);

    const { events = [] } = await h.client.send(new GetExecutionHistoryCommand({ executionArn }));
    expect(types(events).slice(0, 3)).toEqual([
      'ExecutionStarted',
      'MapStateEntered',
      'MapStateStarted',
    ]);
    expect(events[2]?.mapStateStartedEventDetails).toEqual({ length: 3 });
    expect(types(events).slice(-5)).toEqual([
      'MapStateSucceeded',
      'MapStateExited',
      'SucceedStateEntered',
      'SucceedStateExited',
      'ExecutionSucceeded',
    ]);
    // Every iteration has ended before the Map does.
    const mapSucceeded = events.find((e) => e.type === 'MapStateSucceeded')!.id!;
    expect(
      events.filter((e) => e.type === 'MapIterationSucceeded').every((e) => e.id! < mapSucceeded)
    ).toBe(true);
    const iterations = events.filter((e) => e.type === 'MapIterationStarted');
    expect(iterations.map((e) => e.mapIterationStartedEventDetails)).toEqual(
      expect.arrayContaining([
        { name: 'ExecuteTools', index: 0 },
        { name: 'ExecuteTools', index: 1 },
        { name: 'ExecuteTools', index: 2 },
      ])
    );
    expect(events.filter((e) => e.type === 'MapIterationSucceeded')).toHaveLength(3);
    // Each iteration's events chain among themselves, starting from the Map's MapStateStarted.
    for (const index of [0, 1, 2]) {
      const start = events.find((e) => e.mapIterationStartedEventDetails?.index === index)!;
      expect(start.previousEventId).toBe(3);
      const entered = events.find(
        (e) => e.type === 'TaskStateEntered' && e.previousEventId === start.id
      );
      expect(JSON.parse(entered!.stateEnteredEventDetails!.input!)).toMatchObject({ index });
      const scheduled = events.find((e) => e.previousEventId === entered!.id)!;
      expect(scheduled.type).toBe('LambdaFunctionScheduled');
      expect(JSON.parse(scheduled.lambdaFunctionScheduledEventDetails!.input!)).toEqual({
        taskId: 't-2',
        call: ['a', 'b', 'c'][index],
        index,
      });
    }
    expect(events.filter((e) => e.type === 'LambdaFunctionSucceeded')).toHaveLength(3);
    expect(events.at(-1)?.type).toBe('ExecutionSucceeded');
  });
});

describe('Retry on a custom error name, then Catch', () => {
  const setUp = (errors: string[]) => {
    let calls = 0;
    const { stateMachineArn } = h.engine.createStateMachine({
      name: 'model',
      definition: loadFixture('retry-catch.asl.json'),
      taskHandlers: {
        CallModel: async () => {
          const name = errors[calls++];
          if (!name) return { text: 'ok' };
          throw Object.assign(new Error(`attempt ${calls} failed`), { name });
        },
      },
      retryIntervalOverrides: { CallModel: 0 },
    });
    return { stateMachineArn, calls: () => calls };
  };

  it('retries the transient error, then catches the refusal with the Lambda error document', async () => {
    const { stateMachineArn, calls } = setUp([
      'Model.Transient',
      'Model.Transient',
      'Model.Refused',
    ]);
    const { executionArn } = await h.client.send(
      new StartExecutionCommand({ stateMachineArn, input: '{"q":1}' })
    );
    const done = await waitForEnd(h.client, executionArn);
    expect(done.status).toBe('SUCCEEDED');
    const output = JSON.parse(done.output!);
    expect(output).toMatchObject({ recovered: true, error: 'Model.Refused' });
    expect(output.cause).toMatchObject({
      errorType: 'Model.Refused',
      errorMessage: 'attempt 3 failed',
    });
    expect(calls()).toBe(3);
    const { events = [] } = await h.client.send(new GetExecutionHistoryCommand({ executionArn }));
    expect(types(events)).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskFailed',
      'TaskScheduled',
      'TaskStarted',
      'TaskFailed',
      'TaskScheduled',
      'TaskStarted',
      'TaskFailed',
      'TaskStateExited',
      'PassStateEntered',
      'PassStateExited',
      'ExecutionSucceeded',
    ]);
    expect(
      events.filter((e) => e.type === 'TaskFailed').map((e) => e.taskFailedEventDetails?.error)
    ).toEqual(['Model.Transient', 'Model.Transient', 'Model.Refused']);
  });

  it('fails the execution once the retries are spent', async () => {
    const { stateMachineArn, calls } = setUp([
      'Model.Transient',
      'Model.Transient',
      'Model.Transient',
    ]);
    const { executionArn } = await h.client.send(new StartExecutionCommand({ stateMachineArn }));
    const done = await waitForEnd(h.client, executionArn);
    expect([done.status, done.error]).toEqual(['FAILED', 'Model.Transient']);
    expect(JSON.parse(done.cause!)).toMatchObject({
      errorType: 'Model.Transient',
      errorMessage: 'attempt 3 failed',
    });
    expect(calls()).toBe(3);
  });
});

describe("the facade is the local stack's own", () => {
  const parked = async () => {
    const parks = new ParkRecorder();
    const { stateMachineArn } = h.engine.createStateMachine({
      name: 'guarded',
      definition: loadFixture('turn-loop.asl.json'),
      taskHandlers: { AgentStep: agentStep([]), ParkForInput: parks.handler },
    });
    const { executionArn } = await h.client.send(
      new StartExecutionCommand({
        stateMachineArn,
        input: JSON.stringify({ taskId: 't-g', turn: 0, lastInput: null }),
      })
    );
    await parks.next();
    return executionArn as string;
  };

  const stop = (path: string, host: string, executionArn: string) =>
    rawRequest(h.facade.port, {
      path,
      method: 'POST',
      headers: {
        Host: host,
        'Content-Type': 'application/x-amz-json-1.0',
        'X-Amz-Target': 'AWSStepFunctions.StopExecution',
      },
      body: JSON.stringify({ executionArn }),
    });

  const status = async (executionArn: string) =>
    (await h.client.send(new DescribeExecutionCommand({ executionArn }))).status;

  it('listens on loopback, at a path holding a secret of this run', () => {
    const endpoint = new URL(h.facade.endpoint);
    expect(endpoint.host).toBe(`127.0.0.1:${h.facade.port}`);
    expect(endpoint.pathname).toMatch(/^\/[A-Za-z0-9_-]{32}$/);
  });

  it('refuses a foreign Host with 421 (a DNS-rebinding page), even with the secret: nothing is stopped', async () => {
    const executionArn = await parked();
    const secretPath = new URL(h.facade.endpoint).pathname;
    for (const host of [
      `evil.example:${h.facade.port}`,
      `127.0.0.1:${h.facade.port + 1}`,
      'localhost',
    ]) {
      const refused = await stop(secretPath, host, executionArn);
      expect(refused.status, host).toBe(421);
    }
    expect(await status(executionArn)).toBe('RUNNING');
  });

  it('refuses a request without the secret with 403: nothing is stopped', async () => {
    const executionArn = await parked();
    for (const path of ['/', '/guess/', `${new URL(h.facade.endpoint).pathname}x`]) {
      const refused = await stop(path, `127.0.0.1:${h.facade.port}`, executionArn);
      expect(refused.status, path).toBe(403);
      expect(JSON.parse(refused.body)).toMatchObject({
        __type: 'com.amazon.coral.service#AccessDeniedException',
      });
    }
    expect(await status(executionArn)).toBe('RUNNING');
    // What was refused above is served with the endpoint's own Host and path.
    const served = await stop(
      new URL(h.facade.endpoint).pathname,
      `localhost:${h.facade.port}`,
      executionArn
    );
    expect(served.status).toBe(200);
    expect(await status(executionArn)).toBe('ABORTED');
  });
});
