import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALARM_THRESHOLDS } from '../../cdk/constructs/alarms.js';
import { ENV } from '../../cdk/constructs/environment.js';
import { TURN_METRICS } from '../../functions/adapters/system/turn-metrics.js';
import { extractStateMachines } from '../../functions/local/stepfunctions/asl-extractor.js';
import { PENDING_START_SWEEP_MINUTES } from '../../functions/service/pending-start-schedule.js';
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

  it('a schedule invokes ReconcileFunction every minute to start the generations whose start was lost', () => {
    const sweepId = logicalIdAt(template, 'ExecutionReconciler/PendingStartSweep');
    const sweep = resources[sweepId]!.Properties!;
    expect(sweep.ScheduleExpression).toBe(`rate(${PENDING_START_SWEEP_MINUTES} minute)`);
    expect(sweep.State).toBe('ENABLED');
    expect(sweep.Targets).toEqual([
      {
        Arn: { 'Fn::GetAtt': [reconcileId, 'Arn'] },
        Id: 'Target0',
        RetryPolicy: {
          MaximumRetryAttempts: 2,
          MaximumEventAgeInSeconds: PENDING_START_SWEEP_MINUTES * 5 * 60,
        },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [dlqId, 'Arn'] } },
      },
    ]);
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [reconcileId, 'Arn'] },
      Principal: 'events.amazonaws.com',
      SourceArn: { 'Fn::GetAtt': [sweepId, 'Arn'] },
    });
  });

  it('ReconcileFunction reads and writes the table, starts executions and asks whether one runs, and nothing more of Step Functions', () => {
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

  it('reserves instances for each step and caps the A2A function, whose streams hold instances', () => {
    expect(reserved(template, 'TurnStepFunction')).toBe(20);
    expect(reserved(template, 'ToolStepFunction')).toBe(20);
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
    expect(reserved(custom, 'ToolStepFunction')).toBeUndefined();
    expect(reserved(custom, 'A2aFunction')).toBe(40);
  });
});

