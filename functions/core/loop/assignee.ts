import type { TaskExtension } from '../task/extension.schema.js';

/**
 * Whether the agent works this task. A participant task (created for a person with
 * create_task_for_participant) has a human assignee: no model runs on it, and the assignee's
 * next message completes it.
 */
export const agentIsAssignee = (extension: TaskExtension, agentId: string): boolean => {
  const assignees = extension.participants.filter((participant) => participant.role === 'assignee');
  return assignees.length === 0 || assignees.some((participant) => participant.id === agentId);
};

export const assigneeOf = (extension: TaskExtension): string | undefined =>
  extension.participants.find((participant) => participant.role === 'assignee')?.id;
