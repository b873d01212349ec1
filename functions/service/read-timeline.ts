import type { AuditSources } from '../core/audit/sources.js';
import type { ExecutionHistoryOfGeneration } from '../core/audit/task-entries.js';
import { buildTimeline, type TaskPart } from '../core/audit/timeline.js';
import type { Timeline } from '../core/audit/timeline.schema.js';
import { TaskNotFoundError } from '../core/errors.js';
import type { ModelPrices } from '../core/loop/usage.js';
import { readExtension, stateName, stateOf } from '../core/task/a2a-task.js';
import { namesParent } from '../core/task/links.js';

export interface ReadTimelineOptions {
  taskId: string;
  /** Only a participant of the task may read its timeline (and, through it, its sub-tasks'). */
  participantId: string;
  /** Follow sub-tasks on this harness (default true). */
  subTasks?: boolean;
  prices?: ModelPrices | undefined;
  /** The trace id of a task's delegation tree, when the deployment traces. */
  traceOf?: ((taskId: string) => Promise<string | null>) | undefined;
}

/** How deep a sub-task tree is followed: far beyond any real tree, short of a corrupt cycle. */
const MAX_DEPTH = 32;

/**
 * The timeline of a task and its sub-task tree. Access is the participants' of the task asked
 * about, as for every task operation: to anyone else it is "not found". Its sub-tasks are part
 * of its account, so a participant of the task reads theirs too.
 */
export const readTimeline = async (
  sources: AuditSources,
  options: ReadTimelineOptions
): Promise<Timeline> => {
  const root = await sources.task(options.taskId);
  if (
    root === undefined ||
    !readExtension(root.task).participants.some((p) => p.id === options.participantId)
  ) {
    throw new TaskNotFoundError(options.taskId);
  }
  const parts: TaskPart[] = [];
  const gaps: string[] = [];
  const seen = new Set<string>();

  const visit = async (taskId: string, depth: number, parentId: string | null) => {
    if (seen.has(taskId) || depth > MAX_DEPTH) return;
    seen.add(taskId);
    const record = taskId === root.task.id ? root : await sources.task(taskId);
    // One answer whether the child is missing or does not name this parent back: a row that
    // reaches an unrelated task tells nothing of it, not even that it exists.
    if (record === undefined || (parentId !== null && !namesParent(record.task, parentId))) {
      gaps.push(`sub-task ${taskId} is not in the store as a child of ${parentId}`);
      return;
    }
    const extension = readExtension(record.task);
    const [log, records, messageTexts] = await Promise.all([
      sources.log(taskId),
      sources.records(taskId),
      sources.messageTexts(taskId),
    ]);
    const executions: ExecutionHistoryOfGeneration[] = [];
    for (let generation = 1; generation <= record.loop.generation; generation++) {
      const history = await sources.executionHistory(taskId, generation);
      if (history === undefined) {
        // A generation that never started (a task that ended before it) has nothing to read.
        if (generation < record.loop.generation || record.loop.turn > 0)
          gaps.push(`the execution history of ${taskId} generation ${generation} is unavailable`);
        continue;
      }
      executions.push({ name: history.name, generation, events: history.events });
    }
    parts.push({
      taskId,
      depth,
      executions,
      log,
      records,
      messageTexts,
      prices: options.prices,
      task: {
        parent_id: parentId,
        name: extension.name,
        state: stateName(stateOf(record.task)),
        agent: null,
        generations: record.loop.generation,
      },
    });
    if (options.subTasks === false) return;
    for (const row of extension.sub_tasks) {
      if (row.agent !== null) {
        // A remote child reports what its agent tells the parent: its row, in the parent's log.
        parts.push({
          taskId: row.task_id,
          depth: depth + 1,
          executions: [],
          log: [],
          records: new Map(),
          messageTexts: new Map(),
          task: {
            parent_id: taskId,
            name: row.task_id,
            state: row.state,
            agent: row.agent.id,
            generations: 0,
          },
        });
        continue;
      }
      await visit(row.task_id, depth + 1, taskId);
    }
  };
  await visit(root.task.id, 0, null);
  const traceId = options.traceOf === undefined ? null : await options.traceOf(root.task.id);
  return buildTimeline(root.task.id, parts, gaps, traceId);
};
