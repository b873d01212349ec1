import { describe, expect, it } from 'vitest';
import { readExecution } from '../../../functions/core/audit/execution-history.js';

const ref = { taskId: 't-1', generation: 2, turn: 4 };
const lambda = 'arn:aws:lambda:eu-west-1:123456789012:function:TurnStep';

/**
 * A cloud-shaped history (the service's JSON: epoch seconds, callback tasks with TaskSubmitted):
 * a model call retried once after a Lambda error, a tool call, a park that times out.
 */
const CLOUD_EVENTS = [
  {
    id: 1,
    previousEventId: 0,
    timestamp: 1764000000.0,
    type: 'ExecutionStarted',
    executionStartedEventDetails: { input: JSON.stringify({ ref }) },
  },
  {
    id: 2,
    previousEventId: 1,
    timestamp: 1764000000.1,
    type: 'TaskStateEntered',
    stateEnteredEventDetails: { name: 'Take Turn' },
  },
  {
    id: 3,
    previousEventId: 2,
    timestamp: 1764000000.2,
    type: 'LambdaFunctionScheduled',
    lambdaFunctionScheduledEventDetails: {
      resource: lambda,
      input: JSON.stringify({ op: 'turn', ref }),
      timeoutInSeconds: 900,
    },
  },
  { id: 4, previousEventId: 3, timestamp: 1764000000.3, type: 'LambdaFunctionStarted' },
  {
    id: 5,
    previousEventId: 4,
    timestamp: 1764000001.3,
    type: 'LambdaFunctionFailed',
    lambdaFunctionFailedEventDetails: { error: 'ModelRetryableError', cause: 'throttled' },
  },
  {
    id: 6,
    previousEventId: 5,
    timestamp: 1764000003.3,
    type: 'LambdaFunctionScheduled',
    lambdaFunctionScheduledEventDetails: {
      resource: lambda,
      input: JSON.stringify({ op: 'turn', ref }),
    },
  },
  { id: 7, previousEventId: 6, timestamp: 1764000003.4, type: 'LambdaFunctionStarted' },
  {
    id: 8,
    previousEventId: 7,
    timestamp: 1764000004.15,
    type: 'LambdaFunctionSucceeded',
    lambdaFunctionSucceededEventDetails: { output: '{}' },
  },
  {
    id: 9,
    previousEventId: 8,
    timestamp: 1764000004.2,
    type: 'MapIterationStarted',
    mapIterationStartedEventDetails: { name: 'Execute Tool Calls', index: 0 },
  },
  {
    id: 10,
    previousEventId: 9,
    timestamp: 1764000004.25,
    type: 'LambdaFunctionScheduled',
    lambdaFunctionScheduledEventDetails: {
      resource: lambda,
      input: JSON.stringify({
        op: 'execute_tool',
        call: { ref: { ...ref, turn: 5 }, callId: 'c-1' },
      }),
    },
  },
  { id: 11, previousEventId: 10, timestamp: 1764000004.26, type: 'LambdaFunctionStarted' },
  {
    id: 12,
    previousEventId: 11,
    timestamp: 1764000004.5,
    type: 'LambdaFunctionSucceeded',
    lambdaFunctionSucceededEventDetails: { output: '{}' },
  },
  {
    id: 13,
    previousEventId: 12,
    timestamp: 1764000005.0,
    type: 'TaskScheduled',
    taskScheduledEventDetails: {
      resourceType: 'lambda',
      resource: 'invoke.waitForTaskToken',
      region: 'eu-west-1',
      parameters: JSON.stringify({
        FunctionName: lambda,
        Payload: {
          op: 'park',
          ref: { ...ref, turn: 5 },
          subState: 'awaiting-answer',
          token: 'AQB…',
        },
      }),
      heartbeatInSeconds: 86340,
    },
  },
  {
    id: 14,
    previousEventId: 13,
    timestamp: 1764000005.1,
    type: 'TaskStarted',
    taskStartedEventDetails: { resourceType: 'lambda', resource: 'invoke.waitForTaskToken' },
  },
  {
    id: 15,
    previousEventId: 14,
    timestamp: 1764000005.3,
    type: 'TaskSubmitted',
    taskSubmittedEventDetails: {
      resourceType: 'lambda',
      resource: 'invoke.waitForTaskToken',
      output: '{}',
    },
  },
  {
    id: 16,
    previousEventId: 15,
    timestamp: 1764086345.3,
    type: 'TaskTimedOut',
    taskTimedOutEventDetails: {
      resourceType: 'lambda',
      resource: 'invoke.waitForTaskToken',
      error: 'States.HeartbeatTimeout',
    },
  },
  {
    id: 17,
    previousEventId: 16,
    timestamp: 1764086346.0,
    type: 'ExecutionSucceeded',
    executionSucceededEventDetails: { output: '{}' },
  },
];

describe('reading an execution history as the harness steps', () => {
  it('finds each operation, its turn and call, its attempts, and how it ended', () => {
    const facts = readExecution(CLOUD_EVENTS);
    expect(facts.startedAt).toBe('2025-11-24T16:00:00.000Z');
    expect(
      facts.runs.map((run) => [
        run.op,
        run.ref?.turn,
        run.callId,
        run.attempt,
        run.outcome,
        run.error,
      ])
    ).toEqual([
      ['turn', 4, undefined, 1, 'failed', 'ModelRetryableError'],
      ['turn', 4, undefined, 2, 'succeeded', undefined],
      ['execute_tool', 5, 'c-1', 1, 'succeeded', undefined],
      ['park', 5, undefined, 1, 'timed_out', 'States.HeartbeatTimeout'],
    ]);
    expect(facts.runs[1]).toMatchObject({
      scheduledAt: '2025-11-24T16:00:03.300Z',
      endedAt: '2025-11-24T16:00:04.150Z',
    });
    expect(facts.runs[3]?.payload.subState).toBe('awaiting-answer');
    expect(facts.end).toMatchObject({ status: 'SUCCEEDED', at: '2025-11-25T15:59:06.000Z' });
  });

  it('reads SDK Dates, epoch seconds and ISO strings as the same instants, in any event order', () => {
    const asDates = CLOUD_EVENTS.map((event) => ({
      ...event,
      timestamp: new Date(event.timestamp * 1000),
    }));
    const asIso = asDates.map((event) => ({ ...event, timestamp: event.timestamp.toISOString() }));
    const expected = readExecution(CLOUD_EVENTS);
    expect(readExecution(asDates)).toEqual(expected);
    expect(readExecution([...asIso].reverse())).toEqual(expected);
  });

  it('leaves a step that has not ended as running', () => {
    const facts = readExecution(CLOUD_EVENTS.slice(0, 15));
    expect(facts.runs.at(-1)).toMatchObject({ op: 'park', outcome: 'running', endedAt: undefined });
    expect(facts.end).toBeUndefined();
  });
});
