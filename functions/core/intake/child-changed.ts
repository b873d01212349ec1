import { TaskState } from '@a2a-js/sdk';
import { budgetHoldersOf, spentOf } from '../loop/budget-account.js';
import type { LoopDeps } from '../loop/deps.js';
import { withTokenClaimed } from '../loop/park-token.js';
import {
  type Change,
  changeOf,
  withBudgetCredits,
  withLoop,
  withRecord,
  withTaskEvent,
} from '../loop/records.js';
import { EMPTY_USAGE, type ReportedUsage, type TaskUsage } from '../loop/usage.js';
import { boundedReport, childrenUsageOf, sameReport } from '../loop/usage-roll-up.js';
import { applyLinkedTaskState } from '../plan/plan.js';
import type { BudgetEntry, TaskRecord } from '../ports/task-store.js';
import type { Wake } from '../ports/waker.js';
import {
  isTerminalState,
  readExtension,
  stateName,
  stateOf,
  withExtension,
} from '../task/a2a-task.js';
import {
  BUDGET_LIMITS,
  type BudgetLimit,
  type CriteriaCount,
  type EntityRef,
  type Lifecycle,
  MAX_EXTENSION_BYTES,
  type SubState,
  type SubTaskRow,
} from '../task/extension.schema.js';
import { resultOf } from '../unit-of-work/interpreter.js';
import {
  answer,
  commitThen,
  type Facts,
  type NoEffects,
  type Outcome,
} from '../unit-of-work/operation.js';
import { jsonBytes } from '../utf8-bytes.js';

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
  /**
   * The harness made this child for this parent (its own record of the link says so: the child's
   * loop state, a remote child's link). A parent with no row for the child takes the change only
   * then: the row can lag the child's first change, but a link the harness did not make is never
   * followed.
   */
  linkedByHarness: boolean;
  /** The child's status text or last reply. */
  summary: string;
  /**
   * What a remote child's agent reports it has used (its whole tree); null or absent when it
   * reports nothing. What was not charged before is charged to the budgets the parent draws on.
   */
  reportedUsage?: TaskUsage | null | undefined;
  /**
   * What the child's whole tree has used, as of this change (null: a remote child whose agent
   * reports nothing); absent keeps what the parent has. The parent's tree usage is rolled up
   * from these.
   */
  usage?: ReportedUsage | null | undefined;
  /**
   * The child's acceptance criteria, met / total, when the stand-in can read them (a child on
   * this harness, a remote one that reports the task extension); absent keeps the row's.
   */
  criteria?: CriteriaCount | null | undefined;
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
 * A remote child's note carries what its agent returned (its final message and artifacts, cut by
 * its stand-in): the parent's model has no other way to read it.
 */
const REMOTE_NOTE_LIMIT = 8_200;

/**
 * Only news wakes the parent's model: an ending, a remote child's turn, or a delegated child
 * parking with a question (for an answer, or for a review of its unmet criteria). A child parking
 * or resuming otherwise never wakes it, nor does its criteria count moving.
 */
export const isNews = (change: ChildChange): boolean =>
  isTerminalState(change.state) ||
  change.remoteTurn ||
  (change.childLifecycle === 'delegated' &&
    !change.participantTask &&
    change.state === TaskState.TASK_STATE_INPUT_REQUIRED &&
    (change.subState === 'awaiting-answer' || change.subState === 'awaiting-review'));

const noteText = (change: ChildChange): string => {
  const summary = change.summary.slice(
    0,
    change.agent === null ? SUMMARY_LIMIT : REMOTE_NOTE_LIMIT
  );
  const child =
    change.agent === null
      ? `Sub-task ${change.childId}`
      : `Sub-task ${change.childId} (on agent ${change.agent.id})`;
  if (
    change.state === TaskState.TASK_STATE_INPUT_REQUIRED &&
    change.subState === 'awaiting-answer'
  ) {
    return `${child} asks: ${summary}`;
  }
  if (
    change.state === TaskState.TASK_STATE_INPUT_REQUIRED &&
    change.subState === 'awaiting-review'
  ) {
    return `${child} waits for a review of its acceptance criteria: ${summary}`;
  }
  if (change.remoteTurn) return `${child} replied (${stateName(change.state)}): ${summary}`;
  return `${child} is ${stateName(change.state)}: ${summary}`;
};

