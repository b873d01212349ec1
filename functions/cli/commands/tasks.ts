import { listTaskViews, STATE_FILTERS } from '../../view/task-list.js';
import type { Agent } from '../connection.js';
import type { Output } from '../output.js';
import { renderTaskRow } from '../render.js';
import { taskView } from '../task-view.js';

export { STATE_FILTERS };

/** Why the list is empty: no task at all, or none that the filters let through. */
const nothingListed = (options: { state?: string; context?: string }): string => {
  const filters = [
    ...(options.state === undefined ? [] : [`in state ${options.state}`]),
    ...(options.context === undefined ? [] : [`in context ${options.context}`]),
  ];
  return filters.length === 0
    ? 'no tasks yet: `npx tiny-harness chat` starts one'
    : `no tasks ${filters.join(' and ')} (\`npx tiny-harness tasks\` lists them all)`;
};

/** `tiny-harness tasks`: the caller's tasks, newest first, filtered by state or context. */
export const listTasks = async (
  agent: Agent,
  output: Output,
  options: { state?: string; context?: string; limit: number; json: boolean }
): Promise<void> => {
  const views = await listTaskViews(agent.client, taskView, options);
  if (options.json) {
    output.json(views);
    return;
  }
  if (views.length === 0) {
    output.line(nothingListed(options));
    return;
  }
  for (const view of views) output.line(renderTaskRow(view, output.c));
};
