import { Task } from '@a2a-js/sdk';
import type { Agent } from '../connection.js';
import { type HistoryPointRequest, pointText, resolvePoint } from '../history-point.js';
import type { Output } from '../output.js';
import { renderFrame, renderHistory } from '../render.js';
import { taskView } from '../task-view.js';

/**
 * `tiny-harness show ID`: the task and its conversation, each message with the id `fork --at`
 * takes; with a point, the task as it was then (GetTaskAt), its history through the point.
 */
export const showTask = async (
  agent: Agent,
  output: Output,
  taskId: string,
  point: HistoryPointRequest | undefined,
  options: { json: boolean }
): Promise<void> => {
  const resolved = point === undefined ? undefined : await resolvePoint(agent, taskId, point);
  const task =
    resolved === undefined
      ? await agent.client.getTask({ tenant: '', id: taskId })
      : await agent.taskAt(taskId, resolved);
  if (options.json) {
    output.json(Task.toJSON(task));
    return;
  }
  const { c } = output;
  if (resolved !== undefined)
    output.line(c.dim(`task ${task.id} as it was ${pointText(resolved)}`));
  output.line(renderFrame(taskView(task), c, renderHistory(task.history, c)));
};
