import type { Clock } from '../ports/clock.js';

/** A clock that starts at a fixed instant and moves one second per reading. */
export class FixedClock implements Clock {
  #millis: number;

  constructor(start = '2026-01-01T00:00:00.000Z') {
    this.#millis = Date.parse(start);
  }

  now(): string {
    const instant = new Date(this.#millis).toISOString();
    this.#millis += 1000;
    return instant;
  }
}
