import aslValidator from 'asl-validator';
import { describe, expect, it } from 'vitest';
import {
  STATE_NAMES,
  TASK_FAILED_ERROR,
  UNKNOWN_ROUTE_ERROR,
} from '../../cdk/constructs/turn-state-machine.js';
import { RETRYABLE_ERROR_NAMES } from '../../functions/core/errors.js';
import { extractStateMachines } from '../../functions/local/stepfunctions/asl-extractor.js';
import { logicalIdAt, resourceAt, synthHarness, TEST_STAGE } from './support/synth.js';

interface AslState {
  Type: string;
  Resource?: string;
  Parameters?: Record<string, unknown>;
  Retry?: { ErrorEquals: string[]; [field: string]: unknown }[];
  Catch?: { ErrorEquals: string[]; Next: string; ResultPath?: string | null }[];
  Choices?: { Variable: string; StringEquals: string; Next: string }[];
  Default?: string;
  ItemProcessor?: { StartAt: string; States: Record<string, AslState> };
  [field: string]: unknown;
}
interface AslMachine {
  StartAt: string;
  States: Record<string, AslState>;
}

const { template } = synthHarness();
const machines = extractStateMachines(template.toJSON());
const turnStepId = logicalIdAt(template, 'TurnStepFunction');
const toolStepId = logicalIdAt(template, 'ToolStepFunction');
const turnMachine = machines.find((machine) => machine.name.endsWith('-turns'))!;
const definition = turnMachine.definition as AslMachine;
const states = definition.States;
const arnOf = (functionId: string) =>
  Object.entries(turnMachine.lambdaRefs).find(([, id]) => id === functionId)?.[0];
const TURN_STEP_ARN = arnOf(turnStepId);
const TOOL_STEP_ARN = arnOf(toolStepId);

/** Every state, including those inside Map item processors, with the machine it belongs to. */
const allStates = (machine: AslMachine, nested = false): [string, AslState, boolean][] =>
  Object.entries(machine.States).flatMap(([name, state]) => [
    [name, state, nested] as [string, AslState, boolean],
    ...(state.ItemProcessor ? allStates(state.ItemProcessor, true) : []),
  ]);
const tasks = allStates(definition).filter(([, state]) => state.Type === 'Task');

/** What "Route Turn" must do with each route.next the core can return (route.schema.ts). */
const EXPECTED_ROUTES = {
  turn: 'Take Turn',
  execute_tools: 'Execute Tool Calls',
  park: 'Park',
  renew: 'Renew Execution',
  end: 'Task Ended',
  superseded: 'Superseded',
};

