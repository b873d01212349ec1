import {
  generationStartOf,
  markStartDelivered,
  pendingStartOf,
} from '../core/loop/pending-start.js';
import type { TurnRef } from '../core/loop/route.schema.js';
import type { ServiceDeps } from './deps.js';
import { PENDING_START_GRACE_MS } from './pending-start-schedule.js';

export interface PendingStartSweep {
  /** Generations with no running execution, started (a start of one that ended is a no-op). */
  started: Array<TurnRef & { pendingSince: string }>;
  /** Generations whose execution runs but has not written through a turn yet (a renewal parked). */
  running: number;
}

/**
 * Starts every generation whose start has been pending past its grace at `now` (a starter died
 * between its commit and its StartExecution), and clears each pending start it saw through. An
 * execution that runs is left alone (its first write was not a turn's: a renewal that parked at
 * once); the start has the starter's execution name, so it is a no-op for one that ended before
 * writing (the reconciler has answered for it) or that the starter began meanwhile. Idempotent:
 * a second sweep finds nothing it has not already seen through.
 */
export const sweepPendingStarts = async (
  runtime: Pick<ServiceDeps, 'loop' | 'executions'>,
  now: Date,
  graceMs: number = PENDING_START_GRACE_MS
): Promise<PendingStartSweep> => {
  const { loop, executions } = runtime;
  const before = new Date(now.getTime() - graceMs).toISOString();
  const pending = await loop.store.list({ startPendingBefore: before });
  const swept: PendingStartSweep = { started: [], running: 0 };
  for (const record of pending) {
    const ref = generationStartOf(record);
    if (await executions.isRunning(ref.taskId, ref.generation)) {
      swept.running += 1;
    } else {
      await executions.start(ref);
      swept.started.push({ ...ref, pendingSince: pendingStartOf(record) ?? before });
    }
    await markStartDelivered(loop, ref.taskId, ref.generation);
  }
  return swept;
};
