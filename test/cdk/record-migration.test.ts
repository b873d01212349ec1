import { describe, expect, it } from 'vitest';
import { ENV } from '../../cdk/constructs/environment.js';
import { MIGRATION_WAIT_MS } from '../../functions/handlers/migrate.js';
import { extractStateMachines } from '../../functions/local/stepfunctions/asl-extractor.js';
import {
  flatten,
  logicalIdAt,
  resourceAt,
  statementsOfRole,
  synthHarness,
} from './support/synth.js';

const { template } = synthHarness();
const functionId = logicalIdAt(template, 'RecordMigration/MigrationFunction');
const fn = resourceAt(template, 'RecordMigration/MigrationFunction') as unknown as {
  Properties: {
    Timeout: number;
    Code: { S3Key: string };
    Environment: { Variables: Record<string, unknown> };
  };
};

describe('the migration of task records at deployment', () => {
  it('is one custom resource, run again whenever the migration function’s bundle changes', () => {
    const runs = Object.values(template.findResources('Custom::TaskRecordMigration'));
    expect(runs).toHaveLength(1);
    const run = runs[0] as { Properties: { ServiceToken: unknown; Bundle: unknown } };
    expect(fn.Properties.Code.S3Key).toMatch(/^[0-9a-f]{64}\.zip$/);
    expect(run.Properties.Bundle).toBe(fn.Properties.Code.S3Key);
    expect(flatten(run.Properties.ServiceToken)).toBe(
      `<${logicalIdAt(template, 'RecordMigration/Provider/framework-onEvent')}.Arn>`
    );
  });

  it('runs the migration function for the first call and for each call asking whether it is done, for up to an hour', () => {
    for (const step of ['framework-onEvent', 'framework-isComplete']) {
      const variables = (
        resourceAt(template, `RecordMigration/Provider/${step}`) as unknown as {
          Properties: { Environment: { Variables: Record<string, unknown> } };
        }
      ).Properties.Environment.Variables;
      const named = Object.entries(variables).filter(([name]) => name.startsWith('USER_'));
      expect(named.map(([, value]) => flatten(value))).toContain(`<${functionId}.Arn>`);
    }
    const waiter = extractStateMachines(template.toJSON()).find((machine) =>
      machine.constructPath.endsWith('/RecordMigration/Provider/waiter-state-machine')
    )!;
    const retry = (
      waiter.definition.States['framework-isComplete-task'] as {
        Retry: { IntervalSeconds: number; MaxAttempts: number; BackoffRate: number }[];
      }
    ).Retry[0]!;
    expect(retry.IntervalSeconds * retry.MaxAttempts).toBe(3600);
    // The migration answers complete before CloudFormation's hour, its longest call included.
    expect(MIGRATION_WAIT_MS + 15 * 60_000).toBeLessThan(3600 * 1000);
    expect(retry.BackoffRate).toBe(1);
  });

  it('gives each call 15 minutes, the table, and no access beyond it', () => {
    expect(fn.Properties.Timeout).toBe(900);
    expect(fn.Properties.Environment.Variables[ENV.table]).toBeDefined();
    const role = logicalIdAt(template, 'RecordMigration/MigrationFunctionRole');
    const actions = statementsOfRole(template, role).flatMap((statement) => statement.actions);
    expect(actions.filter((action) => action.startsWith('dynamodb:')).sort()).toEqual(
      [
        'dynamodb:BatchGetItem',
        'dynamodb:ConditionCheckItem',
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:Scan',
        'dynamodb:UpdateItem',
      ].sort()
    );
    expect(actions.filter((action) => !/^(dynamodb|logs|xray):/.test(action))).toEqual([]);
  });
});
