/**
 * Per-client rate limiting for the local endpoint: one token bucket per client. API Gateway
 * throttles the cloud stage; this keeps `npm start` honest in the same way, so a runaway client
 * loop shows up as 429s locally before it does in the cloud.
 */

export interface ThrottleOptions {
  /** Steady rate: tokens added per minute. */
  ratePerMinute: number;
  /** Bucket size: requests a quiet client may make at once. */
  burst: number;
  /** Milliseconds since an epoch; `Date.now` by default (tests move their own clock). */
  now?: (() => number) | undefined;
  /** Buckets kept at most; the least recently used go first. @default 10_000 */
  maxClients?: number | undefined;
}

export const DEFAULT_THROTTLE = { ratePerMinute: 120, burst: 30 } as const;

export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface Throttle {
  /** Spends one token of `client`'s bucket, if it has one. */
  take(client: string): ThrottleDecision;
}

interface Bucket {
  tokens: number;
  at: number;
}

export const createThrottle = (options: ThrottleOptions): Throttle => {
  if (!(options.ratePerMinute > 0) || !(options.burst >= 1)) {
    throw new Error('throttle: ratePerMinute must be > 0 and burst >= 1');
  }
  const now = options.now ?? Date.now;
  const perMs = options.ratePerMinute / 60_000;
  const maxClients = options.maxClients ?? 10_000;
  // Insertion order doubles as recency: a bucket is re-inserted on every use.
  const buckets = new Map<string, Bucket>();

  return {
    take(client) {
      const at = now();
      const previous = buckets.get(client);
      const tokens =
        previous === undefined
          ? options.burst
          : Math.min(options.burst, previous.tokens + Math.max(0, at - previous.at) * perMs);
      buckets.delete(client);
      const allowed = tokens >= 1;
      buckets.set(client, { tokens: allowed ? tokens - 1 : tokens, at });
      if (buckets.size > maxClients) {
        const oldest = buckets.keys().next().value;
        if (oldest !== undefined) buckets.delete(oldest);
      }
      if (allowed) return { allowed: true };
      // A whole second at least: Retry-After is in seconds, and 0 would invite a hot loop.
      return {
        allowed: false,
        retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / perMs / 1000)),
      };
    },
  };
};
