import { type Task, TaskState } from '@a2a-js/sdk';
import type { EventLog, LoggedEvent, TaskEvent } from '../core/ports/event-log.js';
import type { TaskRecord } from '../core/ports/task-store.js';
import { isTerminalState } from '../core/task/a2a-task.js';
import type { TaskWatch } from './task-watch.js';

/** What a stream carries: the task's logged events (the snapshot first), and idle keep-alives. */
export type StreamItem = { kind: 'event'; seq: number; event: TaskEvent } | { kind: 'keep-alive' };

export const INTERRUPTED_STATES: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
]);

/**
 * Settled: ended, or interrupted and parked after message `inboxSeq` was read (no turn is in
 * flight for it, and the execution waits on its token). A blocking SendMessage answers, and a
 * SendStreamingMessage stream ends, once the task is settled (A2A §3.2.2, §3.1.2).
 */
export const isSettled = (record: TaskRecord, inboxSeq: number): boolean => {
  const state = record.task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
  if (isTerminalState(state)) return true;
  return (
    INTERRUPTED_STATES.has(state) &&
    record.loop.inboxCursor >= inboxSeq &&
    record.loop.parkToken !== null
  );
};

/**
 * When a stream ends, besides a terminal status (which always ends it):
 * - `next-pause`: at the first interrupted status logged after the stream started (SubscribeToTask:
 *   the follower waits for the task's next pause, even when it is paused now).
 * - `settled`: once the task has read message `inboxSeq` and parked again (SendStreamingMessage:
 *   a pause that came before the message was read does not end the sender's stream).
 */
export type StreamEnd = { kind: 'next-pause' } | { kind: 'settled'; inboxSeq: number };

export interface StreamTiming {
  /** How often the log is read for new events (the reference polls every 250 ms). */
  pollIntervalMs: number;
  /** A comment frame after this much silence, so idle proxies keep the connection open. */
  keepAliveMs: number;
  /**
   * The stream closes after this long (a client reconnects with `Last-Event-ID`): Lambda and the
   * REST API's stream mode end a response at 15 minutes, and a clean end beats a cut.
   */
  maxDurationMs: number;
}

/** Lambda's: the reference's poll, a keep-alive well inside idle timeouts, a clean end at 14 min. */
export const DEFAULT_STREAM_TIMING: StreamTiming = {
  pollIntervalMs: 250,
  keepAliveMs: 15_000,
  maxDurationMs: 14 * 60_000,
};

export interface FollowTask {
  taskId: string;
  /** The first event: the task as it is when the stream starts (A2A §3.1.6). */
  snapshot: Task;
  /** Logged events after this seq follow the snapshot (0 replays the log from its start). */
  replayAfter: number;
  /** Only events after this seq can end the stream: replayed pauses do not. */
  endAfter: number;
  end: StreamEnd;
  events: Pick<EventLog, 'read'>;
  readRecord(taskId: string): Promise<TaskRecord | undefined>;
  timing: StreamTiming;
  /** Watches the task's writes, where they are made in this process: the log is read on each. */
  watchWrites?: (taskId: string) => TaskWatch;
  /** Why the stream ended, once it has (for the log line). */
  onEnd?: (reason: StreamEndReason, sent: number) => void;
}

/** Why a stream ended; `client-gone` when the client stopped reading, `failed` on an error. */
export type StreamEndReason =
  | 'terminal'
  | 'paused'
  | 'message'
  | 'max-duration'
  | 'task-gone'
  | 'client-gone'
  | 'failed';

/**
 * Events read from the log at a time: a replay of a long log is sent a page at a time, never
 * held in memory whole (a years-long task logs tens of thousands of events).
 */
export const LOG_PAGE = 100;

/** Everything logged after `afterSeq` so far, read a page at a time until a short page. */
async function* loggedAfter(
  events: Pick<EventLog, 'read'>,
  taskId: string,
  afterSeq: number
): AsyncGenerator<LoggedEvent> {
  let cursor = afterSeq;
  for (;;) {
    const page = await events.read(taskId, cursor, LOG_PAGE);
    yield* page;
    if (page.length < LOG_PAGE) return;
    cursor = page.at(-1)?.seq ?? cursor;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const stateCarried = (event: TaskEvent): TaskState | undefined => {
  if (event.kind === 'status_update') return event.statusUpdate.status?.state;
  if (event.kind === 'task') return event.task.status?.state;
  return undefined;
};

/**
 * Why an event logged after the stream started ends it, if it does. Only status updates (and a bare
 * message, which A2A treats as a final answer) end a stream: a `Task` event re-sent for a plan or
 * sub-task change carries the state the task already had.
 */
const endingOf = (event: TaskEvent, end: StreamEnd): StreamEndReason | undefined => {
  if (event.kind === 'message') return 'message';
  if (event.kind !== 'status_update') return undefined;
  const state = event.statusUpdate.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
  if (isTerminalState(state)) return 'terminal';
  if (end.kind === 'next-pause' && INTERRUPTED_STATES.has(state)) return 'paused';
  return undefined;
};

/**
 * Follows a task's durable event log: the snapshot, then every logged event after `replayAfter`
 * in seq order, until the task ends or pauses as `end` says. Everything comes from the log, not
 * from memory, so any number of streams on any instance see the same events in the same order,
 * and a stream opened after a restart replays what happened before it.
 */
export async function* followTask(follow: FollowTask): AsyncGenerator<StreamItem> {
  const { taskId, end, timing } = follow;
  const writes = follow.watchWrites?.(taskId);
  const started = Date.now();
  let sent = 0;
  let lastSentAt = started;
  let cursor = follow.replayAfter;
  let newestState = follow.snapshot.status?.state;
  let reason: StreamEndReason | undefined;
  const send = (item: StreamItem): StreamItem => {
    lastSentAt = Date.now();
    if (item.kind === 'event') sent++;
    return item;
  };
  try {
    yield send({
      kind: 'event',
      seq: follow.replayAfter,
      event: { kind: 'task', task: follow.snapshot },
    });
    while (reason === undefined) {
      for await (const logged of loggedAfter(follow.events, taskId, cursor)) {
        cursor = logged.seq;
        yield send({ kind: 'event', seq: logged.seq, event: logged.event });
        if (logged.seq <= follow.endAfter) continue;
        newestState = stateCarried(logged.event) ?? newestState;
        reason = endingOf(logged.event, end);
        if (reason !== undefined) return;
      }
      if (
        end.kind === 'settled' &&
        newestState !== undefined &&
        INTERRUPTED_STATES.has(newestState)
      ) {
        const record = await follow.readRecord(taskId);
        if (record === undefined) reason = 'task-gone';
        else if (isSettled(record, end.inboxSeq)) reason = 'paused';
        if (reason !== undefined) {
          // The task settled after the last read: what it logged on the way (its status is logged
          // before the token is stored) is sent before the stream ends.
          for await (const logged of loggedAfter(follow.events, taskId, cursor)) {
            yield send({ kind: 'event', seq: logged.seq, event: logged.event });
          }
          return;
        }
      }
      const now = Date.now();
      if (now - started >= timing.maxDurationMs) {
        reason = 'max-duration';
        return;
      }
      if (now - lastSentAt >= timing.keepAliveMs) yield send({ kind: 'keep-alive' });
      await (writes === undefined
        ? sleep(timing.pollIntervalMs)
        : writes.next(timing.pollIntervalMs));
    }
  } catch (error) {
    reason = 'failed';
    throw error;
  } finally {
    // A generator closed from outside (the response was destroyed) runs only this block.
    writes?.close();
    follow.onEnd?.(reason ?? 'client-gone', sent);
  }
}
