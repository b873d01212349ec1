/**
 * One execution's history in the shape of `GetExecutionHistory`: numbered events, each with the
 * id of the event that led to it. Map iterations run side by side, so each iteration is a lane
 * whose events chain among themselves; an iteration's first event follows the Map's last event.
 */
import type { HistoryEvent, HistoryEventType } from '@aws-sdk/client-sfn';

/** A Map iteration index; undefined for the execution's own (top-level or Parallel) events. */
export type Lane = number | undefined;

export type EventDetails = Omit<HistoryEvent, 'id' | 'previousEventId' | 'timestamp' | 'type'>;

export class ExecutionHistory {
  readonly #events: HistoryEvent[];
  readonly #lanes = new Map<number, number>();
  #lastRoot: number;
  #closed = false;
  readonly #now: () => Date;

  constructor(saved: readonly HistoryEvent[] = [], now: () => Date = () => new Date()) {
    this.#events = [...saved];
    this.#lastRoot = saved.at(-1)?.id ?? 0;
    this.#now = now;
  }

  /** Appends an event; ignored once the execution has ended (late results of aborted work). */
  append(type: HistoryEventType, details: EventDetails = {}, lane?: Lane): void {
    if (this.#closed) return;
    const id = this.#events.length + 1;
    let previousEventId: number;
    if (lane === undefined) previousEventId = this.#events.at(-1)?.id ?? 0;
    else if (type === 'MapIterationStarted') previousEventId = this.#lastRoot;
    else previousEventId = this.#lanes.get(lane) ?? this.#lastRoot;
    this.#events.push({ timestamp: this.#now(), type, id, previousEventId, ...details });
    if (lane === undefined) this.#lastRoot = id;
    else this.#lanes.set(lane, id);
  }

  /** The final event has been written. */
  close(): void {
    this.#closed = true;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get events(): readonly HistoryEvent[] {
    return this.#events;
  }
}
