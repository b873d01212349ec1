import { TaskState } from '@a2a-js/sdk';
import type { LoopDeps } from '../loop/deps.js';
import { claimParkToken } from '../loop/park-token.js';
import { emitTask, mutateRecord } from '../loop/records.js';
import { applyLinkedTaskState } from '../plan/plan.js';
import { isTerminalState, readExtension, stateName, withExtension } from '../task/a2a-task.js';
import type { EntityRef, Lifecycle, SubState, SubTaskRow } from '../task/extension.schema.js';
import type { Wake } from './wake.js';

/** A child's state change, as the stand-in (the stream handler, or a remote poller) saw it. */
export interface ChildChange {
  parentId: string;
  childId: string;
  /** The remote agent the child lives on; null for a child on this harness. */
  agent: EntityRef | null;
  state: TaskState;
  subState: SubState | undefined;
  childLifecycle: Lifecycle;
  /** A task created for a person (create_task_for_participant): its parking is never news. */
  participantTask: boolean;
  /** A remote agent replied: one turn of a remote child. */
  remoteTurn: boolean;
  /** The child's status text or last reply. */
  summary: string;
  /** Identifies this change (the child's record version): a redelivered change is a no-op. */
  changeKey: string;
  /**
   * Increases with every change of the child (its record version): a change older than one
   * already applied is ignored, so a redelivered batch never moves the row back in time.
   */
  order: number;
}

const SUMMARY_LIMIT = 500;

/**
 * Only news wakes the parent's model: an ending, a remote child's turn, or a delegated child
 * parking with a question. A child parking or resuming otherwise never wakes it.
 */
export const isNews = (change: ChildChange): boolean =>
  isTerminalState(change.state) ||
  change.remoteTurn ||
  (change.childLifecycle === 'delegated' &&
    !change.participantTask &&
    change.state === TaskState.TASK_STATE_INPUT_REQUIRED &&
    change.subState === 'awaiting-answer');

const noteText = (change: ChildChange): string => {
  const summary = change.summary.slice(0, SUMMARY_LIMIT);
  if (
    change.state === TaskState.TASK_STATE_INPUT_REQUIRED &&
    change.subState === 'awaiting-answer'
  ) {
    return `Sub-task ${change.childId} asks: ${summary}`;
  }
  return `Sub-task ${change.childId} is ${stateName(change.state)}: ${summary}`;
};

/**
 * The stand-in's rule on every state change of a child: the parent records the child's state and
 * sub-state on its row (and on linked plan steps) and emits its updated Task; news also becomes
 * a note and wakes the parent. Safe to receive twice.
 */
export const recordChildChange = async (deps: LoopDeps, change: ChildChange): Promise<Wake> => {
  const row: SubTaskRow = {
    task_id: change.childId,
    agent: change.agent,
    state: stateName(change.state),
    sub_state: change.subState ?? null,
  };
  let changed = false;
  const parent = await mutateRecord(deps, change.parentId, (current) => {
    const extension = readExtension(current.task);
    const existing = extension.sub_tasks.find((candidate) => candidate.task_id === change.childId);
    const applied = current.loop.childOrder[change.childId] ?? -1;
    const same =
      existing !== undefined &&
      existing.state === row.state &&
      existing.sub_state === row.sub_state;
    changed = !same && change.order > applied;
    if (!changed) return undefined;
    const subTasks =
      existing === undefined
        ? [...extension.sub_tasks, row]
        : extension.sub_tasks.map((candidate) =>
            candidate.task_id === change.childId
              ? { ...candidate, state: row.state, sub_state: row.sub_state }
              : candidate
          );
    const plan =
      extension.plan === null
        ? null
        : applyLinkedTaskState(extension.plan, change.childId, row.state);
    return {
      ...current,
      task: withExtension(current.task, { ...extension, sub_tasks: subTasks, plan }),
      loop: {
        ...current.loop,
        childOrder: { ...current.loop.childOrder, [change.childId]: change.order },
      },
    };
  });
  if (changed) await emitTask(deps, parent, `child:${change.childId}:${change.changeKey}`);
  if (
    !isNews(change) ||
    isTerminalState(parent.task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED)
  ) {
    return { action: 'none' };
  }
  const { duplicate } = await deps.store.enqueue(change.parentId, {
    kind: 'note',
    id: `child:${change.childId}:${change.changeKey}`,
    fromTaskId: change.childId,
    text: noteText(change),
    result: true,
  });
  if (duplicate) return { action: 'none' };
  const token = await claimParkToken(deps, change.parentId);
  return token === null ? { action: 'none' } : { action: 'resume', token };
};
