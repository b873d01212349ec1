/** Identifier source, injected so the core stays deterministic. */
export interface Ids {
  /** A fresh, globally unique id. `prefix` is a readability hint (`task`, `ctx`, `msg`). */
  next(prefix: string): string;
}
