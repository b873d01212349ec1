import type { Agent } from '../connection.js';
import type { Output } from '../output.js';
import { renderTimeline } from '../render.js';

/** `tiny-harness audit ID`: the auditor's timeline of a task and its sub-tasks. */
export const auditTask = async (
  agent: Agent,
  output: Output,
  taskId: string,
  options: { json: boolean; subTasks: boolean }
): Promise<void> => {
  const timeline = await agent.timeline(taskId, options.subTasks);
  if (options.json) output.json(timeline);
  else output.line(renderTimeline(timeline, output.c));
};
