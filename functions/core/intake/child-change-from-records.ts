import { agentIsAssignee } from '../loop/assignee.js';
import { reportedTreeOf, sameReport } from '../loop/usage-roll-up.js';
import type { TaskRecord } from '../ports/task-store.js';
import { lifecycleOf, readExtension, stateOf, subStateOf } from '../task/a2a-task.js';
import { criteriaCount } from '../task/criteria.js';
import type { CriteriaCount } from '../task/extension.schema.js';
import type { ChildChange } from './child-changed.js';

const statusText = (record: TaskRecord): string =>
  (record.task.status?.message?.parts ?? [])
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .join('\n');

const sameCount = (a: CriteriaCount, b: CriteriaCount) => a.met === b.met && a.total === b.total;

const sameReports = (before: TaskRecord, after: TaskRecord) =>
  sameReport(before.loop.childrenUsage, after.loop.childrenUsage);

/**
 * The change a child's record underwent, as the parent must hear it: one per change of the
 * child's state, sub-state or criteria count (met / total), or of what its own children last
 * reported of their usage; anything else is not the parent's business. Each carries what the
 * child's tree has used so far, so the parent's tree usage is rolled up as news arrives: the
 * child's own calls reach it at the child's next state change, a descendant's news at once.
 * Undefined when the task has no parent on this harness or none of these changed.
 */
export const childChangeFromRecords = (
  before: TaskRecord | undefined,
  after: TaskRecord,
  agentId: string
): ChildChange | undefined => {
  const extension = readExtension(after.task);
  const parent = extension.parent_tasks.find((ref) => ref.agent === null);
  if (parent === undefined) return undefined;
  const state = stateOf(after.task);
  const subState = subStateOf(after.task);
  const criteria = criteriaCount(extension);
  if (
    before !== undefined &&
    stateOf(before.task) === state &&
    subStateOf(before.task) === subState &&
    sameCount(criteriaCount(readExtension(before.task)), criteria) &&
    sameReports(before, after)
  ) {
    return undefined;
  }
  return {
    parentId: parent.task_id,
    childId: after.task.id,
    agent: null,
    state,
    subState,
    childLifecycle: lifecycleOf(extension),
    participantTask: !agentIsAssignee(extension, agentId),
    remoteTurn: false,
    linkedByHarness: after.loop.parentTaskId === parent.task_id,
    summary: statusText(after),
    criteria,
    usage: reportedTreeOf(after),
    changeKey: `v${after.version}`,
    order: after.version,
  };
};