/** Why a child ended without completing, for its row: its own last word, cut. */
const reasonOf = (change: ChildChange): string | undefined =>
  isTerminalState(change.state) &&
  change.state !== TaskState.TASK_STATE_COMPLETED &&
  change.summary.trim() !== ''
    ? change.summary.slice(0, SUMMARY_LIMIT)
    : undefined;

const withoutReason = ({ reason: _reason, ...row }: SubTaskRow): SubTaskRow => row;

/**
 * What a remote child's report charges to the budgets its parent draws on (pure): the growth of
 * its reported usage since the last report charged, taken from each budget's limits, conditioned
 * on nothing (the calls were made). Undefined when the parent draws on no budget or nothing grew.
 */
const remoteCharge = (
  record: TaskRecord,
  change: ChildChange
): { reported: TaskUsage; credits: BudgetEntry[] } | undefined => {
  const reported = change.reportedUsage;
  if (change.agent === null || reported == null) return undefined;
  const holders = budgetHoldersOf(record);
  if (holders.length === 0) return undefined;
  const before = record.loop.remoteCharged[change.childId] ?? EMPTY_USAGE;
  const grown = Object.fromEntries(
    BUDGET_LIMITS.map((limit) => [limit, spentOf(reported, limit) - spentOf(before, limit)])
  ) as Record<BudgetLimit, number>;
  if (BUDGET_LIMITS.every((limit) => grown[limit] <= 0)) return undefined;
  const credits = holders
    .map(({ taskId, limits }) => ({
      taskId,
      amounts: Object.fromEntries(
        limits.filter((limit) => grown[limit] > 0).map((limit) => [limit, -grown[limit]])
      ),
    }))
    .filter(({ amounts }) => Object.keys(amounts).length > 0);
  return { reported, credits };
};

