import { describe, expect, it } from 'vitest';
import { ENV } from '../../cdk/constructs/environment.js';
import { extractStateMachines } from '../../functions/local/stepfunctions/asl-extractor.js';
import {
  flatten,
  logicalIdAt,
  resourceAt,
  statementsOfRole,
  synthHarness,
  TEST_STACK_NAME,
} from './support/synth.js';

const { template } = synthHarness();
const resources = template.toJSON().Resources as Record<
  string,
  { Type: string; Properties?: Record<string, unknown> }
>;

const STATE_MACHINE_ARN = `arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:stateMachine:${TEST_STACK_NAME}-turns`;
const reconcileId = logicalIdAt(template, 'ReconcileFunction');
const ruleId = logicalIdAt(template, 'ExecutionReconciler/ExecutionEnded');
const dlqId = logicalIdAt(template, 'ExecutionReconciler/DeadLetterQueue');

describe('the execution reconciler', () => {
  const rule = () => resources[ruleId]!.Properties!;

  it('an EventBridge rule passes FAILED, TIMED_OUT and ABORTED ends of the turn state machine only', () => {
    const pattern = rule().EventPattern as {
      source: string[];
      'detail-type': string[];
      detail: { status: string[]; stateMachineArn: unknown[] };
    };
    expect(pattern.source).toEqual(['aws.states']);
    expect(pattern['detail-type']).toEqual(['Step Functions Execution Status Change']);
    expect(pattern.detail.status).toEqual(['FAILED', 'TIMED_OUT', 'ABORTED']);
    expect(pattern.detail.stateMachineArn.map(flatten)).toEqual([STATE_MACHINE_ARN]);
    expect(rule().State).toBe('ENABLED');
  });

  it('targets ReconcileFunction with bounded retries and a dead-letter queue', () => {
    expect(rule().Targets).toEqual([
      {
        Arn: { 'Fn::GetAtt': [reconcileId, 'Arn'] },
        Id: 'Target0',
        RetryPolicy: { MaximumRetryAttempts: 20, MaximumEventAgeInSeconds: 24 * 3600 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [dlqId, 'Arn'] } },
      },
    ]);
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [reconcileId, 'Arn'] },
      Principal: 'events.amazonaws.com',
      SourceArn: { 'Fn::GetAtt': [ruleId, 'Arn'] },
    });
    expect(resources[dlqId]!.Properties).toMatchObject({ SqsManagedSseEnabled: true });
  });

  it('ReconcileFunction reads and writes the table and starts executions, and nothing more of Step Functions', () => {
    const properties = resourceAt(template, 'ReconcileFunction').Properties!;
    expect(properties).toMatchObject({ Runtime: 'nodejs22.x', Timeout: 60 });
    const variables = (properties.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(flatten(variables[ENV.stateMachineArn])).toBe(STATE_MACHINE_ARN);
    const statements = statementsOfRole(template, logicalIdAt(template, 'ReconcileFunctionRole'));
    const states = statements.flatMap((s) => s.actions).filter((a) => a.startsWith('states:'));
    expect(states).toContain('states:StartExecution');
    expect(states).not.toContain('states:StopExecution');
  });

  it('the state machine fails an execution in one place only, after Fail Task has recorded the failure', () => {
    const { definition } = extractStateMachines(template.toJSON())[0]!;
    const states = Object.entries(
      (definition as { States: Record<string, { Type: string; Next?: string }> }).States
    );
    expect(states.filter(([, state]) => state.Type === 'Fail').map(([name]) => name)).toEqual([
      'Failed',
    ]);
    expect(states.filter(([, state]) => state.Next === 'Failed').map(([name]) => name)).toEqual([
      'Fail Task',
    ]);
  });
});

describe('concurrency', () => {
  const reserved = (t: typeof template, id: string) =>
    (t.toJSON().Resources as Record<string, { Properties?: Record<string, unknown> }>)[
      logicalIdAt(t, id)
    ]!.Properties!.ReservedConcurrentExecutions;

  it('reserves instances for the turn step and caps the A2A function, whose streams hold instances', () => {
    expect(reserved(template, 'TurnStepFunction')).toBe(20);
    expect(reserved(template, 'A2aFunction')).toBe(100);
    for (const id of ['StreamFunction', 'PushFunction', 'ReconcileFunction']) {
      expect(reserved(template, id), id).toBeUndefined();
    }
  });

  it('tells the A2A function how many streams one caller may hold open', () => {
    const variables = (
      resourceAt(template, 'A2aFunction').Properties!.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    expect(variables[ENV.streamsPerCaller]).toBe('4');
  });

  it('takes the reservations from context, 0 meaning none (not "never run")', () => {
    const { template: custom } = synthHarness({
      turnStepReservedConcurrency: '0',
      a2aReservedConcurrency: '40',
    });
    expect(reserved(custom, 'TurnStepFunction')).toBeUndefined();
    expect(reserved(custom, 'A2aFunction')).toBe(40);
  });
});
