import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalStepFunctions } from '../../../functions/local/stepfunctions/engine.js';
import { MAX_TIMER_SECONDS } from '../../../functions/local/stepfunctions/timers.js';
import type { TaskHandler } from '../../../functions/local/stepfunctions/types.js';
import { loadFixture } from './harness.js';

let engine: LocalStepFunctions;

beforeEach(() => {
  engine = new LocalStepFunctions();
});

afterEach(async () => {
  await engine.close();
});

const park = (extra: Record<string, unknown> = {}) => ({
  Type: 'Task',
  Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
  Parameters: { FunctionName: 'ParkFn', Payload: { 'token.$': '$$.Task.Token' } },
  ...extra,
});

describe('createStateMachine', () => {
  it('refuses a machine with a Task state that has no handler, naming every one', () => {
    const definition = loadFixture('turn-loop.asl.json');
    expect(() =>
      engine.createStateMachine({
        name: 'turn',
        definition,
        taskHandlers: { AgentStep: () => ({}) },
      })
    ).toThrow(/no task handler for Task state\(s\) ParkForInput/);
    expect(() =>
      engine.createStateMachine({
        name: 'tools',
        definition: loadFixture('tool-map.asl.json'),
        taskHandlers: {},
      })
    ).toThrow(/RunTool/);
  });

  it('finds Task states inside Parallel branches and Map iterators', () => {
    const definition = {
      StartAt: 'Both',
      States: {
        Both: {
          Type: 'Parallel',
          Branches: [
            {
              StartAt: 'Left',
              States: {
                Left: { Type: 'Task', Resource: 'arn:aws:states:::dynamodb:putItem', End: true },
              },
            },
            {
              StartAt: 'Each',
              States: {
                Each: {
                  Type: 'Map',
                  Iterator: {
                    StartAt: 'Inner',
                    States: {
                      Inner: {
                        Type: 'Task',
                        Resource: 'arn:aws:states:::sqs:sendMessage',
                        End: true,
                      },
                    },
                  },
                  End: true,
                },
              },
            },
          ],
          End: true,
        },
      },
    };
    expect(() => engine.createStateMachine({ name: 'p', definition, taskHandlers: {} })).toThrow(
      /Task state\(s\) Left, Inner/
    );
  });

  it('refuses JSONata and Assign, which the interpreter would ignore silently', () => {
    const definition = {
      QueryLanguage: 'JSONata',
      StartAt: 'P',
      States: { P: { Type: 'Pass', Assign: { x: 1 }, End: true } },
    };
    expect(() => engine.createStateMachine({ name: 'j', definition, taskHandlers: {} })).toThrow(
      /QueryLanguage JSONata \(machine\), Assign \(P\)/
    );
  });
});

describe('callback timeouts', () => {
  const run = async (state: Record<string, unknown>, handler: TaskHandler = () => ({})) => {
    const { stateMachineArn } = engine.createStateMachine({
      name: `m${Math.random().toString(36).slice(2, 8)}`,
      definition: {
        StartAt: 'Park',
        States: {
          Park: {
            ...park(state),
            Catch: [{ ErrorEquals: ['States.TaskFailed'], ResultPath: '$.caught', Next: 'Caught' }],
            End: true,
          },
          Caught: { Type: 'Pass', End: true },
        },
      },
      taskHandlers: { Park: handler },
    });
    const { executionArn } = engine.startExecution({ stateMachineArn, input: '{"limit":1}' });
    return engine.waitForExecution(executionArn);
  };

  it('States.Timeout escapes a States.TaskFailed catcher, as in AWS', async () => {
    const done = await run({ TimeoutSeconds: 1 });
    expect([done.status, done.error]).toEqual(['FAILED', 'States.Timeout']);
  });

  it('States.HeartbeatTimeout is caught by States.TaskFailed', async () => {
    const done = await run({ HeartbeatSecondsPath: '$.limit' });
    expect(done.status).toBe('SUCCEEDED');
    expect(JSON.parse(done.output!).caught).toEqual({
      Error: 'States.HeartbeatTimeout',
      Cause: 'Task heartbeat timed out',
    });
  });

  it('a park handler that throws fails the state with the Lambda error', async () => {
    const done = await run({ TimeoutSeconds: 60 }, () => {
      throw Object.assign(new Error('table busy'), { name: 'Park.Busy' });
    });
    expect(done.status).toBe('SUCCEEDED');
    const caught = JSON.parse(done.output!).caught;
    expect(caught.Error).toBe('Park.Busy');
    expect(JSON.parse(caught.Cause)).toMatchObject({
      errorType: 'Park.Busy',
      errorMessage: 'table busy',
    });
  });
});

