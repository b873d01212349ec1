/**
 * The terminal renderer's reading of a task: the shared view (functions/view/task-view.ts) with
 * the extension validated by its zod source. Also the `--json` form of a task.
 */
import type { Task } from '@a2a-js/sdk';
import { TaskExtensionSchema } from '../core/task/extension.schema.js';
import { type ExtensionReader, type TaskView, taskView as viewOf } from '../view/task-view.js';

export const readExtension: ExtensionReader = (raw) => {
  const parsed = TaskExtensionSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
};

export const taskView = (task: Task): TaskView => viewOf(task, readExtension);
