import { createLogUpdate } from 'log-update';
import { followTask } from '../../view/follow.js';
import { isTerminal, type TaskView } from '../../view/task-view.js';
import type { Agent } from '../connection.js';
import type { Output } from '../output.js';
import { changeLine, renderFrame } from '../render.js';

/**
 * `tiny-harness watch ID`: on a terminal, the task, its plan and its rows redrawn in place; else
 * one line per change (`--json`: one JSON object per line). Ends when the task does, or on Ctrl-C.
 */
export const watchTask = async (
  agent: Agent,
  output: Output,
  taskId: string,
  options: { json: boolean; signal: AbortSignal }
): Promise<TaskView | undefined> => {
  const live = output.tty && !options.json;
  const draw = live ? createLogUpdate(output.out) : undefined;
  let lastLine = '';
  let last: TaskView | undefined;
  for await (const view of followTask(agent, taskId, options.signal)) {
    last = view;
    if (options.json) {
      output.out.write(`${JSON.stringify(view)}\n`);
    } else if (draw !== undefined) {
      draw(renderFrame(view, output.c));
    } else {
      const line = changeLine(view);
      // The time stamp differs on every line; only a change of what the task says is a change.
      if (line.slice(9) !== lastLine.slice(9)) output.line(line);
      lastLine = line;
    }
  }
  draw?.done();
  if (last !== undefined && !isTerminal(last) && !options.json && !live) {
    output.line(`stopped watching; ${last.id} goes on`);
  }
  return last;
};