describe('executions', () => {
  const simple = () =>
    engine.createStateMachine({
      name: 'simple',
      definition: {
        StartAt: 'Work',
        States: {
          Work: {
            Type: 'Task',
            Resource: 'arn:aws:states:::lambda:invoke',
            Parameters: { FunctionName: 'F', 'Payload.$': '$' },
            OutputPath: '$.Payload',
            End: true,
          },
        },
      },
      taskHandlers: { Work: async (input) => ({ echoed: input }) },
    }).stateMachineArn;

  it('treats a repeated start with the same name and input as the same execution', async () => {
    const stateMachineArn = simple();
    const first = engine.startExecution({ stateMachineArn, name: 'once', input: '{"a":1}' });
    expect(engine.startExecution({ stateMachineArn, name: 'once', input: '{"a":1}' })).toEqual(
      first
    );
    expect(() =>
      engine.startExecution({ stateMachineArn, name: 'once', input: '{"a":2}' })
    ).toThrow(expect.objectContaining({ name: 'ExecutionAlreadyExists' }));
    const done = await engine.waitForExecution(first.executionArn);
    expect(JSON.parse(done.output!)).toEqual({ echoed: { a: 1 } });
  });

  it('refuses input that is not JSON', () => {
    expect(() => engine.startExecution({ stateMachineArn: simple(), input: '{nope' })).toThrow(
      expect.objectContaining({ name: 'InvalidExecutionInput' })
    );
  });

  it('fails a state whose result is over 256 KiB with States.DataLimitExceeded', async () => {
    const { stateMachineArn } = engine.createStateMachine({
      name: 'big',
      definition: {
        StartAt: 'Big',
        States: {
          Big: {
            Type: 'Task',
            Resource: 'arn:aws:states:::lambda:invoke',
            Parameters: { FunctionName: 'F' },
            End: true,
          },
        },
      },
      taskHandlers: { Big: () => 'x'.repeat(300 * 1024) },
    });
    const done = await engine.waitForExecution(
      engine.startExecution({ stateMachineArn }).executionArn
    );
    expect([done.status, done.error]).toEqual(['FAILED', 'States.DataLimitExceeded']);
  });

  it('gives the interpreter no timer it cannot hold (inserted and clamped TimeoutSeconds)', async () => {
    const seen: unknown[] = [];
    const { stateMachineArn } = engine.createStateMachine({
      name: 'year',
      definition: {
        StartAt: 'Slow',
        TimeoutSeconds: 31_536_000,
        States: {
          Slow: {
            Type: 'Task',
            Resource: 'arn:aws:states:::lambda:invoke',
            Parameters: { FunctionName: 'F' },
            TimeoutSeconds: 31_536_000,
            Next: 'Park',
          },
          Park: { ...park({ TimeoutSeconds: 31_536_000 }), End: true },
        },
      },
      taskHandlers: {
        Slow: async () => {
          // The measured failure mode: a one-year TimeoutSeconds overflowed setTimeout and fired in 84 ms.
          await new Promise((resolve) => setTimeout(resolve, 150));
          return 'slow';
        },
        Park: (_input, ctx) => {
          seen.push(ctx.taskToken);
        },
      },
    });
    expect(MAX_TIMER_SECONDS).toBeLessThan(2 ** 31 / 1000);
    const { executionArn } = engine.startExecution({ stateMachineArn });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(engine.describeExecution({ executionArn }).status).toBe('RUNNING');
    engine.sendTaskSuccess({ taskToken: seen[0] as string, output: '"ok"' });
    const done = await engine.waitForExecution(executionArn);
    expect([done.status, done.output]).toEqual(['SUCCEEDED', '"ok"']);
  });
});