describe('alarms and the dashboard', () => {
  const topic = { Ref: logicalIdAt(template, 'Alarms/Topic') };
  const alarms = Object.entries(resources)
    .filter(([, resource]) => resource.Type === 'AWS::CloudWatch::Alarm')
    .map(([logicalId, resource]) => ({
      logicalId,
      path: String(
        (template.toJSON().Resources[logicalId].Metadata as Record<string, unknown>)['aws:cdk:path']
      )
        .replace(`${TEST_STACK_NAME}/`, '')
        .replace(/\/Resource$/, ''),
      properties: resource.Properties as Record<string, unknown> & {
        Dimensions?: Array<{ Name: string; Value: unknown }>;
      },
    }));
  const alarmAt = (path: string) => {
    const found = alarms.find((alarm) => alarm.path === path);
    if (found === undefined) throw new Error(`no alarm at ${path}`);
    return found.properties;
  };

  /** Every alarm the issue asks for, with its metric and threshold. */
  const EXPECTED: Array<[string, string, string, number]> = [
    ['Alarms/ExecutionsFailed', 'AWS/States', 'ExecutionsFailed', 1],
    ['Alarms/ExecutionsTimedOut', 'AWS/States', 'ExecutionsTimedOut', 1],
    [
      'Alarms/ExecutionsAborted',
      'AWS/States',
      'ExecutionsAborted',
      ALARM_THRESHOLDS.abortedPer15Minutes,
    ],
    ['Alarms/FollowersFailed', 'AWS/States', 'ExecutionsFailed', 1],
    ...[
      'TurnStep',
      'ToolStep',
      'Stream',
      'A2a',
      'Push',
      'Reconcile',
      'RemoteFollow',
      'RemotePush',
    ].flatMap(
      (fn): Array<[string, string, string, number]> => [
        [`Alarms/${fn}Errors`, 'AWS/Lambda', 'Errors', ALARM_THRESHOLDS.functionErrors],
        [`Alarms/${fn}Throttles`, 'AWS/Lambda', 'Throttles', 1],
      ]
    ),
    ['Alarms/Api5xx', 'AWS/ApiGateway', '5XXError', ALARM_THRESHOLDS.api5xx],
    ['Alarms/ApiLatency', 'AWS/ApiGateway', 'Latency', ALARM_THRESHOLDS.apiLatencyP90Ms],
    ['Alarms/StreamIteratorAge', 'AWS/Lambda', 'IteratorAge', ALARM_THRESHOLDS.iteratorAgeMs],
    ['Alarms/PushIteratorAge', 'AWS/Lambda', 'IteratorAge', ALARM_THRESHOLDS.iteratorAgeMs],
    ['Alarms/StreamFailures', 'AWS/SQS', 'ApproximateNumberOfMessagesVisible', 1],
    ['Alarms/PushFailures', 'AWS/SQS', 'ApproximateNumberOfMessagesVisible', 1],
    ['Alarms/ReconcilerFailures', 'AWS/SQS', 'ApproximateNumberOfMessagesVisible', 1],
  ];

  it('has exactly the alarms the runbook covers, each notifying the topic', () => {
    expect(alarms.map((alarm) => alarm.path).sort()).toEqual(EXPECTED.map(([path]) => path).sort());
    for (const alarm of alarms) expect(alarm.properties.AlarmActions, alarm.path).toEqual([topic]);
  });

  it.each(EXPECTED)('%s watches %s %s at %d', (path, namespace, metricName, threshold) => {
    expect(alarmAt(path)).toMatchObject({
      Namespace: namespace,
      MetricName: metricName,
      Threshold: threshold,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it('watches each function by its own name, the state machine by its ARN, the API by its stage', () => {
    const dimension = (path: string) =>
      alarmAt(path).Dimensions!.map((d) => [d.Name, flatten(d.Value)]);
    expect(dimension('Alarms/TurnStepThrottles')).toEqual([
      ['FunctionName', `<${logicalIdAt(template, 'TurnStepFunction')}>`],
    ]);
    expect(dimension('Alarms/ReconcileErrors')).toEqual([['FunctionName', `<${reconcileId}>`]]);
    expect(dimension('Alarms/StreamIteratorAge')).toEqual([
      ['FunctionName', `<${logicalIdAt(template, 'StreamFunction')}>`],
    ]);
    expect(dimension('Alarms/ExecutionsTimedOut')[0]![0]).toBe('StateMachineArn');
    expect(
      dimension('Alarms/Api5xx')
        .map(([name]) => name)
        .sort()
    ).toEqual(['ApiName', 'Stage']);
    expect(dimension('Alarms/ReconcilerFailures')).toEqual([['QueueName', `<${dlqId}.QueueName>`]]);
  });

  it('each alarm has a runbook line in docs/deploy.md', () => {
    const deployDoc = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
    for (const [path] of EXPECTED) {
      expect(deployDoc, path).toMatch(new RegExp(`\\| \`${path}\` \\|[^\\n]+\\|[^\\n]+\\|`));
    }
  });

  it('a dashboard of turns, model tokens and cost per hour from the turn step metrics', () => {
    const dashboards = Object.values(resources).filter(
      (resource) => resource.Type === 'AWS::CloudWatch::Dashboard'
    );
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(dashboards[0]!.Properties!.DashboardBody);
    for (const name of Object.values(TURN_METRICS.names)) {
      expect(body).toContain(
        `\\"${TURN_METRICS.namespace}\\",\\"${name}\\",\\"service\\",\\"${TURN_METRICS.service}\\",\\"stage\\",\\"test\\"`
      );
    }
    expect(body).toContain('"period\\":3600');
    expect(body).toContain('Turns per hour');
    expect(body).toContain('Model cost per hour');
  });
});
