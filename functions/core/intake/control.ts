import { TaskState } from '@a2a-js/sdk';
import { NotAParticipantError, TaskClosedError } from '../errors.js';
import { unresolvedSubTasks } from '../loop/completion.js';
import type { LoopDeps } from '../loop/deps.js';
import { claimParkToken } from '../loop/park-token.js';
import { changeStatus, loadRecord, mutateRecord } from '../loop/records.js';
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

export interface CancelOutcome {
  /** The parked execution's token to fail, if it was parked; otherwise the execution to stop. */
  token: string | null;
  generation: number;
  /** Children not yet terminal: the caller cancels them too (the cancel cascades). */
  unresolvedChildren: SubTaskRow[];
}

/**
 * Cancels the task: CANCELED is persisted and emitted at once. Idempotent on an already
 * canceled task; a task in another terminal state cannot be canceled.
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
  if (state === TaskState.TASK_STATE_CANCELED) {
    return { token: null, generation: record.loop.generation, unresolvedChildren: [] };
  }
  if (isTerminalState(state)) throw new TaskClosedError(options.taskId);
  const token = record.loop.parkToken;
  const canceled = await changeStatus(
    deps,
    options.taskId,
    { state: TaskState.TASK_STATE_CANCELED },
    `cancel:${record.loop.generation}`,
    (current) => ({ ...current, loop: { ...current.loop, parkToken: null } })
  );
  return {
    token,
    generation: canceled.loop.generation,
    unresolvedChildren: unresolvedSubTasks(canceled),
  };
};
