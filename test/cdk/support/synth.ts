import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll } from 'vitest';
import { buildApp } from '../../../cdk/app.js';

export const TEST_STAGE = 'test';
export const TEST_STACK_NAME = `TinyHarness-${TEST_STAGE}`;

/** A temporary cloud assembly directory, removed after the test file. */
export const tempOutdir = (prefix = 'tiny-harness-cdk-'): string => {
  const outdir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));
  return outdir;
};

/** One synthesis with bundling off (no esbuild; about a second): the app, stack and template. */
export const synthHarness = (context: Record<string, unknown> = {}) => {
  const outdir = tempOutdir();
  const { app, stack } = buildApp({
    outdir,
    bundle: false,
    context: { stage: TEST_STAGE, ...context },
  });
  const template = Template.fromStack(stack);
  return { app, stack, template, outdir };
};

type Resources = Record<
  string,
  {
    Type: string;
    Properties?: Record<string, unknown>;
    Metadata?: Record<string, unknown>;
    [key: string]: unknown;
  }
>;

/** The logical id of the resource synthesized from `<stack>/<path>` (its L1 child `Resource`). */
export const logicalIdAt = (template: Template, path: string): string => {
  const resources = template.toJSON().Resources as Resources;
  const wanted = [`${TEST_STACK_NAME}/${path}`, `${TEST_STACK_NAME}/${path}/Resource`];
  const found = Object.entries(resources).filter(([, resource]) =>
    wanted.includes(String(resource.Metadata?.['aws:cdk:path']))
  );
  if (found.length !== 1)
    throw new Error(`expected one resource at ${path}, found ${found.length}`);
  return found[0]![0];
};

export const resourceAt = (template: Template, path: string) => {
  const resources = template.toJSON().Resources as Resources;
  return resources[logicalIdAt(template, path)]!;
};

/**
 * A CloudFormation value flattened the way cdk-nag names resources:
 * `{ "Fn::GetAtt": ["X", "Arn"] }` → `<X.Arn>`, `{ "Ref": "AWS::Region" }` → `<AWS::Region>`.
 */
export const flatten = (node: unknown): string => {
  if (typeof node === 'string') return node;
  if (typeof node === 'object' && node !== null) {
    const record = node as Record<string, unknown>;
    if (Array.isArray(record['Fn::Join'])) {
      const [delimiter, items] = record['Fn::Join'] as [string, unknown[]];
      return items.map(flatten).join(delimiter);
    }
    if (Array.isArray(record['Fn::GetAtt'])) {
      const [resource, attribute] = record['Fn::GetAtt'] as [string, string];
      return `<${resource}.${attribute}>`;
    }
    if ('Ref' in record) return `<${String(record.Ref)}>`;
  }
  return JSON.stringify(node);
};

export interface PolicyStatementJson {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

/** Every statement of the IAM policies attached to a role, with resources flattened. */
export const statementsOfRole = (template: Template, roleLogicalId: string) => {
  const resources = template.toJSON().Resources as Resources;
  const policies = Object.values(resources).filter(
    (resource) => resource.Type === 'AWS::IAM::Policy'
  );
  return policies
    .map((policy) => policy.Properties ?? {})
    .filter((properties) =>
      (properties.Roles as unknown[]).some((role) => flatten(role) === `<${roleLogicalId}>`)
    )
    .flatMap(
      (properties) => (properties.PolicyDocument as { Statement: PolicyStatementJson[] }).Statement
    )
    .map((statement) => ({
      effect: statement.Effect,
      actions: [statement.Action].flat().sort(),
      resources: [statement.Resource].flat().map(flatten).sort(),
    }));
};
