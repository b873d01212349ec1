/** Time, injected so the core stays deterministic. */
export interface Clock {
  /** The current instant as an ISO-8601 UTC string (`2026-01-01T00:00:00.000Z`). */
  now(): string;
}
