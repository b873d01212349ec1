import { type Message, Role } from '@a2a-js/sdk';
import type { ChildRequest } from '../ports/agent-directory.js';
import type { TaskRecord } from '../ports/task-store.js';
import { readExtension } from '../task/a2a-task.js';
import { taskEnvelopePart } from '../task/envelope.js';
import type { Participant, TaskExtensionInput } from '../task/extension.schema.js';
import type { Command } from '../tools/commands.js';
import { budgetHoldersOf } from './budget-account.js';

type ChildCommand = Extract<Command, { kind: 'spawn_subtask' | 'create_participant_task' }>;

/** A participant task's people: the target becomes assignee, the former assignee a watcher. */
const participantTaskParticipants = (
  participants: readonly Participant[],
  target: string
): Participant[] =>
  participants.map((participant) => {
    if (participant.id === target) return { ...participant, role: 'assignee' };
    if (participant.role === 'assignee') return { ...participant, role: 'watcher' };
    return participant;
  });

/**
 * The brief that creates a child: an A2A message whose text is the goal and whose task envelope
 * describes the work. The child's relations (its parent, its participants) and server-controlled
 * settings (lifecycle, and on this harness the parent's model and reasoning effort) travel beside
 * it, never inside the envelope.
 * The message id is deterministic, so a retried creation is deduplicated by the child's agent.
 */
export const childBrief = (options: {
  parent: TaskRecord;
  command: ChildCommand;
  messageId: string;
  agentId: string;
}): ChildRequest => {
  const { parent, command, messageId, agentId } = options;
  const extension = readExtension(parent.task);
  const onSelf = command.kind === 'create_participant_task' || command.agent === null;
  const participants =
    command.kind === 'create_participant_task'
      ? participantTaskParticipants(extension.participants, command.participantId)
      : extension.participants.length > 0
        ? extension.participants
        : [{ id: agentId, kind: 'agent' as const, role: 'assignee' as const, display_name: '' }];
  const payload: TaskExtensionInput = {
    name: command.name,
    goal: command.goal,
    acceptance_criteria: command.acceptanceCriteria.map((text) => ({ text })),
  };
  const criteria = command.acceptanceCriteria.map((text) => `- ${text}`).join('\n');
  const message: Message = {
    messageId,
    contextId: parent.task.contextId,
    taskId: '',
    role: Role.ROLE_USER,
    parts: [
      {
        content: {
          $case: 'text',
          value: criteria ? `${command.goal}\n\nAcceptance criteria:\n${criteria}` : command.goal,
        },
        metadata: undefined,
        filename: '',
        mediaType: 'text/plain',
      },
      taskEnvelopePart(payload),
    ],
    metadata: { participant_id: agentId },
    extensions: [],
    referenceTaskIds: [parent.task.id],
  };
  return {
    agent: command.kind === 'spawn_subtask' ? command.agent : null,
    message,
    parentTaskId: parent.task.id,
    participants,
    inherited: onSelf
      ? {
          lifecycle: 'delegated',
          model: extension.model,
          reasoning_effort: extension.reasoning_effort,
          budget: command.kind === 'spawn_subtask' ? (command.budget ?? undefined) : undefined,
          budgetHolders: budgetHoldersOf(parent),
        }
      : { lifecycle: 'delegated' },
  };
};
