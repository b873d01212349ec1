import type { LoggedEvent } from '../ports/event-log.js';
import type { TaskRecord } from '../ports/task-store.js';
import type { HistoryEventLike } from './execution-history.js';

/** One generation's execution history, as read (live or from the archive). */
export interface ExecutionHistoryRead {
  name: string;
  events: readonly HistoryEventLike[];
  /** `live` (GetExecutionHistory) or `archive` (the durable copy kept after it closed). */
  from: 'live' | 'archive';
}

/**
 * What the timeline reads, per task. A port of the audit read model: the store, the event log,
 * the task's records and the execution histories, live or archived.
 */
export interface AuditSources {
  task(taskId: string): Promise<TaskRecord | undefined>;
  /** The whole event log, in seq order. */
  log(taskId: string): Promise<LoggedEvent[]>;
  /** Every record of the task by key: model responses, tool invocations, compactions, intake rows. */
  records(taskId: string): Promise<Map<string, unknown>>;
  /** The text of the messages intake accepted, by message id (where the store still holds it). */
  messageTexts(taskId: string): Promise<Map<string, string>>;
  /** undefined when neither the service nor the archive has it any more. */
  executionHistory(taskId: string, generation: number): Promise<ExecutionHistoryRead | undefined>;
}