describe('callback states inside a Map', () => {
  it('mints one token per iteration and resumes them out of order', async () => {
    const parked: Array<{ token: string; item: string }> = [];
    const { stateMachineArn } = engine.createStateMachine({
      name: 'fan-out',
      definition: {
        StartAt: 'Ask',
        States: {
          Ask: {
            Type: 'Map',
            ItemsPath: '$.people',
            ItemProcessor: {
              ProcessorConfig: { Mode: 'INLINE' },
              StartAt: 'AskOne',
              States: {
                AskOne: {
                  Type: 'Task',
                  Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
                  Parameters: {
                    FunctionName: 'AskFn',
                    Payload: { 'who.$': '$', 'token.$': '$$.Task.Token' },
                  },
                  End: true,
                },
              },
            },
            End: true,
          },
        },
      },
      taskHandlers: {
        AskOne: (input, ctx) => {
          const { who, token } = input as { who: string; token: string };
          expect(token).toBe(ctx.taskToken);
          parked.push({ token, item: who });
        },
      },
    });
    const { executionArn } = engine.startExecution({
      stateMachineArn,
      input: JSON.stringify({ people: ['ann', 'bob', 'cy'] }),
    });
    while (parked.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(new Set(parked.map((p) => p.token)).size).toBe(3);
    for (const { token, item } of [...parked].reverse()) {
      engine.sendTaskSuccess({ taskToken: token, output: JSON.stringify({ answer: `${item}!` }) });
    }
    const done = await engine.waitForExecution(executionArn);
    expect(JSON.parse(done.output!)).toEqual([
      { answer: 'ann!' },
      { answer: 'bob!' },
      { answer: 'cy!' },
    ]);
    const { events = [] } = engine.getExecutionHistory({ executionArn });
    expect(events.filter((e) => e.type === 'TaskSubmitted')).toHaveLength(3);
    expect(events.filter((e) => e.type === 'MapIterationSucceeded')).toHaveLength(3);
  });
});

describe('stopping', () => {
  it('does not let Retry or Catch on States.ALL run a stopped state again', async () => {
    const tokens: string[] = [];
    const { stateMachineArn } = engine.createStateMachine({
      name: 'stubborn',
      definition: {
        StartAt: 'Park',
        States: {
          Park: {
            ...park(),
            Retry: [{ ErrorEquals: ['States.ALL'], MaxAttempts: 3, IntervalSeconds: 1 }],
            Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Again' }],
            End: true,
          },
          Again: { ...park(), End: true },
        },
      },
      taskHandlers: {
        Park: (_input, ctx) => {
          tokens.push(ctx.taskToken!);
        },
        Again: (_input, ctx) => {
          tokens.push(ctx.taskToken!);
        },
      },
      retryIntervalOverrides: { Park: 0 },
    });
    const { executionArn } = engine.startExecution({ stateMachineArn });
    while (tokens.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    engine.stopExecution({ executionArn, cause: 'canceled' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(tokens).toHaveLength(1);
    expect(engine.describeExecution({ executionArn })).toMatchObject({
      status: 'ABORTED',
      cause: 'canceled',
    });
    expect(() => engine.sendTaskSuccess({ taskToken: tokens[0]!, output: '{}' })).toThrow(
      expect.objectContaining({ name: 'TaskTimedOut' })
    );
    const { events = [] } = engine.getExecutionHistory({ executionArn, reverseOrder: true });
    expect(events[0]?.type).toBe('ExecutionAborted');
  });
});
