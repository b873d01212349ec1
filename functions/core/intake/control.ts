import { TaskState } from '@a2a-js/sdk';
import { RoleRequiredError, TaskClosedError } from '../errors.js';
import { unresolvedSubTasks } from '../loop/completion.js';
import type { LoopDeps } from '../loop/deps.js';
import { agentMessage, statusText } from '../loop/messages.js';
import { withTokenClaimed } from '../loop/park-token.js';
import { type Change, changeOf, withLoop, withStatusChange } from '../loop/records.js';
import type { CommitWrites, TaskRecord } from '../ports/task-store.js';
import type { CanceledExecution, RemoteChildRef, Wake } from '../ports/waker.js';
import { isTerminalState, readExtension, stateOf } from '../task/a2a-task.js';
import { criterionLabel, unmetCriteria } from '../task/criteria.js';
import type { TaskExtension } from '../task/extension.schema.js';
import { namesParent } from '../task/links.js';
import { mayDo, requirePermission, whoMay } from '../task/permissions.js';
import { type Cascade, runCascade } from '../unit-of-work/cascade.js';
import { resultOf } from '../unit-of-work/interpreter.js';
import {
  answer,
  commitThen,
  type Facts,
  type NoEffects,
  type Operation,
  type Outcome,
} from '../unit-of-work/operation.js';
import { withTurnCut } from './cut-turn.js';

/** What the request that asked for a completion or a cancel writes with it (its audit row, ...). */
export type AlongWith = Pick<CommitWrites, 'audit' | 'pushConfigs' | 'seen'>;

export const withAlong = (change: Change, along: AlongWith | undefined): Change => ({
  ...change,
  audit: [...change.audit, ...(along?.audit ?? [])],
  pushConfigs: [...change.pushConfigs, ...(along?.pushConfigs ?? [])],
  seen: [...change.seen, ...(along?.seen ?? [])],
});

/**
 * A participant may complete the task if their role allows it, and, while acceptance criteria are
 * unmet, only if it also allows accepting them as they are: the request is refused at once rather
 * than parked on a verdict it cannot get.
 */
const requireCompletionRight = (extension: TaskExtension, participantId: string): void => {
  const participant = requirePermission(extension, participantId, 'complete');
  const unmet = unmetCriteria(extension);
  if (unmet.length > 0 && !mayDo(participant.role, 'accept_unmet_criteria')) {
    throw new RoleRequiredError(
      `${unmet.length} acceptance criterion(s) unmet (${unmet.map(criterionLabel).join(', ')}): only ${whoMay('accept_unmet_criteria')} may accept them by completing the task`
    );
  }
};

/**
 * A participant asks to complete the task (the control envelope). decide_completion runs with
 * `requested_by` in the loop's finish state: a parked task is woken for it, a turn in progress
 * is cut first (a new generation finishes from the last committed state). One commit.
 */
export function requestCompletion(deps: LoopDeps, options: CompletionRequest): Promise<Wake> {
  return resultOf(deps, {
    taskId: options.taskId,
    decide: decideCompletionRequest(options),
    wakes: (wake) => wake,
  });
}

interface CompletionRequest {
  taskId: string;
  participantId: string;
  reason: string | null;
  along?: AlongWith;
}

/** The decision on a completion request (pure): the request recorded, and the wake it needs. */
export const decideCompletionRequest =
  (options: CompletionRequest) =>
  ({ record, now }: Facts<NoEffects, never>): Outcome<Wake, NoEffects, never> => {
    requireCompletionRight(readExtension(record.task), options.participantId);
    if (isTerminalState(stateOf(record.task))) throw new TaskClosedError(options.taskId);
    const requested = withAlong(
      withLoop(changeOf(record), (loop) => ({
        ...loop,
        completionRequest: { requestedBy: options.participantId, reason: options.reason },
      })),
      options.along
    );
    const { change, token } = withTokenClaimed(requested);
    if (token !== null) {
      const { generation } = record.loop;
      return commitThen(record, change, {
        action: 'resume',
        token,
        taskId: options.taskId,
        generation,
      });
    }
    const cut = withTurnCut(change, now);
    return commitThen(record, cut, {
      action: 'cut',
      taskId: options.taskId,
      generation: cut.record.loop.generation,
    });
  };

export interface CancelOutcome {
  /** The task and every unresolved child on this harness, canceled with it (the cascade). */
  canceled: CanceledExecution[];
  /** Unresolved children on remote agents: the caller cancels them through their agent. */
  remoteChildren: RemoteChildRef[];
}

