/**
 * Pairs each Task handler call with the interpreter event that announced it. A Task override
 * gets only its effective input; the raw state input (needed to rehydrate) and the Map
 * iteration it runs in (needed to chain history events) arrive as `StateEntered`/`StateRetried`
 * events. The interpreter dispatches that event and calls the handler in the same synchronous
 * step, so per state name the calls come in the order of the events: a FIFO matches them.
 */
import type { Lane } from './history.js';

export interface Ticket {
  lane: Lane;
  rawInput: unknown;
}

export class TaskTickets {
  readonly #queues = new Map<string, Ticket[]>();

  push(stateName: string, ticket: Ticket): void {
    const queue = this.#queues.get(stateName);
    if (queue) queue.push(ticket);
    else this.#queues.set(stateName, [ticket]);
  }

  take(stateName: string): Ticket | undefined {
    return this.#queues.get(stateName)?.shift();
  }

  /** Drops the ticket of a call that never happened (the state failed on its input paths). */
  drop(stateName: string, lane: Lane): void {
    const queue = this.#queues.get(stateName);
    const at = queue?.findIndex((ticket) => ticket.lane === lane) ?? -1;
    if (queue && at >= 0) queue.splice(at, 1);
  }
}

/** One handler call's outcome, written once: by the handler wrapper or, on a timeout, by the event. */
export class TaskAttempt {
  #closed = false;

  /** True the first time only: the caller may write the outcome event. */
  close(): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    return true;
  }
}

export class TaskAttempts {
  readonly #open = new Map<string, TaskAttempt>();

  open(stateName: string, lane: Lane): TaskAttempt {
    const attempt = new TaskAttempt();
    this.#open.set(`${stateName}#${lane ?? ''}`, attempt);
    return attempt;
  }

  /** Closes the open attempt of a state that failed; true if it was still open. */
  closeOpen(stateName: string, lane: Lane): boolean {
    const key = `${stateName}#${lane ?? ''}`;
    const attempt = this.#open.get(key);
    this.#open.delete(key);
    return attempt?.close() ?? false;
  }
}
