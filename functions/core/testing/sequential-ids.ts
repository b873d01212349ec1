import type { Ids } from '../ports/ids.js';

/** Ids `<prefix>-1`, `<prefix>-2`, ... per prefix: deterministic runs for tests. */
export class SequentialIds implements Ids {
  readonly #counters = new Map<string, number>();

  next(prefix: string): string {
    const count = (this.#counters.get(prefix) ?? 0) + 1;
    this.#counters.set(prefix, count);
    return `${prefix}-${count}`;
  }
}
