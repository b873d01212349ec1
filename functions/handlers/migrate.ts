import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import * as z from 'zod';
import { lambdaMigrationRuntime, type MigrationRuntime } from '../composition/lambda/migrate.js';

/** The custom resource's physical id: one migration resource per stack. */
export const MIGRATION_RESOURCE_ID = 'task-records-migration';

/**
 * A call leaves itself this much of its invocation's time (a scan page and its records' moves,
 * then the write of its place): the next call goes on from there.
 */
export const TIME_KEPT_MS = 120_000;

/**
 * How long a deployment waits for its migration: past it, the run says it is complete, unfinished
 * (`Done: false`), and the deployment goes on. CloudFormation waits for a custom resource an hour
 * at most, and the call that finds the time past may have run 13 minutes (a 15-minute invocation
 * less `TIME_KEPT_MS`): so the migration never fails a deployment, nor sends it into a rollback,
 * by taking long. The records it has not reached are read as they are, and move at their next
 * write or in the next deployment's run.
 */
export const MIGRATION_WAIT_MS = 40 * 60_000;

/**
 * What CloudFormation's custom resource provider framework sends, as far as the migration reads
 * it. The first call of an event (onEvent) has no `MigrationRun`; the ones that ask whether it is
 * done (isComplete) carry the first one's answer, merged in by the framework.
 */
export const MigrationEventSchema = z.object({
  RequestType: z.enum(['Create', 'Update', 'Delete']),
  RequestId: z.string().min(1),
  PhysicalResourceId: z.string().min(1).optional(),
  /** The deployment's run id, or null for a Delete: nothing to migrate when the stack goes. */
  MigrationRun: z.string().min(1).nullable().optional(),
});

/**
 * The migration of a deployment (cdk/constructs/record-migration.ts). Its first call names the
 * run (the request's id: a deployment's calls share it, a later deployment migrates again); each
 * later call, while it has time, writes the records an earlier build stored as this build does,
 * and says whether the table's scan is at its end. The deployment waits until it is (the framework asks
 * again every few seconds), or `MIGRATION_WAIT_MS`: records not yet written are read as they are.
 */
export const createMigrationHandler = (
  runtime: () => MigrationRuntime,
  now: () => Date = () => new Date()
) =>
  middy(async (raw: unknown, context: Pick<Context, 'getRemainingTimeInMillis'>) => {
    const event = MigrationEventSchema.parse(raw);
    if (event.MigrationRun === undefined) {
      return {
        PhysicalResourceId:
          event.RequestType === 'Delete'
            ? (event.PhysicalResourceId ?? MIGRATION_RESOURCE_ID)
            : MIGRATION_RESOURCE_ID,
        MigrationRun: event.RequestType === 'Delete' ? null : event.RequestId,
      };
    }
    if (event.MigrationRun === null) return { IsComplete: true };
    const { logger, migrate } = runtime();
    const slice = await migrate(
      event.MigrationRun,
      () => context.getRemainingTimeInMillis() > TIME_KEPT_MS
    );
    logger.info('task records migration', { run: event.MigrationRun, ...slice });
    const data = { Found: slice.found, Moved: slice.moved, Done: slice.done };
    if (slice.done) return { IsComplete: true, Data: data };
    if (now().getTime() - Date.parse(slice.startedAt) < MIGRATION_WAIT_MS) {
      return { IsComplete: false };
    }
    logger.warn('task records migration left unfinished: the deployment goes on', {
      run: event.MigrationRun,
      found: slice.found,
      moved: slice.moved,
      waitedMs: MIGRATION_WAIT_MS,
    });
    return { IsComplete: true, Data: data };
  });

export const handler = createMigrationHandler(lambdaMigrationRuntime);
