import type { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';

/** One entry of a task's durable event log: what streams, resubscribe and push replay. */
export type TaskEvent =
  | { kind: 'task'; task: Task }
  | { kind: 'status_update'; statusUpdate: TaskStatusUpdateEvent }
  | { kind: 'artifact_update'; artifactUpdate: TaskArtifactUpdateEvent }
  | { kind: 'message'; message: Message };

export interface LoggedEvent {
  seq: number;
  event: TaskEvent;
}

/**
 * The per-task event log. The first event of a task is the `Task` itself.
 *
 * - `append` MUST assign strictly increasing seqs per task (1, 2, ...). With a `key`, it MUST be
 *   idempotent: a second append with the same key returns the first seq and stores nothing.
 * - `read` returns events with `seq > afterSeq`, ascending; with a `limit`, at most that many
 *   (the first ones), so a reader of a long log takes it a page at a time.
 * - `lastSeq` returns the seq of the newest event (0 for a task with none), read consistently:
 *   a reader that starts after it misses nothing appended later (streams start there).
 */
export interface EventLog {
  append(taskId: string, event: TaskEvent, key?: string): Promise<number>;
  read(taskId: string, afterSeq?: number, limit?: number): Promise<LoggedEvent[]>;
  lastSeq(taskId: string): Promise<number>;
}
