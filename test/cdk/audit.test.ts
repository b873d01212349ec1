import { describe, expect, it } from 'vitest';
import { AUDITOR_ACTIONS } from '../../cdk/constructs/auditor-access.js';
import {
  flatten,
  logicalIdAt,
  resourceAt,
  statementsOfRole,
  synthHarness,
  TEST_STACK_NAME,
} from './support/synth.js';

const { template } = synthHarness({ auditArchiveRetentionDays: 400 });
const json = template.toJSON() as {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
};

const STATE_MACHINE_NAME = `${TEST_STACK_NAME}-turns`;
const STATE_MACHINE_ARN = `arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:stateMachine:${STATE_MACHINE_NAME}`;
const EXECUTION_ARNS = `arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:${STATE_MACHINE_NAME}:*`;
const propsOf = (resource: { Properties?: Record<string, unknown> } | undefined) =>
  resource?.Properties ?? {};
const archiveFunction = logicalIdAt(template, 'AuditArchive/ArchiveFunction');
const archiveRole = logicalIdAt(template, 'AuditArchive/ArchiveFunctionRole');

describe('the audit archive and the auditor role (CDK)', () => {
  it('archives a turn execution when it closes: an EventBridge rule on its status, with retries and a dead-letter queue', () => {
    const rule = resourceAt(template, 'AuditArchive/ExecutionClosed');
    expect(rule.Type).toBe('AWS::Events::Rule');
    const pattern = propsOf(rule).EventPattern as {
      source: string[];
      'detail-type': string[];
      detail: { stateMachineArn: unknown[]; status: string[] };
    };
    expect(pattern.source).toEqual(['aws.states']);
    expect(pattern['detail-type']).toEqual(['Step Functions Execution Status Change']);
    expect(pattern.detail.stateMachineArn.map(flatten)).toEqual([STATE_MACHINE_ARN]);
    expect(pattern.detail.status).toEqual(['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED']);
    const [target] = propsOf(rule).Targets as Array<Record<string, unknown>>;
    expect(flatten(target?.Arn)).toBe(`<${archiveFunction}.Arn>`);
    expect(target?.RetryPolicy).toEqual({
      MaximumEventAgeInSeconds: 86_400,
      MaximumRetryAttempts: 8,
    });
    expect(flatten((target?.DeadLetterConfig as { Arn: unknown } | undefined)?.Arn)).toBe(
      `<${logicalIdAt(template, 'AuditArchive/Failed')}.Arn>`
    );
  });

  it('gives the archive function the retention from context, and only what it needs', () => {
    const fn = json.Resources[archiveFunction];
    const variables = (propsOf(fn).Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables.TINY_HARNESS_AUDIT_RETENTION_DAYS).toBe('400');
    expect(flatten(variables.TINY_HARNESS_STATE_MACHINE_ARN)).toBe(STATE_MACHINE_ARN);
    const statements = statementsOfRole(template, archiveRole);
    expect(statements).toContainEqual({
      effect: 'Allow',
      actions: ['states:GetExecutionHistory'],
      resources: [EXECUTION_ARNS],
    });
    const actions = statements.flatMap((statement) => statement.actions);
    expect(actions.filter((action) => action.startsWith('states:'))).toEqual([
      'states:GetExecutionHistory',
    ]);
  });

  it('offers auditors a read-only managed policy and a role of this account that carries it', () => {
    const policy = resourceAt(template, 'Auditor/Policy');
    expect(policy.Type).toBe('AWS::IAM::ManagedPolicy');
    const statements = (
      propsOf(policy).PolicyDocument as {
        Statement: Array<{ Action: string | string[]; Resource: unknown; Effect: string }>;
      }
    ).Statement;
    const actions = statements.flatMap((statement) => [statement.Action].flat()).sort();
    expect(actions).toEqual([...AUDITOR_ACTIONS].sort());
    expect(statements.every((statement) => statement.Effect === 'Allow')).toBe(true);
    expect(
      actions.filter((action) =>
        /:(Put|Update|Delete|Batch(Write)|Start|Stop|Send|Create|Tag)/.test(action)
      )
    ).toEqual([]);
    const history = statements.find((statement) =>
      [statement.Action].flat().includes('states:GetExecutionHistory')
    );
    expect([history?.Resource].flat().map(flatten)).toEqual([EXECUTION_ARNS]);

    const role = resourceAt(template, 'Auditor/Role');
    const trust = (
      propsOf(role).AssumeRolePolicyDocument as {
        Statement: Array<{ Principal: { AWS: unknown } }>;
      }
    ).Statement;
    expect(flatten(trust[0]?.Principal.AWS)).toMatch(/:iam::<AWS::AccountId>:root$/);
    expect((propsOf(role).ManagedPolicyArns as unknown[]).map(flatten)).toEqual([
      `<${logicalIdAt(template, 'Auditor/Policy')}>`,
    ]);
    expect(propsOf(role).MaxSessionDuration).toBe(3600);
  });

  it('outputs the auditor role and policy', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(flatten(outputs.AuditorRoleArn?.Value)).toBe(
      `<${logicalIdAt(template, 'Auditor/Role')}.Arn>`
    );
    expect(flatten(outputs.AuditorPolicyArn?.Value)).toBe(
      `<${logicalIdAt(template, 'Auditor/Policy')}>`
    );
  });
});
