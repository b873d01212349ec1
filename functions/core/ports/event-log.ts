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
  /**
   * The transcript's last seq as the event's commit left it (`loop.historySeq`): what the task had
   * said and heard when it logged this, so a point in the history names the task as it was then.
   * Absent on events logged before it was kept.
   */
  historySeq?: number;
}

/**
 * The read side of a task's durable event log. Events are written by the task store's commits,
 * together with the change they report (`TaskCommit.events`), so the log never says what the
 * store did not do. The first event of a task is the `Task` itself.
 *
 * - `read` returns events with `seq > afterSeq`, ascending, gap-free; with a `limit`, at most
 *   that many (the first ones), so a reader of a long log takes it a page at a time. Each event
 *   carries the `historySeq` of the record its commit wrote (none for a commit without a record
 *   write, which logs no event).
 * - `lastSeq` returns the seq of the newest event (0 for a task with none), read consistently:
 *   a reader that starts after it misses nothing appended later (streams start there).
 */
export interface EventLog {
  read(taskId: string, afterSeq?: number, limit?: number): Promise<LoggedEvent[]>;
  lastSeq(taskId: string): Promise<number>;
}
