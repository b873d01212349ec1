import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SFNClient } from '@aws-sdk/client-sfn';
import { z } from 'zod';
import { StoreAuditSources } from '../adapters/audit/audit-sources.js';
import { DynamoDbHistoryArchive } from '../adapters/audit/dynamodb-history-archive.js';
import { DynamoDbTaskRecords } from '../adapters/audit/dynamodb-task-records.js';
import { StepFunctionsExecutionHistory } from '../adapters/audit/step-functions-history.js';
import type { ExecutionHistoryArchive, LiveExecutionHistory } from '../core/audit/archive.js';
import type { AuditSources } from '../core/audit/sources.js';
import type { ModelPrices } from '../core/loop/usage.js';
import type { Runtime } from './runtime.js';

/** What the audit read model and the archive need, beside the runtime's own configuration. */
export const AuditConfigSchema = z.object({
  /** Days an archived execution history is kept after it closed; 0 keeps it as long as the task. */
  TINY_HARNESS_AUDIT_RETENTION_DAYS: z.coerce.number().int().min(0).default(0),
});

export interface Audit {
  sources: AuditSources;
  live: LiveExecutionHistory;
  archive: ExecutionHistoryArchive;
  prices: ModelPrices;
}

const built = new WeakMap<Runtime, Audit>();

/** The audit read model and archive over the runtime's table and state machine, built once. */
export const auditOf = (runtime: Runtime, env: NodeJS.ProcessEnv = process.env): Audit => {
  const known = built.get(runtime);
  if (known !== undefined) return known;
  const { config } = runtime;
  const audit = AuditConfigSchema.parse(env);
  const region = config.AWS_REGION;
  const local = { region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  const dynamodb = new DynamoDBClient(
    config.TINY_HARNESS_DYNAMODB_ENDPOINT
      ? { ...local, endpoint: config.TINY_HARNESS_DYNAMODB_ENDPOINT }
      : { region }
  );
  const sfn = new SFNClient(
    config.TINY_HARNESS_SFN_ENDPOINT
      ? { ...local, endpoint: config.TINY_HARNESS_SFN_ENDPOINT }
      : { region }
  );
  const table = { client: dynamodb, tableName: config.TINY_HARNESS_TABLE };
  const live = new StepFunctionsExecutionHistory({
    client: sfn,
    stateMachineArn: config.TINY_HARNESS_STATE_MACHINE_ARN,
  });
  const archive = new DynamoDbHistoryArchive({
    ...table,
    retentionDays: audit.TINY_HARNESS_AUDIT_RETENTION_DAYS,
  });
  const result: Audit = {
    sources: new StoreAuditSources({
      store: runtime.loop.store,
      events: runtime.loop.events,
      records: new DynamoDbTaskRecords(table),
      live,
      archive,
    }),
    live,
    archive,
    prices: config.TINY_HARNESS_MODEL_PRICES,
  };
  built.set(runtime, result);
  return result;
};
