/**
 * Timers that survive long Step Functions durations. Node's setTimeout takes a signed 32-bit
 * millisecond delay: anything above 2^31-1 ms (24.8 days) is replaced by 1 ms with a
 * TimeoutOverflowWarning, so a one-year task timeout fired after 84 ms in our measurement. We
 * never arm more than 24 days at once and re-arm until the real deadline.
 */

/** 24 days: safely under the 2^31-1 ms (≈ 24.86 days) setTimeout ceiling. */
export const MAX_TIMER_SECONDS = 24 * 24 * 60 * 60;
export const MAX_TIMER_MS = MAX_TIMER_SECONDS * 1000;

export interface DeadlineTimer {
  cancel(): void;
}

/**
 * Calls `onExpire` at `deadlineMs` (epoch ms). The timer is `unref()`ed: a parked task must not
 * keep a process alive on its own (the interpreter's pending Task promise decides that).
 */
export function armDeadline(
  deadlineMs: number,
  onExpire: () => void,
  now: () => number = Date.now
): DeadlineTimer {
  let handle: NodeJS.Timeout | undefined;
  // Always asynchronous, even when already due: callers finish registering before it fires.
  const schedule = () => {
    handle = setTimeout(fire, Math.min(Math.max(deadlineMs - now(), 0), MAX_TIMER_MS));
    handle.unref();
  };
  const fire = () => {
    handle = undefined;
    if (deadlineMs - now() > 0) schedule();
    else onExpire();
  };
  schedule();
  return {
    cancel: () => {
      if (handle) clearTimeout(handle);
      handle = undefined;
    },
  };
}
