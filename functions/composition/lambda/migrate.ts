import './source-maps.js';
import {
  type MigrationSlice,
  migrateTaskRecordsResumably,
} from '../../adapters/dynamodb/migrate-records.js';
import type { Logger } from '../../core/ports/logger.js';
import { dynamoDbClientOf } from '../aws-clients.js';
import { loggerOf } from '../logger.js';
import { readRuntimeConfig } from '../runtime-config.js';

export interface MigrationRuntime {
  logger: Logger;
  /** One call of a deployment's migration run: it goes on while `hasTime()`. */
  migrate: (run: string, hasTime: () => boolean) => Promise<MigrationSlice>;
}

let memo: MigrationRuntime | undefined;

/** The migration function's composition root: the table, and nothing else. */
export const lambdaMigrationRuntime = (): MigrationRuntime => {
  if (memo === undefined) {
    const config = readRuntimeConfig();
    const client = dynamoDbClientOf(config);
    memo = {
      logger: loggerOf(config),
      migrate: (run, hasTime) =>
        migrateTaskRecordsResumably(client, config.TINY_HARNESS_TABLE, run, hasTime),
    };
  }
  return memo;
};