/** The task canceled (pure): CANCELED, the reason as status message, nobody may wake it. */
const withCanceled = (change: Change, reason: string | undefined, now: string): Change => {
  const { task, loop } = change.record;
  const message =
    reason === undefined
      ? undefined
      : agentMessage({
          messageId: `${task.id}:cancel:${loop.generation}`,
          taskId: task.id,
          contextId: task.contextId,
          text: statusText(reason),
        });
  return withLoop(
    withStatusChange(change, { state: TaskState.TASK_STATE_CANCELED, message }, now),
    (next) => ({ ...next, parkToken: null })
  );
};

/**
 * Who asks for a cancel: a participant (whose role must allow it), the cascade from a parent
 * (which reaches only a child naming that parent back), or the harness itself.
 */
type CancelRequester = { participantId: string } | { parentId: string } | { harness: true };

export interface CancelRequest {
  by: CancelRequester;
  reason: string | undefined;
  along?: AlongWith;
}

/** One task's cancel: the record as canceled and the token its execution was parked on. */
export type Canceled = { record: TaskRecord; token: string | null } | undefined;

/** The decision to cancel one task (pure); undefined when there is nothing to cancel. */
export const decideCancel =
  (taskId: string, { by, reason, along }: CancelRequest) =>
  ({ record, now }: Facts<NoEffects, never>): Outcome<Canceled, NoEffects, never> => {
    if ('participantId' in by) {
      requirePermission(readExtension(record.task), by.participantId, 'cancel');
    } else if ('parentId' in by && !namesParent(record.task, by.parentId)) {
      return answer(undefined);
    }
    const state = stateOf(record.task);
    if (state === TaskState.TASK_STATE_CANCELED) return answer(undefined);
    if (isTerminalState(state)) {
      // A child that ended on its own needs no cancel; a task asked for one cannot take it.
      if ('parentId' in by) return answer(undefined);
      throw new TaskClosedError(taskId);
    }
    const change = withAlong(withCanceled(changeOf(record), reason, now), along);
    return commitThen(record, change, { record: change.record, token: record.loop.parkToken });
  };

/** The cancel of one task as an operation (a child never stored needs none). */
export const cancelOperation = (
  taskId: string,
  request: CancelRequest
): Operation<Canceled, NoEffects, never> => ({
  taskId,
  ifAbsent: { result: undefined },
  decide: decideCancel(taskId, request),
});

/** The cancels a canceled task calls for: each unresolved child on this harness. */
export const childCancels = (canceled: Canceled): Operation<Canceled, NoEffects, never>[] => {
  if (canceled === undefined) return [];
  const taskId = canceled.record.task.id;
  return unresolvedSubTasks(canceled.record)
    .filter((row) => row.agent === null)
    .map((row) =>
      cancelOperation(row.task_id, {
        by: { parentId: taskId },
        reason: `parent ${taskId} was canceled`,
      })
    );
};

/** What a cancel and its cascade come to: the executions to stop, the remote children to cancel. */
export const cancelOutcomeOf = (all: readonly Canceled[]): CancelOutcome => {
  const done = all.filter((canceled) => canceled !== undefined);
  return {
    canceled: done.map(({ record, token }) => ({
      taskId: record.task.id,
      token,
      generation: record.loop.generation,
    })),
    remoteChildren: done.flatMap(({ record }) =>
      unresolvedSubTasks(record)
        .filter((row) => row.agent !== null)
        .map((row) => ({ parentId: record.task.id, row }))
    ),
  };
};

/** The cascade of a cancel: each unresolved local child canceled in turn, each its own commit. */
export const CANCEL_CASCADE: Cascade<Canceled, Canceled, CancelOutcome> = {
  fromFirst: childCancels,
  fromCascaded: childCancels,
  conclude: (first, cascaded) => cancelOutcomeOf([first, ...cascaded]),
  wakes: ({ canceled, remoteChildren }) => ({
    action: 'ended',
    executions: canceled,
    remoteChildren,
  }),
};

/**
 * Cancels the task and, with it, every unresolved child on this harness: CANCELED is persisted
 * and emitted at once for each. A task already canceled changes nothing (the caller says how to
 * answer); a task in another terminal state cannot be canceled (`TaskClosedError`).
 */
export function cancelTask(
  deps: LoopDeps,
  options: {
    taskId: string;
    requestedBy: string | null;
    reason?: string | undefined;
    along?: AlongWith;
  }
): Promise<CancelOutcome> {
  const request: CancelRequest = {
    by: options.requestedBy === null ? { harness: true } : { participantId: options.requestedBy },
    reason: options.reason,
    ...(options.along === undefined ? {} : { along: options.along }),
  };
  const first = { taskId: options.taskId, decide: decideCancel(options.taskId, request) };
  return runCascade(deps, first, CANCEL_CASCADE);
}
