import { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { InvalidTaskRecordError } from '../errors.js';
import type { EventLog, LoggedEvent, TaskEvent } from '../ports/event-log.js';

/** An event as JSON text, its payload in ProtoJSON (what the DynamoDB adapter stores). */
const encodeEvent = (event: TaskEvent): string => {
  switch (event.kind) {
    case 'task':
      if (typeof event.task.id !== 'string' || event.task.id === '') {
        throw new InvalidTaskRecordError('refusing to store an invalid event: task without id');
      }
      return JSON.stringify({ kind: event.kind, task: Task.toJSON(event.task) });
    case 'status_update':
      return JSON.stringify({
        kind: event.kind,
        statusUpdate: TaskStatusUpdateEvent.toJSON(event.statusUpdate),
      });
    case 'artifact_update':
      return JSON.stringify({
        kind: event.kind,
        artifactUpdate: TaskArtifactUpdateEvent.toJSON(event.artifactUpdate),
      });
    case 'message':
      return JSON.stringify({ kind: event.kind, message: Message.toJSON(event.message) });
  }
};

const decodeEvent = (text: string): TaskEvent => {
  const stored = JSON.parse(text) as { kind: TaskEvent['kind'] } & Record<string, unknown>;
  switch (stored.kind) {
    case 'task':
      return { kind: 'task', task: Task.fromJSON(stored.task) };
    case 'status_update':
      return {
        kind: 'status_update',
        statusUpdate: TaskStatusUpdateEvent.fromJSON(stored.statusUpdate),
      };
    case 'artifact_update':
      return {
        kind: 'artifact_update',
        artifactUpdate: TaskArtifactUpdateEvent.fromJSON(stored.artifactUpdate),
      };
    case 'message':
      return { kind: 'message', message: Message.fromJSON(stored.message) };
  }
};

interface TaskLog {
  /** JSON text of the events; index i holds seq i + 1. */
  events: string[];
  /** Append key -> the seq of the first append with it. */
  keys: Map<string, number>;
}

/**
 * The in-memory `EventLog`: the reference behaviour of the port contract and the core's fake.
 * It passes the same conformance suite as the DynamoDB adapter (test/conformance).
 */
export class InMemoryEventLog implements EventLog {
  readonly #logs = new Map<string, TaskLog>();

  async append(taskId: string, event: TaskEvent, key?: string): Promise<number> {
    // Encoded first, as the DynamoDB log does: an event that would not read back is refused.
    const text = encodeEvent(event);
    let log = this.#logs.get(taskId);
    if (log === undefined) {
      log = { events: [], keys: new Map() };
      this.#logs.set(taskId, log);
    }
    if (key !== undefined) {
      const first = log.keys.get(key);
      if (first !== undefined) return first;
    }
    log.events.push(text);
    const seq = log.events.length;
    if (key !== undefined) log.keys.set(key, seq);
    return seq;
  }

  async read(taskId: string, afterSeq = 0, limit?: number): Promise<LoggedEvent[]> {
    const events = this.#logs.get(taskId)?.events ?? [];
    const after = events
      .map((text, index) => ({ seq: index + 1, event: decodeEvent(text) }))
      .filter((logged) => logged.seq > afterSeq);
    return limit === undefined ? after : after.slice(0, limit);
  }

  async lastSeq(taskId: string): Promise<number> {
    return this.#logs.get(taskId)?.events.length ?? 0;
  }
}
