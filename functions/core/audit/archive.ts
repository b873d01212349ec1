import type { HistoryEventLike } from './execution-history.js';

/** A closed execution's history as the archive keeps it. */
export interface ArchivedHistory {
  executionArn: string;
  /** How the execution ended: SUCCEEDED, FAILED, ABORTED, TIMED_OUT. */
  status: string;
  closedAt: string;
  events: readonly HistoryEventLike[];
}

/**
 * The durable copy of closed executions' histories: Step Functions deletes a Standard
 * execution's history 90 days after it closes (and the local engine forgets it on restart), the
 * auditor's record must last as long as the task.
 */
export interface ExecutionHistoryArchive {
  write(taskId: string, generation: number, history: ArchivedHistory): Promise<void>;
  read(taskId: string, generation: number): Promise<ArchivedHistory | undefined>;
}

/** The service's own history of an execution (GetExecutionHistory, every page). */
/** An execution's history as Step Functions holds it while it is kept. */
export interface LiveHistory {
  executionArn: string;
  events: HistoryEventLike[];
}

export interface LiveExecutionHistory {
  read(taskId: string, generation: number): Promise<LiveHistory | undefined>;
}

const CLOSING_EVENTS: Record<string, string> = {
  ExecutionSucceeded: 'SUCCEEDED',
  ExecutionFailed: 'FAILED',
  ExecutionAborted: 'ABORTED',
  ExecutionTimedOut: 'TIMED_OUT',
};

export type ArchiveOutcome = 'archived' | 'already archived' | 'not closed' | 'not found';

/** The archive's copy of an execution's history, once it has closed; undefined while it runs. */
export const archivedCopy = (live: LiveHistory): ArchivedHistory | undefined => {
  const closing = [...live.events].reverse().find((event) => CLOSING_EVENTS[event.type]);
  if (closing === undefined) return undefined;
  return {
    executionArn: live.executionArn,
    status: CLOSING_EVENTS[closing.type] ?? 'UNKNOWN',
    closedAt: new Date(
      closing.timestamp instanceof Date
        ? closing.timestamp.getTime()
        : typeof closing.timestamp === 'number'
          ? closing.timestamp * 1000
          : Date.parse(closing.timestamp)
    ).toISOString(),
    events: live.events,
  };
};
