/**
 * The wait after failure `attempt` (1-based) of something retried with exponential backoff:
 * `firstMs`, doubled after each further failure, never more than `maxMs`.
 */
export const exponentialDelayMs = (attempt: number, firstMs: number, maxMs: number): number =>
  Math.min(maxMs, firstMs * 2 ** (attempt - 1));
