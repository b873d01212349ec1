/**
 * The cloud's hardening that no other suite holds: the alarm topic's key trusts CloudWatch only
 * for this account's alarms. (The rest, each beside what it hardens: the WAF's caller key in
 * harness-stack.test.ts, the user pool's deletion protection in a2a-auth.test.ts, each role's
 * table actions in iam-calls.test.ts, remote endpoints pinned in test/core/remote.)
 */
import { describe, expect, it } from 'vitest';
import { resourceAt, synthHarness } from './support/synth.js';

const { template } = synthHarness();

interface KeyStatement {
  Sid?: string;
  Effect: string;
  Principal: { Service?: string; AWS?: unknown };
  Action: string | string[];
  Condition?: Record<string, Record<string, unknown>>;
}

const statementsOf = (path: string) =>
  (resourceAt(template, path).Properties!.KeyPolicy as { Statement: KeyStatement[] }).Statement;

describe('the alarm topic key', () => {
  const statements = statementsOf('Alarms/TopicKey');
  const forCloudWatch = statements.filter(
    (statement) => statement.Principal.Service === 'cloudwatch.amazonaws.com'
  );

  it("lets CloudWatch encrypt for this account's alarms only (aws:SourceAccount, aws:SourceArn)", () => {
    expect(forCloudWatch).toHaveLength(1);
    expect(forCloudWatch[0]).toMatchObject({
      Effect: 'Allow',
      Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      Condition: {
        StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
        ArnLike: {
          'aws:SourceArn': {
            'Fn::Join': [
              '',
              [
                'arn:',
                { Ref: 'AWS::Partition' },
                ':cloudwatch:',
                { Ref: 'AWS::Region' },
                ':',
                { Ref: 'AWS::AccountId' },
                ':alarm:*',
              ],
            ],
          },
        },
      },
    });
  });

  it('trusts no other service principal', () => {
    const services = statements
      .map((statement) => statement.Principal.Service)
      .filter((service) => service !== undefined);
    expect(services).toEqual(['cloudwatch.amazonaws.com']);
  });
});
