import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../cdk/app.js';
import { DEFAULT_CONTEXT } from '../../cdk/config.js';
import { SPEND_METRICS } from '../../functions/adapters/system/emf-metrics.js';
import { logicalIdAt, synthHarness, TEST_STACK_NAME, TEST_STAGE } from './support/synth.js';

type Resources = Record<
  string,
  { Type: string; Properties?: Record<string, unknown>; Metadata?: Record<string, unknown> }
>;

/** The budget alarms of a synthesized stack, by path under the stack, and the alarm topic. */
const budgetAlarmsOf = (context: Record<string, unknown>) => {
  const { template } = synthHarness(context);
  const resources = template.toJSON().Resources as Resources;
  const alarms = Object.fromEntries(
    Object.values(resources)
      .filter((resource) => resource.Type === 'AWS::CloudWatch::Alarm')
      .map((resource) => [
        String(resource.Metadata?.['aws:cdk:path'])
          .replace(`${TEST_STACK_NAME}/`, '')
          .replace(/\/Resource$/, ''),
        resource.Properties ?? {},
      ])
      .filter(([path]) => String(path).startsWith('Alarms/BudgetUsed-'))
  );
  return { alarms, topic: { Ref: logicalIdAt(template, 'Alarms/Topic') } };
};

/** The error `cdk synth` would stop with for this context. */
const refusal = (context: Record<string, unknown>): Error => {
  try {
    buildApp({ bundle: false, context: { stage: TEST_STAGE, ...context } });
  } catch (error) {
    return error as Error;
  }
  throw new Error(`synthesis accepted ${JSON.stringify(context)}`);
};

describe('the budget alarms', () => {
  it('watch BudgetUsedShare per task type defaultBudget names, and `other`, at budgetAlarmShare', () => {
    const { alarms, topic } = budgetAlarmsOf({
      defaultBudget: { '*': { usd: 5 }, research: { model_calls: 40 }, triage: { usd: 1 } },
      budgetAlarmShare: '0.9',
    });
    expect(Object.keys(alarms).sort()).toEqual([
      'Alarms/BudgetUsed-other',
      'Alarms/BudgetUsed-research',
      'Alarms/BudgetUsed-triage',
    ]);
    for (const taskType of ['other', 'research', 'triage']) {
      const { Dimensions, ...alarm } = alarms[`Alarms/BudgetUsed-${taskType}`] as {
        Dimensions: Array<{ Name: string; Value: string }>;
      };
      expect(Object.fromEntries(Dimensions.map(({ Name, Value }) => [Name, Value]))).toEqual({
        [SPEND_METRICS.dimensions.stage]: TEST_STAGE,
        [SPEND_METRICS.dimensions.taskType]: taskType,
      });
      expect(alarm).toEqual({
        AlarmDescription: expect.stringMatching(/ 90% or more of a limit of its budget\.$/),
        Namespace: SPEND_METRICS.namespace,
        MetricName: SPEND_METRICS.names.budgetUsedShare,
        Statistic: 'Maximum',
        Period: 300,
        EvaluationPeriods: 1,
        Threshold: 0.9,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: [topic],
      });
    }
  });

  it('alarm at 80% by default; with only a `*` budget, every type is `other`', () => {
    expect(DEFAULT_CONTEXT.budgetAlarmShare).toBe(0.8);
    const { alarms } = budgetAlarmsOf({ defaultBudget: '{"*": {"model_calls": 40}}' });
    expect(Object.keys(alarms)).toEqual(['Alarms/BudgetUsed-other']);
    expect(alarms['Alarms/BudgetUsed-other']).toMatchObject({ Threshold: 0.8 });
    expect(alarms['Alarms/BudgetUsed-other']?.AlarmDescription).toBe(
      'A task of a type defaultBudget does not name and its sub-tasks have used 80% or more of a limit of its budget.'
    );
  });

  it('are not made without default budgets', () => {
    expect(budgetAlarmsOf({}).alarms).toEqual({});
  });

  it.each<[unknown]>([[0], ['0'], [-0.5], [1.01], ['80%'], ['']])(
    'refuse budgetAlarmShare=%j with one line saying what to set',
    (share) => {
      expect(refusal({ budgetAlarmShare: share }).message).toBe(
        'invalid CDK context: budgetAlarmShare: a share of a budget, more than 0 and at most 1 (0.8 alarms when a task has used 80% of it)'
      );
    }
  );

  it('have a runbook line in docs/deploy.md, and the key a row', () => {
    const deployDoc = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
    expect(deployDoc).toMatch(/\| `Alarms\/BudgetUsed-<type>` \|[^\n]+\|[^\n]+\|/);
    expect(deployDoc).toMatch(/^\| `budgetAlarmShare` \| `0\.8` \|/m);
  });
});
