/**
 * How the browser reads what the agent sends: the task extension and the timeline, checked by
 * validators generated from the committed schemas (schemas/task-extension.v1.json,
 * docs/a2a/ext/timeline.json), then drawn by the view both renderers share.
 */
import type { Task } from '@a2a-js/sdk';
import { type ExtensionReader, taskView } from '../../../functions/view/task-view.js';
import type { TaskView } from '../generated/task-view.js';
import type { Timeline } from '../generated/timeline.js';
import validateTaskExtension from '../generated/validate-task-extension.js';
import validateTimeline from '../generated/validate-timeline.js';

export const readExtension: ExtensionReader = (raw) =>
  validateTaskExtension(raw) ? raw : undefined;

/** A task as the panes draw it. */
export const viewOf = (task: Task): TaskView => taskView(task, readExtension);

export const parseTimeline = (raw: unknown): Timeline => {
  if (validateTimeline(raw)) return raw;
  const issue = validateTimeline.errors?.[0];
  throw new Error(
    `the agent answered a timeline this page cannot read (${issue?.instancePath ?? ''} ${issue?.message ?? ''})`
  );
};
