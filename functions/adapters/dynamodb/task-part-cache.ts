import type { TaskPart } from './table.js';

/** What the cache holds at most, in characters of the parts' JSON (about 2 bytes of heap each). */
export const DEFAULT_PART_CACHE_CHARACTERS = 8_000_000;

/** A value frozen all through: a part held is shared by every record read from it. */
const frozen = <T>(value: T): T => {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const inner of Object.values(value)) frozen(inner);
  return Object.freeze(value);
};

interface Entry {
  revision: number;
  value: unknown;
  characters: number;
}

/**
 * The parts of large tasks this process has read, by task, part and revision: a record that names
 * a part of a revision held here is read without it. A part is held only as a read found it (its
 * item of that revision), and a revision is the record version that wrote the part, so a part
 * held is the part stored for as long as the record names that revision. A part held is frozen:
 * every record read from it shares it. The least recently used go first once the cache holds more
 * than its limit.
 */
export class TaskPartCache {
  readonly #entries = new Map<string, Entry>();
  readonly #limit: number;
  #characters = 0;

  constructor(limit: number = DEFAULT_PART_CACHE_CHARACTERS) {
    this.#limit = limit;
  }

  /** The part of that revision, if held (a revision of 0 is never held: it names no write). */
  get(taskId: string, part: TaskPart, revision: number): unknown | undefined {
    const key = `${taskId}\n${part}`;
    const entry = this.#entries.get(key);
    if (entry === undefined || revision === 0 || entry.revision !== revision) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Holds a part as read: its value, of its revision, and its JSON's length. */
  put(taskId: string, part: TaskPart, revision: number, value: unknown, characters: number): void {
    if (revision === 0 || characters > this.#limit) return;
    const key = `${taskId}\n${part}`;
    this.#forget(key);
    this.#entries.set(key, { revision, value: frozen(value), characters });
    this.#characters += characters;
    for (const [oldest] of this.#entries) {
      if (this.#characters <= this.#limit) break;
      this.#forget(oldest);
    }
  }

  /** Characters held. */
  get characters(): number {
    return this.#characters;
  }

  #forget(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#characters -= entry.characters;
  }
}