/** The parent's side of a child's change (pure); undefined when it changes nothing. */
export const withChildChange = (
  record: TaskRecord,
  change: ChildChange
): { change: Change; wake: 'claim' | 'none' } | undefined => {
  const applied = record.loop.childOrder[change.childId] ?? -1;
  // A redelivered or older change never moves the row back in time.
  if (change.order <= applied) return undefined;
  const extension = readExtension(record.task);
  const existing = extension.sub_tasks.find((candidate) => candidate.task_id === change.childId);
  if (existing === undefined && !change.linkedByHarness) return undefined;
  const reason = reasonOf(change);
  const usage = change.usage === undefined ? existing?.usage : boundedReport(change.usage);
  const row: SubTaskRow = {
    task_id: change.childId,
    agent: change.agent,
    state: stateName(change.state),
    sub_state: change.subState ?? null,
    criteria: change.criteria === undefined ? (existing?.criteria ?? null) : change.criteria,
    ...(reason === undefined ? {} : { reason }),
    ...(usage === undefined ? {} : { usage }),
  };
  const stateChanged =
    existing === undefined ||
    existing.state !== row.state ||
    existing.sub_state !== row.sub_state ||
    JSON.stringify(existing.criteria) !== JSON.stringify(row.criteria) ||
    existing.reason !== row.reason;
  const usageChanged = !sameReport(existing?.usage, row.usage);
  const rowChanged = stateChanged || usageChanged;
  const news = isNews(change) && !isTerminalState(stateOf(record.task));
  const charge = remoteCharge(record, change);
  if (!rowChanged && !news && charge === undefined) return undefined;

  let next = withLoop(changeOf(record), (loop) => ({
    ...loop,
    childOrder: { ...loop.childOrder, [change.childId]: change.order },
  }));
  if (charge !== undefined) {
    next = withBudgetCredits(
      withLoop(next, (loop) => ({
        ...loop,
        remoteCharged: { ...loop.remoteCharged, [change.childId]: charge.reported },
      })),
      charge.credits
    );
  }
  if (rowChanged) {
    const withRow = (taken: SubTaskRow) =>
      existing === undefined
        ? [...extension.sub_tasks, taken]
        : extension.sub_tasks.map((candidate) =>
            candidate.task_id === change.childId
              ? { ...withoutReason(candidate), ...taken, agent: candidate.agent }
              : candidate
          );
    // The task stays within what it holds (its Task events carry it whole): what would take it
    // past is left off the row, the reason first (the parent's model reads it in the note all
    // the same), then the report's unknown ids (the total stays).
    const fits = (rows: SubTaskRow[]) =>
      jsonBytes({ ...extension, sub_tasks: rows }) <= MAX_EXTENSION_BYTES;
    const bare = withoutReason(row);
    const leaner = [
      row,
      bare,
      bare.usage == null ? bare : { ...bare, usage: { ...bare.usage, unknown: [] } },
    ];
    const subTasks = leaner.map(withRow).find(fits) ?? withRow(leaner[2] ?? bare);
    const plan =
      extension.plan === null
        ? null
        : applyLinkedTaskState(extension.plan, change.childId, row.state);
    const updated = withLoop(
      withRecord(next, (current) => ({
        ...current,
        task: withExtension(current.task, { ...extension, sub_tasks: subTasks, plan }),
      })),
      (loop) => ({ ...loop, childrenUsage: childrenUsageOf(subTasks) })
    );
    // A report alone is no news to a renderer: the row's usage shows with the next Task.
    next = stateChanged ? withTaskEvent(updated) : updated;
  }
  if (!news) return { change: next, wake: 'none' };
  next = {
    ...next,
    enqueue: [
      ...next.enqueue,
      {
        kind: 'note',
        id: `child:${change.childId}:${change.changeKey}`,
        fromTaskId: change.childId,
        text: noteText(change),
        result: true,
      },
    ],
  };
  const claimed = withTokenClaimed(next);
  return { change: claimed.change, wake: claimed.token === null ? 'none' : 'claim' };
};

/** The parent's decision on a child's change (pure): the commit, and the wake it needs. */
export const decideChildChange =
  (change: ChildChange) =>
  ({ record }: Facts<NoEffects, never>): Outcome<Wake, NoEffects, never> => {
    const decision = withChildChange(record, change);
    if (decision === undefined) return answer({ action: 'none' });
    const { parkToken, generation } = record.loop;
    const news = decision.change.enqueue.length > 0;
    const wake: Wake =
      decision.wake === 'claim' && parkToken !== null
        ? { action: 'resume', token: parkToken, taskId: change.parentId, generation }
        : news
          ? { action: 'ensure-running', taskId: change.parentId, generation }
          : { action: 'none' };
    return commitThen(record, decision.change, wake);
  };

/**
 * The stand-in's rule on every state change of a child (and every change of its criteria count),
 * one commit on the parent: the parent records the child's state, sub-state and criteria count on
 * its row (and its state on linked plan steps) and emits its
 * updated Task; news also becomes a note and wakes the parent (its token claimed in the same
 * commit; a parent that is not parked takes the note at its next drain). Safe to receive twice.
 * A parent that is not in the store hears nothing: there is no one to tell, and a stream record
 * naming one must not fail its batch.
 */
export function recordChildChange(deps: LoopDeps, change: ChildChange): Promise<Wake> {
  return resultOf(deps, {
    taskId: change.parentId,
    ifAbsent: { result: { action: 'none' } },
    decide: decideChildChange(change),
    wakes: (wake) => wake,
  });
}
