/** Task views for the component tests: a plain task, with whatever the test changes. */
import type { TaskView } from '../../../web/src/generated/task-view.js';

export const viewWith = (change: Partial<TaskView> = {}): TaskView => ({
  id: 'task-1',
  context_id: 'ctx-1',
  state: 'TASK_STATE_INPUT_REQUIRED',
  sub_state: 'awaiting-next-message',
  status_text: '',
  updated_at: '2026-12-03T10:00:00.000Z',
  extension: true,
  name: 'Write a report',
  goal: 'A report on tides',
  description: '',
  acceptance_criteria: [],
  participants: [{ id: 'you', kind: 'human', role: 'reporter', display_name: '' }],
  parent_tasks: [],
  sub_tasks: [],
  plan: null,
  budget: null,
  usage: null,
  ...change,
});

type Step = NonNullable<TaskView['plan']>['steps'][number];

export const step = (id: string, change: Partial<Step> = {}): Step => ({
  id,
  name: id[0]?.toUpperCase() + id.slice(1),
  description: '',
  state: 'pending',
  output: null,
  depends_on: [],
  linked_tasks: [],
  ...change,
});
