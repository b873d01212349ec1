import { describe, expect, it } from 'vitest';
import { ENV } from '../../cdk/constructs/environment.js';
import { FOLLOW_STATE_NAMES } from '../../cdk/constructs/follow-state-machine.js';
import { RETRY_POLICY } from '../../cdk/constructs/turn-state-machine.js';
import { extractStateMachines } from '../../functions/local/stepfunctions/asl-extractor.js';
import {
  flatten,
  logicalIdAt,
  resourceAt,
  statementsOfRole,
  synthHarness,
  TEST_STACK_NAME,
} from './support/synth.js';

const DIRECTORY = JSON.stringify({
  ledger: { card: 'https://ledger.example.com/.well-known/agent-card.json' },
});
const { template } = synthHarness({ remoteAgents: DIRECTORY });
const plain = synthHarness().template;

interface AslState {
  Type: string;
  Next?: string;
  End?: boolean;
  Resource?: string;
  Parameters?: unknown;
  SecondsPath?: string;
  Retry?: { ErrorEquals: string[] }[];
  Catch?: { ErrorEquals: string[]; Next: string; ResultPath?: string }[];
  Choices?: { Variable: string; BooleanEquals: boolean; Next: string }[];
  Default?: string;
}

const follow = extractStateMachines(template.toJSON()).find((machine) =>
  machine.name.endsWith('-follow')
)!;
const states = (follow.definition as { States: Record<string, AslState> }).States;

const variablesOf = (tpl: typeof template, path: string) =>
  (
    resourceAt(tpl, path).Properties!.Environment as {
      Variables: Record<string, unknown>;
    }
  ).Variables;

const FOLLOW_ARN = `arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:stateMachine:${TEST_STACK_NAME}-follow`;

describe('the follow state machine (the stand-in of remote children)', () => {
  it('follows and waits until done, and fails the child when a step fails past its retries', () => {
    expect(follow.name).toBe(`${TEST_STACK_NAME}-follow`);
    expect(Object.keys(states).sort()).toEqual(Object.values(FOLLOW_STATE_NAMES).sort());
    expect((follow.definition as { StartAt: string }).StartAt).toBe('Follow');
    expect(states.Follow).toMatchObject({ Type: 'Task', Next: 'Followed?', ResultPath: '$' });
    // The follower's state is the step's whole input: no Parameters.
    expect(states.Follow?.Parameters).toBeUndefined();
    expect(states['Followed?']).toMatchObject({
      Choices: [{ Variable: '$.done', BooleanEquals: true, Next: 'Done' }],
      Default: 'Wait',
    });
    expect(states.Wait).toMatchObject({
      Type: 'Wait',
      SecondsPath: '$.waitSeconds',
      Next: 'Follow',
    });
    expect(states.Follow?.Retry?.map((retry) => retry.ErrorEquals)).toEqual(
      RETRY_POLICY.map((retry) => retry.errors)
    );
    expect(states.Follow?.Catch?.map((c) => [c.ErrorEquals, c.Next, c.ResultPath])).toEqual([
      [['States.DataLimitExceeded'], 'Follow Failed', '$.error'],
      [['States.ALL'], 'Follow Failed', '$.error'],
    ]);
    expect(states['Follow Failed']?.Next).toBe('Failed');
    expect(Object.values(follow.lambdaRefs)).toEqual([
      logicalIdAt(template, 'RemoteFollowFunction'),
    ]);
  });
});

describe('who gets the directory, and who may start followers', () => {
  it('gives the directory to the functions that call remote agents, and the turn step that names them, only', () => {
    for (const path of [
      'TurnStepFunction',
      'ToolStepFunction',
      'RemoteFollowFunction',
      'RemotePushFunction',
    ]) {
      expect(variablesOf(template, path)[ENV.remoteAgents], path).toBe(DIRECTORY);
    }
    for (const path of ['A2aFunction', 'StreamFunction', 'PushFunction', 'ReconcileFunction']) {
      expect(variablesOf(template, path)[ENV.remoteAgents], path).toBeUndefined();
    }
    expect(variablesOf(plain, 'TurnStepFunction')[ENV.remoteAgents]).toBeUndefined();
    expect(variablesOf(plain, 'ToolStepFunction')[ENV.remoteAgents]).toBeUndefined();
  });

  it('lets the steps, the A2A function and the follow function start followers, and tells the tool step our base URL', () => {
    // The tool step creates a remote child; a task the turn step fails has its children canceled.
    for (const path of [
      'TurnStepFunction',
      'ToolStepFunction',
      'A2aFunction',
      'RemoteFollowFunction',
    ]) {
      expect(flatten(variablesOf(template, path)[ENV.followStateMachineArn]), path).toBe(
        FOLLOW_ARN
      );
      const starts = statementsOfRole(template, logicalIdAt(template, `${path}Role`)).filter(
        (statement) => statement.resources.includes(FOLLOW_ARN)
      );
      expect(
        starts.map((statement) => statement.actions),
        path
      ).toEqual([['states:StartExecution']]);
    }
    for (const path of [
      'StreamFunction',
      'PushFunction',
      'ReconcileFunction',
      'RemotePushFunction',
    ]) {
      const roles = statementsOfRole(template, logicalIdAt(template, `${path}Role`));
      expect(
        roles.some((statement) => statement.resources.includes(FOLLOW_ARN)),
        path
      ).toBe(false);
    }
    expect(variablesOf(template, 'TurnStepFunction')[ENV.baseUrl]).toBeUndefined();
    expect(flatten(variablesOf(template, 'ToolStepFunction')[ENV.baseUrl])).toMatch(
      /^https:\/\/<.+>\.execute-api\./
    );
  });

  it('registers the agents at deployment (a trigger on the registration function), only when there are some', () => {
    const trigger = Object.values(template.findResources('Custom::Trigger'));
    expect(trigger).toHaveLength(1);
    expect(variablesOf(template, 'RemoteAgentsRegistration/Function')[ENV.remoteAgents]).toBe(
      DIRECTORY
    );
    expect(Object.values(plain.findResources('Custom::Trigger'))).toHaveLength(0);
  });
});
