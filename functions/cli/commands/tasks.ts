import { TaskState, taskStateFromJSON } from '@a2a-js/sdk';
import { type Agent, CliError } from '../connection.js';
import type { Output } from '../output.js';
import { renderTaskRow } from '../render.js';
import { type TaskView, taskView } from '../task-view.js';

export const STATE_FILTERS = [
  'submitted',
  'working',
  'input-required',
  'auth-required',
  'completed',
  'failed',
  'canceled',
  'rejected',
] as const;

const stateOf = (filter: string | undefined): TaskState => {
  if (filter === undefined) return TaskState.TASK_STATE_UNSPECIFIED;
  if (!(STATE_FILTERS as readonly string[]).includes(filter)) {
    throw new CliError(`--state must be one of ${STATE_FILTERS.join(', ')}`);
  }
  return taskStateFromJSON(`TASK_STATE_${filter.toUpperCase().replace('-', '_')}`);
};

/** `tiny-harness tasks`: the caller's tasks, newest first, filtered by state or context. */
export const listTasks = async (
  agent: Agent,
  output: Output,
  options: { state?: string; context?: string; limit: number; json: boolean }
): Promise<void> => {
  const status = stateOf(options.state);
  const views: TaskView[] = [];
  let pageToken = '';
  do {
    const page = await agent.client.listTasks({
      tenant: '',
      contextId: options.context ?? '',
      status,
      pageSize: Math.min(100, options.limit - views.length),
      pageToken,
      historyLength: 0,
      statusTimestampAfter: undefined,
      includeArtifacts: false,
    });
    views.push(...page.tasks.map(taskView));
    pageToken = page.nextPageToken;
  } while (pageToken !== '' && views.length < options.limit);
  if (options.json) {
    output.json(views);
    return;
  }
  if (views.length === 0) {
    output.line('no tasks yet: `npx tiny-harness chat` starts one');
    return;
  }
  for (const view of views) output.line(renderTaskRow(view, output.c));
};