describe('turn state machine definition', () => {
  it('is one of the two state machines (beside the follow machine), and calls the turn and tool step functions only', () => {
    const [own, others] = [
      machines.filter((machine) => machine.name.startsWith('TinyHarness-')),
      machines.filter((machine) => !machine.name.startsWith('TinyHarness-')),
    ];
    expect(own.map((machine) => machine.name).sort()).toEqual([
      `TinyHarness-${TEST_STAGE}-follow`,
      `TinyHarness-${TEST_STAGE}-turns`,
    ]);
    // The only other is the migration provider's waiter, which runs at deployment alone.
    expect(others.map((machine) => machine.constructPath)).toEqual([
      expect.stringMatching(/\/RecordMigration\/Provider\/waiter-state-machine$/),
    ]);
    expect(Object.values(turnMachine.lambdaRefs).sort()).toEqual([toolStepId, turnStepId].sort());
    expect(TURN_STEP_ARN).toBeDefined();
    expect(TOOL_STEP_ARN).toBeDefined();
  });

  it('has exactly the named states and starts with a turn', () => {
    expect(
      allStates(definition)
        .map(([name]) => name)
        .sort()
    ).toEqual(Object.values(STATE_NAMES).sort());
    expect(definition.StartAt).toBe('Take Turn');
  });

  it('routes exactly the six route names, and anything else to "Unknown Route"', () => {
    const route = states['Route Turn']!;
    expect(route.Type).toBe('Choice');
    expect(route.Choices).toHaveLength(7);
    // First, a park with a deadline of its own (a call awaiting approval) to its own state.
    const [deadline, ...byName] = route.Choices!;
    expect(deadline).toEqual({
      And: [
        { Variable: '$.route.next', StringEquals: 'park' },
        { Variable: '$.route.timeoutSeconds', IsPresent: true },
      ],
      Next: 'Park Until Deadline',
    });
    expect(
      Object.fromEntries(
        byName.map((choice) => {
          expect(choice.Variable).toBe('$.route.next');
          return [choice.StringEquals, choice.Next];
        })
      )
    ).toEqual(EXPECTED_ROUTES);
    expect(route.Default).toBe('Unknown Route');
    // An unknown route fails the task through "Fail Task", like any step failure.
    expect(states['Unknown Route']).toEqual({
      Type: 'Pass',
      Result: UNKNOWN_ROUTE_ERROR,
      ResultPath: '$.error',
      Next: 'Fail Task',
    });
    for (const end of ['Task Ended', 'Superseded', 'Renewed']) {
      expect(states[end]).toMatchObject({ Type: 'Succeed' });
    }
  });

  it('takes a whole turn in one Task state (one operation, references only), then routes', () => {
    expect(states['Take Turn']).toMatchObject({
      Type: 'Task',
      Resource: TURN_STEP_ARN,
      Parameters: { op: 'turn', 'ref.$': '$.ref' },
      ResultPath: '$',
      Next: 'Route Turn',
    });
    expect(states['Renew Execution']).toMatchObject({
      Resource: TURN_STEP_ARN,
      Parameters: { op: 'renew', 'ref.$': '$.ref' },
      Next: 'Renewed',
    });
  });

  it('executes tool calls one at a time in a Map, then takes the next turn', () => {
    const map = states['Execute Tool Calls']!;
    expect(map).toMatchObject({
      Type: 'Map',
      ItemsPath: '$.route.calls',
      MaxConcurrency: 1,
      ResultPath: null,
      Next: 'Take Turn',
    });
    expect(map.ItemProcessor!.StartAt).toBe('Execute Tool Call');
    expect(map.ItemProcessor!.States['Execute Tool Call']).toMatchObject({
      Type: 'Task',
      Resource: TOOL_STEP_ARN,
      Parameters: { op: 'execute_tool', 'call.$': '$' },
      End: true,
    });
  });

  it('parks until a deadline the route gives (an approval), no heartbeat, and renews at the deadline', () => {
    const park = states['Park Until Deadline']!;
    expect(park).toMatchObject({
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
      Parameters: { Payload: { op: 'park', 'subState.$': '$.route.subState' } },
      TimeoutSecondsPath: '$.route.timeoutSeconds',
      Next: 'Take Turn',
    });
    expect(park).not.toHaveProperty('HeartbeatSeconds');
    expect(park.Catch![0]).toMatchObject({
      ErrorEquals: ['States.Timeout', 'States.HeartbeatTimeout'],
      Next: 'Renew Execution',
    });
  });

  it('parks on a task token with a timeout, and renews when the wait expires', () => {
    const park = states.Park!;
    expect(park).toMatchObject({
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
      Parameters: {
        FunctionName: TURN_STEP_ARN,
        Payload: {
          op: 'park',
          'ref.$': '$.ref',
          'subState.$': '$.route.subState',
          // The route, with what the turn decided the park on (`decidedOn`), when it did.
          'route.$': '$.route',
          'token.$': '$$.Task.Token',
        },
      },
      ResultPath: null,
      TimeoutSeconds: 7 * 24 * 3600,
      Next: 'Take Turn',
    });
    // ASL: HeartbeatSeconds MUST be smaller than TimeoutSeconds.
    expect(park.HeartbeatSeconds).toBeGreaterThan(0);
    expect(park.HeartbeatSeconds).toBeLessThan(park.TimeoutSeconds as number);
    expect(park.Catch![0]).toEqual({
      ErrorEquals: ['States.Timeout', 'States.HeartbeatTimeout'],
      ResultPath: '$.error',
      Next: 'Renew Execution',
    });
  });

  /** The Retry list every Task state must carry, in order, written out from the requirement. */
  const EXPECTED_RETRY = [
    {
      ErrorEquals: [...RETRYABLE_ERROR_NAMES],
      IntervalSeconds: 1,
      BackoffRate: 2,
      MaxAttempts: 5,
      JitterStrategy: 'FULL',
      MaxDelaySeconds: 60,
    },
    {
      ErrorEquals: ['TransientServiceError'],
      IntervalSeconds: 2,
      BackoffRate: 2,
      MaxAttempts: 6,
      JitterStrategy: 'FULL',
      MaxDelaySeconds: 60,
    },
    {
      ErrorEquals: ['Lambda.TooManyRequestsException'],
      IntervalSeconds: 2,
      BackoffRate: 2,
      MaxAttempts: 10,
      JitterStrategy: 'FULL',
      MaxDelaySeconds: 60,
    },
    {
      ErrorEquals: [
        'Lambda.ClientExecutionTimeoutException',
        'Lambda.ServiceException',
        'Lambda.AWSLambdaException',
        'Lambda.SdkClientException',
      ],
      IntervalSeconds: 2,
      BackoffRate: 2,
      MaxAttempts: 6,
      JitterStrategy: 'FULL',
      MaxDelaySeconds: 60,
    },
  ];

  it('has six Task states (the Map iteration included)', () => {
    expect(tasks.map(([name]) => name).sort()).toEqual([
      'Execute Tool Call',
      'Fail Task',
      'Park',
      'Park Until Deadline',
      'Renew Execution',
      'Take Turn',
    ]);
  });

  it.each(tasks)(
    '"%s" retries throttles, transient service errors and the retryable core errors, with backoff',
    (_, state) => {
      expect(state.Retry).toEqual(EXPECTED_RETRY);
    }
  );

  it('retries "Fail Task" too: a throttle there must not leave the task WORKING', () => {
    expect(states['Fail Task']!.Retry).toEqual(EXPECTED_RETRY);
  });

  it.each(tasks)(
    '"%s" catches everything into "Fail Task" (except Fail Task itself)',
    (name, state, nested) => {
      if (name === 'Fail Task' || nested) {
        // A Map iteration cannot reach a state outside the Map: the Map catches (below).
        expect(state.Catch).toBeUndefined();
        return;
      }
      // States.ALL does not match States.DataLimitExceeded: it is named first.
      expect(state.Catch).toEqual(
        expect.arrayContaining([
          { ErrorEquals: ['States.DataLimitExceeded'], ResultPath: '$.error', Next: 'Fail Task' },
        ])
      );
      expect(state.Catch!.at(-1)).toEqual({
        ErrorEquals: ['States.ALL'],
        ResultPath: '$.error',
        Next: 'Fail Task',
      });
    }
  );

  it('catches a failed tool call at the Map', () => {
    expect(states['Execute Tool Calls']!.Catch).toEqual([
      { ErrorEquals: ['States.DataLimitExceeded'], ResultPath: '$.error', Next: 'Fail Task' },
      { ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Fail Task' },
    ]);
  });

  it('records a failure on the task, then fails with its cause', () => {
    expect(states['Fail Task']).toMatchObject({
      Resource: TURN_STEP_ARN,
      Parameters: { op: 'fail', 'ref.$': '$.ref', 'error.$': '$.error' },
      ResultPath: null,
      Next: 'Failed',
    });
    expect(states.Failed).toEqual({
      Type: 'Fail',
      Error: TASK_FAILED_ERROR,
      CausePath: '$.error.Cause',
    });
  });

  it('uses JSONPath only: no QueryLanguage, JSONata, Arguments, Output or Assign anywhere', () => {
    const forbiddenKeys = ['QueryLanguage', 'Arguments', 'Output', 'Assign'];
    const visit = (node: unknown, at: string): void => {
      if (Array.isArray(node)) {
        for (const [index, item] of node.entries()) visit(item, `${at}[${index}]`);
      } else if (typeof node === 'object' && node !== null) {
        for (const [key, value] of Object.entries(node)) {
          expect(forbiddenKeys, `${at}.${key}`).not.toContain(key);
          visit(value, `${at}.${key}`);
        }
      } else if (typeof node === 'string') {
        expect(node, at).not.toMatch(/jsonata|\{%/i);
      }
    };
    visit(definition, '$');
    // The raw template text too, before any resolution.
    const raw = JSON.stringify(
      resourceAt(template, 'TurnStateMachine/StateMachine').Properties?.DefinitionString
    );
    expect(raw).not.toMatch(/QueryLanguage|JSONata|\{%|"Arguments"|"Output"|"Assign"/i);
  });

  it('is valid ASL (asl-validator)', () => {
    // The validator writes a default QueryLanguage into the states it is given: hand it a copy.
    const result = aslValidator(structuredClone(definition));
    expect(result.errorsText('\n')).toBe('');
    expect(result.isValid).toBe(true);
  });
});
