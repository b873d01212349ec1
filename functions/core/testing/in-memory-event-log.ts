import type { EventLog, LoggedEvent } from '../ports/event-log.js';
import { decodeEvent } from './in-memory-event-codec.js';
import type { InMemoryTaskStore } from './in-memory-task-store.js';

/**
 * The in-memory `EventLog`: the events the in-memory store's commits wrote. The reference
 * behaviour of the port contract and the core's fake; it passes the same conformance suite as
 * the DynamoDB adapter (test/conformance).
 */
export class InMemoryEventLog implements EventLog {
  readonly #store: InMemoryTaskStore;

  constructor(store: InMemoryTaskStore) {
    this.#store = store;
  }

  async read(taskId: string, afterSeq = 0, limit?: number): Promise<LoggedEvent[]> {
    const partition = this.#store.existingPartition(taskId);
    const events = partition?.events ?? new Map<number, string>();
    const after = [...events.entries()]
      .filter(([seq]) => seq > afterSeq)
      .sort(([a], [b]) => a - b)
      .map(([seq, text]) => {
        const historySeq = partition?.eventMarks.get(seq);
        return {
          seq,
          event: decodeEvent(text),
          ...(historySeq === undefined ? {} : { historySeq }),
        };
      });
    return limit === undefined ? after : after.slice(0, limit);
  }

  async lastSeq(taskId: string): Promise<number> {
    return this.#store.existingPartition(taskId)?.record?.eventSeq ?? 0;
  }
}
