import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validations } from 'aws-cdk-lib';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../cdk/app.js';
import { tempOutdir } from './support/synth.js';

interface ValidationReport {
  pluginReports: { pluginName: string; violations: { ruleName: string }[] }[];
}
const readReport = (outdir: string): ValidationReport =>
  JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8'));

/** cdk-nag 3 records each acknowledgement as construct metadata `{ [id]: reason }`. */
const acknowledgementsOf = (app: ReturnType<typeof buildApp>['app']) =>
  app.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          path: construct.node.path,
          // aws-cdk-lib records ids without a known plugin prefix as annotations.
          id: id.replace(/^annotation::/i, ''),
          reason,
        }))
      )
  );

describe('cdk-nag AwsSolutions', () => {
  const outdir = tempOutdir();
  const { app } = buildApp({ outdir, bundle: false });

  it('finds nothing unacknowledged in the stack', () => {
    expect(() => app.synth()).not.toThrow();
    const report = readReport(outdir);
    expect(report.pluginReports.flatMap((plugin) => plugin.violations)).toEqual([]);
  });

  it('gives every acknowledgement a specific reason', () => {
    const acknowledgements = acknowledgementsOf(app);
    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const { path, id, reason } of acknowledgements) {
      expect(reason.trim().length, `${path}: ${id}`).toBeGreaterThanOrEqual(20);
    }
  });

  it('acknowledges only the reviewed rules, and wildcards one resource at a time', () => {
    const acknowledgements = acknowledgementsOf(app);
    const rules = new Set(acknowledgements.map(({ id }) => id.replace(/\[.*$/, '')));
    expect([...rules].sort()).toEqual(
      [
        'AwsSolutions-APIG2',
        'AwsSolutions-APIG4',
        'AwsSolutions-CFR1',
        'AwsSolutions-CFR2',
        'AwsSolutions-CFR4',
        'AwsSolutions-COG2',
        'AwsSolutions-COG4',
        'AwsSolutions-IAM4',
        'AwsSolutions-IAM5',
        'AwsSolutions-L1',
        'AwsSolutions-S1',
        // The migration provider's waiter state machine (cdk/constructs/record-migration.ts).
        'AwsSolutions-SF1',
        'AwsSolutions-SF2',
        'AwsSolutions-SQS3',
        // aws-cdk-lib's own, on the web renderer's log bucket: CloudFront writes its logs with
        // an ACL, so the bucket sets accessControl (s3 Bucket.acknowledgeAccessControl).
        'CloudFormation-Validate::W3045',
      ].sort()
    );
    for (const { path, id } of acknowledgements.filter(({ id }) =>
      id.startsWith('AwsSolutions-IAM')
    )) {
      // A bare rule id would accept any future wildcard on that construct.
      expect(id, path).toMatch(/^AwsSolutions-IAM[45]\[(Resource|Policy)::.+\]$/);
      // Never a wildcard action.
      expect(id, path).not.toMatch(/\[Action::/);
    }
  });

  it('exempts only the public agent card, the remote push webhook and the CORS preflights from authorization, and MFA only on the user pool', () => {
    const where = (rule: string) =>
      acknowledgementsOf(app)
        .filter(({ id }) => id === rule)
        .map(({ path }) => path);
    const open = [
      'TinyHarness-dev/A2aApi/RestApi/Default/.well-known/agent-card.json/GET',
      'TinyHarness-dev/A2aApi/RestApi/Default/.well-known/agent-card.json/OPTIONS',
      'TinyHarness-dev/A2aApi/RestApi/Default/remote-agents/push/{parentId}/{linkId}/POST',
      'TinyHarness-dev/A2aApi/RestApi/Default/OPTIONS',
      'TinyHarness-dev/A2aApi/RestApi/Default/{proxy+}/OPTIONS',
    ];
    expect(where('AwsSolutions-APIG4').sort()).toEqual(open.sort());
    expect(where('AwsSolutions-COG4').sort()).toEqual(open.sort());
    expect(where('AwsSolutions-COG2')).toEqual(['TinyHarness-dev/A2aAuth/UserPool']);
  });

  const probeOutdir = tempOutdir();
  it('is wired in: a new finding fails synthesis', () => {
    const { app: probe, stack } = buildApp({ outdir: probeOutdir, bundle: false });
    new Queue(stack, 'UnencryptedProbe', { enforceSSL: false });
    expect(() => probe.synth()).toThrow(/AwsSolutions-SQS4/);
    expect(existsSync(join(probeOutdir, 'validation-report.json'))).toBe(true);
    const violated = readReport(probeOutdir).pluginReports.flatMap((plugin) =>
      plugin.violations.map((violation) => violation.ruleName)
    );
    expect(violated).toEqual(expect.arrayContaining(['AwsSolutions-SQS3', 'AwsSolutions-SQS4']));
  });

  const openProbeOutdir = tempOutdir();
  it('fails synthesis for a new API method without the authorizer', () => {
    const { app: probe, stack } = buildApp({ outdir: openProbeOutdir, bundle: false });
    stack.api.restApi.root.addResource('open').addMethod('GET');
    expect(() => probe.synth()).toThrow(/AwsSolutions-(APIG4|COG4)/);
  });
});
