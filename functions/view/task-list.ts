/** The caller's tasks (ListTasks), newest status first, as both renderers list them. */
import { type Task, TaskState, taskStateFromJSON } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import type { TaskView } from './task-view.js';
import { AgentError } from './timeline.js';

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
export type StateFilter = (typeof STATE_FILTERS)[number];

/** `input-required` → TASK_STATE_INPUT_REQUIRED; none → no filter. */
export const stateFilter = (filter: string | undefined): TaskState => {
  if (filter === undefined || filter === '') return TaskState.TASK_STATE_UNSPECIFIED;
  if (!(STATE_FILTERS as readonly string[]).includes(filter)) {
    throw new AgentError(`the state must be one of ${STATE_FILTERS.join(', ')}`);
  }
  return taskStateFromJSON(`TASK_STATE_${filter.toUpperCase().replace('-', '_')}`);
};

export interface TaskListOptions {
  state?: string | undefined;
  context?: string | undefined;
  limit: number;
}

/** Up to `limit` of the caller's tasks, page by page. */
export const listTaskViews = async (
  client: Pick<Client, 'listTasks'>,
  view: (task: Task) => TaskView,
  options: TaskListOptions,
  signal?: AbortSignal
): Promise<TaskView[]> => {
  const status = stateFilter(options.state);
  const views: TaskView[] = [];
  let pageToken = '';
  do {
    const page = await client.listTasks(
      {
        tenant: '',
        contextId: options.context ?? '',
        status,
        pageSize: Math.min(100, options.limit - views.length),
        pageToken,
        historyLength: 0,
        statusTimestampAfter: undefined,
        includeArtifacts: false,
      },
      signal === undefined ? undefined : { signal }
    );
    views.push(...page.tasks.map(view));
    pageToken = page.nextPageToken;
  } while (pageToken !== '' && views.length < options.limit);
  return views;
};
