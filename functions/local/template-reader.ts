import type { FilterPattern } from './event-filter.js';
import type { CloudFormationTemplate } from './stepfunctions/index.js';
import type { EventSourceSettings } from './stream-mapping.js';

/** The Lambda functions the stack declares, by the construct id the local runtime knows them by. */
export const FUNCTION_IDS = [
  'TurnStepFunction',
  'ToolStepFunction',
  'StreamFunction',
  'A2aFunction',
  'PushFunction',
  'ReconcileFunction',
  'RemoteFollowFunction',
  'RemotePushFunction',
] as const;
export type FunctionId = (typeof FUNCTION_IDS)[number];

type Resource = {
  Type: string;
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
};

const resourcesOf = (template: CloudFormationTemplate): Record<string, Resource> =>
  (template.Resources ?? {}) as Record<string, Resource>;

const constructIdOf = (resource: Resource): string | undefined => {
  const path = resource.Metadata?.['aws:cdk:path'];
  if (typeof path !== 'string') return undefined;
  const parts = path.split('/');
  return parts.at(-1) === 'Resource' ? parts.at(-2) : parts.at(-1);
};

/** Lambda logical id → the construct id (TurnStepFunction, ...), for every function of ours. */
export const functionsByLogicalId = (template: CloudFormationTemplate): Map<string, FunctionId> => {
  const found = new Map<string, FunctionId>();
  for (const [logicalId, resource] of Object.entries(resourcesOf(template))) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const id = constructIdOf(resource);
    if (id !== undefined && (FUNCTION_IDS as readonly string[]).includes(id))
      found.set(logicalId, id as FunctionId);
  }
  for (const id of FUNCTION_IDS) {
    if (![...found.values()].includes(id)) throw new Error(`the synthesized template has no ${id}`);
  }
  return found;
};

type MappingProperties = {
  FunctionName?: { Ref?: string } | string;
  BatchSize?: number;
  MaximumRetryAttempts?: number;
  BisectBatchOnFunctionError?: boolean;
  FilterCriteria?: { Filters?: Array<{ Pattern: string }> };
};

/** One event source mapping of the stack: the function it feeds and how. */
export interface EventSourceMapping {
  functionId: FunctionId;
  settings: EventSourceSettings;
}

/**
 * Every event source mapping of the template (the table stream's consumers: the stand-in and
 * push delivery), each with the function it feeds and its settings, so local matches cloud.
 */
export const eventSourceMappings = (template: CloudFormationTemplate): EventSourceMapping[] => {
  const functions = functionsByLogicalId(template);
  const mappings = Object.values(resourcesOf(template)).filter(
    (resource) => resource.Type === 'AWS::Lambda::EventSourceMapping'
  );
  if (mappings.length === 0)
    throw new Error('the synthesized template has no event source mapping');
  return mappings.map((mapping) => {
    const properties = (mapping.Properties ?? {}) as MappingProperties;
    const target = properties.FunctionName;
    const functionId = functions.get(typeof target === 'object' ? (target.Ref ?? '') : '');
    if (functionId === undefined) {
      throw new Error(`an event source mapping feeds no known function: ${JSON.stringify(target)}`);
    }
    return {
      functionId,
      settings: {
        batchSize: properties.BatchSize ?? 100,
        maximumRetryAttempts: properties.MaximumRetryAttempts ?? 10_000,
        bisectBatchOnFunctionError: properties.BisectBatchOnFunctionError ?? false,
        filters: (properties.FilterCriteria?.Filters ?? []).map(
          (filter) => JSON.parse(filter.Pattern) as FilterPattern
        ),
      },
    };
  });
};
