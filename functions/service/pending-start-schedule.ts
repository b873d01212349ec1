/**
 * When the pending-start sweep runs and what it sweeps (`pending-starts.ts`). A leaf: the CDK
 * stack schedules the sweep with the same figure `npm start`'s timer uses.
 */

/** How often the sweep runs: an EventBridge schedule in the cloud, a timer under `npm start`. */
export const PENDING_START_SWEEP_MINUTES = 1;

/**
 * How long a generation's start may stay pending before the sweep starts it: a starter that is
 * alive starts it within milliseconds of its commit, so a start pending this long was lost.
 */
export const PENDING_START_GRACE_MS = 60_000;
