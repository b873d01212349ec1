import { reviveTask } from '../core/intake/revive.js';
import { failTask } from '../core/loop/fail-task.js';
import type { TurnRef } from '../core/loop/route.schema.js';
import { isTerminalState, stateOf } from '../core/task/a2a-task.js';
import type { ServiceDeps } from './deps.js';

/** How a turn execution ended without ending its task (what EventBridge reports). */
export type ExecutionEndStatus = 'FAILED' | 'TIMED_OUT' | 'ABORTED';

export interface ExecutionEnd {
  taskId: string;
  generation: number;
  status: ExecutionEndStatus;
  /** The execution's error and cause, as Step Functions reports them, if any. */
  error?: string | undefined;
  cause?: string | undefined;
}

export type Reconciliation =
  | { action: 'ignored'; why: 'unknown task' | 'task ended' | 'superseded' }
  | { action: 'failed'; reason: string }
  | { action: 'restarted'; ref: TurnRef };

const CAUSE_LIMIT = 300;

const WHY: Record<ExecutionEndStatus, string> = {
  FAILED: 'failed',
  TIMED_OUT: 'timed out',
  ABORTED: 'was stopped',
};

/** The task's failure reason: what ended, how, and Step Functions' own words, shortened. */
export const executionEndReason = (end: ExecutionEnd): string => {
  const detail = [end.error, end.cause].filter((part) => part !== undefined && part !== '');
  const said = detail.join(': ');
  const shortened = said.length > CAUSE_LIMIT ? `${said.slice(0, CAUSE_LIMIT)}…` : said;
  return `The turn execution ${end.taskId}-g${end.generation} ${WHY[end.status]} before the task ended${shortened === '' ? '' : ` (${shortened})`}.`;
};

/**
 * A turn execution ended without ending its task (a step failed past Fail Task, a States.Runtime
 * error, a timeout, a stop). Nobody may be left waiting on a task whose execution is gone: when a
 * message, a child's note or a completion request waits, a fresh generation picks the task up
 * from its last committed state; otherwise the task fails with a readable reason.
 *
 * Idempotent under redelivery: an ended task, or a generation other than the ended one, is left
 * alone, except the generation right after it, whose execution is started again (a no-op when it
 * exists), so a restart that was cut short before its start is finished by the redelivery.
 */
export const reconcileExecutionEnd = async (
  runtime: Pick<ServiceDeps, 'loop' | 'executions'>,
  end: ExecutionEnd
): Promise<Reconciliation> => {
  const { loop, executions } = runtime;
  const record = await loop.store.get(end.taskId);
  if (record === undefined) return { action: 'ignored', why: 'unknown task' };
  if (isTerminalState(stateOf(record.task))) return { action: 'ignored', why: 'task ended' };
  const { generation, turn } = record.loop;
  // The same input as the waker's start of a cut turn's next generation: a repeated start of a
  // running execution with the same name and input is a no-op.
  const restarted = (next: number): Extract<Reconciliation, { action: 'restarted' }> => ({
    action: 'restarted',
    ref: { taskId: end.taskId, generation: next, turn: 0 },
  });
  const restart = async (next: number): Promise<Reconciliation> => {
    const result = restarted(next);
    await executions.start(result.ref);
    return result;
  };
  if (generation === end.generation + 1) return restart(generation);
  if (generation !== end.generation) return { action: 'ignored', why: 'superseded' };

  const waiting = await loop.store.readInbox(end.taskId);
  if (waiting.length > 0 || record.loop.completionRequest !== null) {
    // The ended execution held any park token it had: it answers nobody now. The revival's cut is
    // followed by the loop's waker: the ended generation's stop is a no-op, the next one starts.
    const wake = await reviveTask(loop, end.taskId, end.generation, { parkedExecutionGone: true });
    return wake.action === 'cut'
      ? restarted(wake.generation)
      : { action: 'ignored', why: 'superseded' };
  }
  const reason = executionEndReason(end);
  const failed = await failTask(loop, { taskId: end.taskId, generation, turn }, reason);
  // Decided on a fresh read: the task may have ended, or moved on, since the one above.
  if (failed.route.next === 'superseded') return { action: 'ignored', why: 'superseded' };
  return { action: 'failed', reason };
};
