import { describe, expect, it } from 'vitest';
import type { MigrationSlice } from '../../../functions/adapters/dynamodb/migrate-records.js';
import { createLogger } from '../../../functions/adapters/system/logger.js';
import {
  createMigrationHandler,
  MIGRATION_RESOURCE_ID,
  MIGRATION_WAIT_MS,
  TIME_KEPT_MS,
} from '../../../functions/handlers/migrate.js';

const STARTED = '2026-12-07T10:00:00.000Z';
const minutesIn = (minutes: number) => new Date(Date.parse(STARTED) + minutes * 60_000);

/**
 * A migration that takes `calls` calls to finish, moving one record each, begun at STARTED, and
 * its handler, at `clock` (a minute in, unless told).
 */
const migrationOf = (calls: number, clock: () => Date = () => minutesIn(1)) => {
  const seen: { run: string; hadTime: boolean }[] = [];
  const lines: string[] = [];
  const runtime = {
    logger: createLogger({ level: 'info', write: (line) => lines.push(line) }),
    migrate: async (run: string, hasTime: () => boolean): Promise<MigrationSlice> => {
      seen.push({ run, hadTime: hasTime() });
      const n = seen.length;
      return { found: n, moved: n, done: n >= calls, startedAt: STARTED };
    },
  };
  return { handler: createMigrationHandler(() => runtime, clock), seen, lines };
};

const context = (remainingMs: number) => ({ getRemainingTimeInMillis: () => remainingMs });
const request = (type: 'Create' | 'Update' | 'Delete') => ({
  RequestType: type,
  RequestId: 'req-7',
  ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:framework-onEvent',
  ResourceType: 'Custom::TaskRecordMigration',
  LogicalResourceId: 'RecordMigrationRun',
  ResourceProperties: { Bundle: 'abc.zip' },
  ...(type === 'Create' ? {} : { PhysicalResourceId: MIGRATION_RESOURCE_ID }),
});

describe('the migration at deployment (the provider framework’s calls)', () => {
  it('names the run on the first call, then migrates on each call that asks whether it is done, until it is', async () => {
    const { handler, seen, lines } = migrationOf(3);
    const first = await handler(request('Update'), context(900_000) as never);
    expect(first).toEqual({ PhysicalResourceId: MIGRATION_RESOURCE_ID, MigrationRun: 'req-7' });
    expect(seen).toEqual([]);
    // The framework merges the first call's answer into the event of each later call.
    const asking = { ...request('Update'), ...first };
    expect(await handler(asking, context(900_000) as never)).toEqual({ IsComplete: false });
    expect(await handler(asking, context(900_000) as never)).toEqual({ IsComplete: false });
    expect(await handler(asking, context(900_000) as never)).toEqual({
      IsComplete: true,
      Data: { Found: 3, Moved: 3, Done: true },
    });
    expect(seen.map((call) => call.run)).toEqual(['req-7', 'req-7', 'req-7']);
    expect(lines.map((line) => JSON.parse(line))).toEqual(
      [1, 2, 3].map((n) =>
        expect.objectContaining({
          message: 'task records migration',
          run: 'req-7',
          found: n,
          moved: n,
          done: n === 3,
        })
      )
    );
  });

  it('keeps time for the call to end: it stops scanning with less than TIME_KEPT_MS left', async () => {
    const { handler, seen } = migrationOf(1);
    const asking = { ...request('Create'), MigrationRun: 'req-7' };
    await handler(asking, context(TIME_KEPT_MS + 1) as never);
    await handler(asking, context(TIME_KEPT_MS) as never);
    expect(seen.map((call) => call.hadTime)).toEqual([true, false]);
  });

  it('lets the deployment go on, unfinished and said so, once it has waited MIGRATION_WAIT_MS', async () => {
    let now = minutesIn(1);
    const { handler, lines } = migrationOf(1_000, () => now);
    const asking = { ...request('Update'), MigrationRun: 'req-7' };
    expect(await handler(asking, context(900_000) as never)).toEqual({ IsComplete: false });
    now = new Date(Date.parse(STARTED) + MIGRATION_WAIT_MS - 1);
    expect(await handler(asking, context(900_000) as never)).toEqual({ IsComplete: false });
    now = new Date(Date.parse(STARTED) + MIGRATION_WAIT_MS);
    expect(await handler(asking, context(900_000) as never)).toEqual({
      IsComplete: true,
      Data: { Found: 3, Moved: 3, Done: false },
    });
    expect(JSON.parse(lines.at(-1) ?? '{}')).toMatchObject({
      level: 'warn',
      message: 'task records migration left unfinished: the deployment goes on',
      run: 'req-7',
    });
  });

  it('migrates nothing when the stack is deleted, and keeps the physical id', async () => {
    const { handler, seen } = migrationOf(1);
    const first = await handler(request('Delete'), context(900_000) as never);
    expect(first).toEqual({ PhysicalResourceId: MIGRATION_RESOURCE_ID, MigrationRun: null });
    expect(await handler({ ...request('Delete'), ...first }, context(900_000) as never)).toEqual({
      IsComplete: true,
    });
    expect(seen).toEqual([]);
  });

  it('refuses an event that is not the framework’s, naming what is wrong', async () => {
    const { handler, seen } = migrationOf(1);
    await expect(
      handler({ RequestType: 'Upgrade', RequestId: 'req-7' }, context(900_000) as never)
    ).rejects.toThrow(/RequestType/);
    expect(seen).toEqual([]);
  });
});
