import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { StoreAuditSources } from '../adapters/audit/audit-sources.js';
import { DynamoDbHistoryArchive } from '../adapters/audit/dynamodb-history-archive.js';
import { DynamoDbTaskRecords } from '../adapters/audit/dynamodb-task-records.js';
import { StepFunctionsExecutionHistory } from '../adapters/audit/step-functions-history.js';
import type { Tracing } from '../adapters/tracing/tracing.js';
import type { ExecutionHistoryArchive, LiveExecutionHistory } from '../core/audit/archive.js';
import type { AuditSources } from '../core/audit/sources.js';
import type { LoopDeps } from '../core/loop/deps.js';
import type { ModelPrices } from '../core/loop/usage.js';
import { dynamoDbClientOf, sfnClientOf } from './aws-clients.js';
import type { RuntimeConfig } from './runtime-config.js';

/** What the audit read model and the archive need, beside the runtime's own configuration. */
export const AuditConfigSchema = z.object({
  /** Days an archived execution history is kept after it closed; 0 keeps it as long as the task. */
  TINY_HARNESS_AUDIT_RETENTION_DAYS: z.coerce.number().int().min(0).default(0),
});

/** Execution histories: read live from Step Functions, and their archived copies in the table. */
export interface ExecutionHistories {
  live: LiveExecutionHistory;
  archive: ExecutionHistoryArchive;
}

export interface Audit extends ExecutionHistories {
  sources: AuditSources;
  prices: ModelPrices;
  /** The trace id of a task's delegation tree; only when the runtime traces. */
  traceOf?: ((taskId: string) => Promise<string | null>) | undefined;
}

/** The live and archived histories of the configuration's state machine (the archive function). */
export const buildExecutionHistories = (
  config: RuntimeConfig,
  env: NodeJS.ProcessEnv = process.env,
  dynamodb: DynamoDBClient = dynamoDbClientOf(config)
): ExecutionHistories => {
  const audit = AuditConfigSchema.parse(env);
  return {
    live: new StepFunctionsExecutionHistory({
      client: sfnClientOf(config),
      stateMachineArn: config.TINY_HARNESS_STATE_MACHINE_ARN,
    }),
    archive: new DynamoDbHistoryArchive({
      client: dynamodb,
      tableName: config.TINY_HARNESS_TABLE,
      retentionDays: audit.TINY_HARNESS_AUDIT_RETENTION_DAYS,
    }),
  };
};

/** A runtime the audit read model can be built over: its configuration and its loop's records. */
export interface AuditedRuntime {
  config: RuntimeConfig;
  loop: Pick<LoopDeps, 'store' | 'events'>;
  tracing?: Tracing | undefined;
  /** The runtime's table client, shared when it has one. */
  dynamodb?: DynamoDBClient | undefined;
}

/** A task's trace id, as its spans were given it (its tree's root, `TaskLineages`). */
const traceOfTasks = (tracing: Tracing | undefined) => {
  // Written out for esbuild to fold (tracing.ts): without tracing, no trace to name.
  if ((globalThis.tinyHarnessBundledTracing ?? true) && tracing?.enabled) {
    return async (taskId: string) => (await tracing.lineages.byId(taskId))?.traceId ?? null;
  }
  return undefined;
};

const built = new WeakMap<AuditedRuntime, Audit>();

/** The audit read model and archive over the runtime's table and state machine, built once. */
export const auditOf = (runtime: AuditedRuntime, env: NodeJS.ProcessEnv = process.env): Audit => {
  const known = built.get(runtime);
  if (known !== undefined) return known;
  const { config } = runtime;
  const dynamodb = runtime.dynamodb ?? dynamoDbClientOf(config);
  const histories = buildExecutionHistories(config, env, dynamodb);
  const result: Audit = {
    ...histories,
    sources: new StoreAuditSources({
      store: runtime.loop.store,
      events: runtime.loop.events,
      records: new DynamoDbTaskRecords({ client: dynamodb, tableName: config.TINY_HARNESS_TABLE }),
      ...histories,
    }),
    prices: config.TINY_HARNESS_MODEL_PRICES,
    traceOf: traceOfTasks(runtime.tracing),
  };
  built.set(runtime, result);
  return result;
};
