import { exponentialDelayMs } from '../../core/exponential-delay.js';

/** The longest pause before a retry, however many conflicts came before it. */
export const MAX_CONFLICT_PAUSE_MS = 100;

/**
 * How long to wait before deciding again after the `attempt`-th conflict: a random time up to
 * 2 ms × 2^attempt, at most MAX_CONFLICT_PAUSE_MS ("full jitter"). Writers that lost the same race
 * (fifty senders to one parked task, say) then come back at different moments instead of all
 * racing again, and one that keeps losing waits longer each time. `random` is in [0, 1).
 */
export const conflictPauseMs = (attempt: number, random: number): number =>
  random * exponentialDelayMs(attempt, 4, MAX_CONFLICT_PAUSE_MS);

export const pauseAfterConflict = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, conflictPauseMs(attempt, Math.random())));
