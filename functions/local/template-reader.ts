import type { FilterPattern } from './event-filter.js';
import type { CloudFormationTemplate } from './stepfunctions/index.js';
import type { EventSourceSettings } from './stream-poller.js';

/** The Lambda functions the stack declares, by the construct id the local runtime knows them by. */
export const FUNCTION_IDS = ['TurnStepFunction', 'StreamFunction', 'A2aFunction'] as const;
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

/** The stream event source mapping's settings, read from the template so local matches cloud. */
export const streamEventSource = (template: CloudFormationTemplate): EventSourceSettings => {
  const mapping = Object.values(resourcesOf(template)).find(
    (resource) => resource.Type === 'AWS::Lambda::EventSourceMapping'
  );
  if (mapping?.Properties === undefined)
    throw new Error('the synthesized template has no event source mapping');
  const properties = mapping.Properties as {
    BatchSize?: number;
    MaximumRetryAttempts?: number;
    BisectBatchOnFunctionError?: boolean;
    FilterCriteria?: { Filters?: Array<{ Pattern: string }> };
  };
  return {
    batchSize: properties.BatchSize ?? 100,
    maximumRetryAttempts: properties.MaximumRetryAttempts ?? 10_000,
    bisectBatchOnFunctionError: properties.BisectBatchOnFunctionError ?? false,
    filters: (properties.FilterCriteria?.Filters ?? []).map(
      (filter) => JSON.parse(filter.Pattern) as FilterPattern
    ),
  };
};
