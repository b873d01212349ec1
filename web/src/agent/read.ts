/**
 * How the browser reads what the agent sends: the task extension and the timeline, checked by
 * validators generated from the committed schemas (schemas/task-extension.v1.json,
 * docs/a2a/ext/timeline.json), then drawn by the view both renderers share.
 */
import type { Task } from '@a2a-js/sdk';
import { TASK_METADATA_KEY } from '../../../functions/core/a2a/identifiers.js';
import { type ExtensionReader, taskView } from '../../../functions/view/task-view.js';
import type { TaskView } from '../generated/task-view.js';
import type { Timeline } from '../generated/timeline.js';
import validateTaskExtension from '../generated/validate-task-extension.js';
import validateTimeline from '../generated/validate-timeline.js';

export const readExtension: ExtensionReader = (raw) =>
  validateTaskExtension(raw) ? raw : undefined;

/** A task as the panes draw it. */
export const viewOf = (task: Task): TaskView => taskView(task, readExtension);

/** Where a fork came from, and the forks made of a task: the extension's ids, nothing read yet. */
export interface Lineage {
  /** The original and the last of its messages the fork kept (null: none). */
  forkedFrom: { task_id: string; message_id: string | null } | null;
  /** The tasks forked from this one, oldest first. */
  forks: string[];
}

/** A task's lineage, from its task extension as checked by the schema's validator. */
export const lineageOf = (task: Task): Lineage => {
  const extension: {
    forked_from?: Lineage['forkedFrom'] | undefined;
    forks?: string[] | undefined;
  } = readExtension(task.metadata?.[TASK_METADATA_KEY]) ?? {};
  return { forkedFrom: extension.forked_from ?? null, forks: extension.forks ?? [] };
};

export const parseTimeline = (raw: unknown): Timeline => {
  if (validateTimeline(raw)) return raw;
  const issue = validateTimeline.errors?.[0];
  throw new Error(
    `the agent answered a timeline this page cannot read (${issue?.instancePath ?? ''} ${issue?.message ?? ''})`
  );
};
