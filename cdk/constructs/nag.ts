/**
 * cdk-nag (v3) acknowledgements in one vocabulary. A wildcard-resource finding is named after
 * the resource as cdk-nag flattens it (`<LogicalId.Arn>/index/*`), so the id is computed from
 * the same token the grant used rather than typed by hand.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** Mirrors cdk-nag's flattenCfnReference (not exported by the package). */
const flatten = (node: unknown): string => {
  if (node === undefined) return '';
  if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/\}/g, '>');
  if (typeof node === 'object' && node !== null) {
    const record = node as Record<string, unknown>;
    if (Array.isArray(record['Fn::Join'])) {
      const [delimiter, items] = record['Fn::Join'] as [string, unknown[]];
      return items.map(flatten).join(delimiter);
    }
    if ('Fn::Sub' in record) return flatten(record['Fn::Sub']);
    if (Array.isArray(record['Fn::GetAtt'])) {
      const [resource, attribute] = record['Fn::GetAtt'] as [unknown, unknown];
      return `<${flatten(resource)}.${flatten(attribute)}>`;
    }
    if ('Fn::ImportValue' in record) return flatten(record['Fn::ImportValue']);
    if ('Ref' in record) return `<${flatten(record.Ref)}>`;
  }
  return JSON.stringify(node);
};

/** The AwsSolutions-IAM5 finding id for a resource ARN (a token or a string) containing `*`. */
export const wildcardResourceFinding = (scope: IConstruct, resource: string): string =>
  `AwsSolutions-IAM5[Resource::${flatten(Stack.of(scope).resolve(resource))}]`;

/** Records why a finding is accepted, on the narrowest construct that produces it. */
export const acknowledge = (scope: IConstruct, id: string, reason: string): void => {
  Validations.of(scope).acknowledge({ id, reason });
};
