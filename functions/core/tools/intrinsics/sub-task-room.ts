import { MAX_SUB_TASKS, type TaskExtension } from '../../task/extension.schema.js';
import { refuse, type ToolOutcome } from '../tool.js';

/** A refusal when the task has as many sub-tasks as one task may have; undefined otherwise. */
export const fullOfSubTasks = (extension: TaskExtension): ToolOutcome | undefined =>
  extension.sub_tasks.length < MAX_SUB_TASKS
    ? undefined
    : refuse(
        'tool.refused',
        `this task has ${extension.sub_tasks.length} sub-tasks, the most one task may have (${MAX_SUB_TASKS}): do the work here, or in a sub-task's own sub-tasks`
      );
