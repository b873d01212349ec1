import { agentIsAssignee } from '../loop/assignee.js';
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

/**
 * The change a child's record underwent, as the parent must hear it: one per change of the
 * child's state, sub-state or criteria count (met / total; anything else is not the parent's
 * business). Undefined when the task has no parent on this harness or none of these changed.
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
    sameCount(criteriaCount(readExtension(before.task)), criteria)
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
    changeKey: `v${after.version}`,
    order: after.version,
  };
};
