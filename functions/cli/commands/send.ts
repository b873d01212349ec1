import { textTo } from '../../view/messages.js';
import type { Agent } from '../connection.js';
import type { Output } from '../output.js';
import { stateText } from '../render.js';
import { taskView } from '../task-view.js';

/** `tiny-harness send ID TEXT`: one message to a task; prints where the task is once it settles. */
export const sendToTask = async (
  agent: Agent,
  output: Output,
  taskId: string,
  text: string,
  options: { json: boolean }
): Promise<void> => {
  const result = await agent.client.sendMessage({
    tenant: '',
    message: textTo(taskId, text),
    configuration: undefined,
    metadata: undefined,
  });
  const task = 'status' in result ? result : await agent.client.getTask({ tenant: '', id: taskId });
  const view = taskView(task);
  if (options.json) {
    output.json(view);
    return;
  }
  output.line(`${view.id}  ${stateText(output.c, view.state, view.sub_state)}`);
  if (view.status_text !== '') output.line(view.status_text);
};
