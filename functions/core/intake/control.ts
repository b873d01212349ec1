import { TaskState } from '@a2a-js/sdk';
import { NotAParticipantError, TaskClosedError } from '../errors.js';
import { unresolvedSubTasks } from '../loop/completion.js';
import type { LoopDeps } from '../loop/deps.js';
import { agentMessage } from '../loop/messages.js';
import { claimParkToken } from '../loop/park-token.js';
import { changeStatus, loadRecord, mutateRecord } from '../loop/records.js';
import type { TaskRecord } from '../ports/task-store.js';
import { isTerminalState, readExtension, stateOf } from '../task/a2a-task.js';
import type { SubTaskRow } from '../task/extension.schema.js';
import { cutTurn } from './cut-turn.js';
import type { Wake } from './wake.js';

const requireParticipant = (deps: LoopDeps, taskId: string, participantId: string) =>
  loadRecord(deps, taskId).then((record) => {
    if (!readExtension(record.task).participants.some((p) => p.id === participantId)) {
      throw new NotAParticipantError(`${participantId} is not a participant of ${taskId}`);
    }
    return record;
  });

/** Wakes a parked task, or cuts the turn a running one is in. */
const wakeOrCut = async (deps: LoopDeps, taskId: string, parkedBefore: boolean): Promise<Wake> => {
  const token = await claimParkToken(deps, taskId);
  if (token !== null) return { action: 'resume', token };
  if (parkedBefore) return { action: 'none' };
  const ref = await cutTurn(deps, taskId);
  return { action: 'cut', taskId, generation: ref.generation };
};

/**
 * A participant asks to complete the task (the control envelope). decide_completion runs with
 * `requested_by` in the loop's finish state; a turn in progress is cut first.
 */
export const requestCompletion = async (
  deps: LoopDeps,
  options: { taskId: string; participantId: string; reason: string | null }
): Promise<Wake> => {
  const record = await requireParticipant(deps, options.taskId, options.participantId);
  if (isTerminalState(stateOf(record.task))) throw new TaskClosedError(options.taskId);
  await mutateRecord(deps, options.taskId, (current) => ({
    ...current,
    loop: {
      ...current.loop,
      completionRequest: { requestedBy: options.participantId, reason: options.reason },
    },
  }));
  return wakeOrCut(deps, options.taskId, record.loop.parkToken !== null);
};

/** One canceled task's execution: resume it with the token if parked, else stop it. */
export interface CanceledExecution {
  taskId: string;
  token: string | null;
  generation: number;
}

export interface CancelOutcome {
  /** The task and every unresolved child on this harness, canceled with it (the cascade). */
  canceled: CanceledExecution[];
  /** Unresolved children on remote agents: the caller cancels them through their agent. */
  remoteChildren: SubTaskRow[];
}

const cancelOne = async (
  deps: LoopDeps,
  record: TaskRecord,
  reason: string | undefined
): Promise<CancelOutcome> => {
  const token = record.loop.parkToken;
  const message =
    reason === undefined
      ? undefined
      : agentMessage({
          messageId: `${record.task.id}:cancel:${record.loop.generation}`,
          taskId: record.task.id,
          contextId: record.task.contextId,
          text: reason,
        });
  const canceled = await changeStatus(
    deps,
    record.task.id,
    { state: TaskState.TASK_STATE_CANCELED, message },
    `cancel:${record.loop.generation}`,
    (current) => ({ ...current, loop: { ...current.loop, parkToken: null } })
  );
  const outcome: CancelOutcome = {
    canceled: [{ taskId: record.task.id, token, generation: canceled.loop.generation }],
    remoteChildren: [],
  };
  for (const row of unresolvedSubTasks(canceled)) {
    if (row.agent !== null) {
      outcome.remoteChildren.push(row);
      continue;
    }
    const child = await deps.store.get(row.task_id);
    if (child === undefined || isTerminalState(stateOf(child.task))) continue;
    const cascaded = await cancelOne(deps, child, `parent ${record.task.id} was canceled`);
    outcome.canceled.push(...cascaded.canceled);
    outcome.remoteChildren.push(...cascaded.remoteChildren);
  }
  return outcome;
};

/**
 * Cancels the task and, with it, every unresolved child on this harness: CANCELED is persisted
 * and emitted at once for each. Idempotent on an already canceled task; a task in another
 * terminal state cannot be canceled.
 */
export const cancelTask = async (
  deps: LoopDeps,
  options: { taskId: string; requestedBy: string | null; reason?: string | undefined }
): Promise<CancelOutcome> => {
  const record =
    options.requestedBy === null
      ? await loadRecord(deps, options.taskId)
      : await requireParticipant(deps, options.taskId, options.requestedBy);
  const state = stateOf(record.task);
  if (state === TaskState.TASK_STATE_CANCELED) return { canceled: [], remoteChildren: [] };
  if (isTerminalState(state)) throw new TaskClosedError(options.taskId);
  return cancelOne(deps, record, options.reason);
};
