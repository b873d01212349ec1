import { type Message, Role } from '@a2a-js/sdk';
import { InvalidMessageError } from '../errors.js';
import { childRow } from '../loop/apply-command.js';
import { budgetHoldersOf } from '../loop/budget-account.js';
import { type Change, withLoop, withRecord, withTaskEvent } from '../loop/records.js';
import type { ChildCreated, ChildRequest } from '../ports/agent-directory.js';
import type { TaskRecord } from '../ports/task-store.js';
import { readExtension, withExtension } from '../task/a2a-task.js';
import { taskEnvelopePart } from '../task/envelope.js';
import { MAX_SUB_TASKS, type TaskExtensionInput } from '../task/extension.schema.js';

const PREFIX = '/sub-task';
const NAME_LENGTH = 60;

/**
 * The description of a `/sub-task <description>` message, or undefined for any other text. Ours
 * (the reference's parsing was not recoverable): the command must open the text, and an empty
 * description is refused.
 */
export const parseSubTaskCommand = (text: string): string | undefined => {
  const trimmed = text.trimStart();
  if (
    trimmed !== PREFIX &&
    !trimmed.startsWith(`${PREFIX} `) &&
    !trimmed.startsWith(`${PREFIX}\n`)
  ) {
    return undefined;
  }
  const description = trimmed.slice(PREFIX.length).trim();
  if (description === '') throw new InvalidMessageError('/sub-task needs a description');
  return description;
};

/**
 * `/sub-task <description>`: a conversation child in the parent's context, with the sender as
 * reporter and the agent as assignee. Its brief carries no text, so it starts parked without a
 * model call. The child is created first (idempotent on the brief's message id, so a retried
 * intake finds the same child); the parent's side is `withSubTaskOpened`, committed with the
 * message that asked for it.
 */
export const subTaskRequest = (options: {
  parent: TaskRecord;
  sender: string;
  description: string;
  messageId: string;
  agentId: string;
}): ChildRequest => {
  const { parent, sender, description, agentId } = options;
  const extension = readExtension(parent.task);
  if (extension.sub_tasks.length >= MAX_SUB_TASKS) {
    throw new InvalidMessageError(
      `this task has ${extension.sub_tasks.length} sub-tasks, the most one task may have (${MAX_SUB_TASKS})`
    );
  }
  const payload: TaskExtensionInput = {
    name: description.split('\n', 1)[0]?.slice(0, NAME_LENGTH) ?? description,
    goal: description,
  };
  const brief: Message = {
    messageId: `${parent.task.id}:sub-task:${options.messageId}`,
    contextId: parent.task.contextId,
    taskId: '',
    role: Role.ROLE_USER,
    parts: [taskEnvelopePart(payload)],
    metadata: { participant_id: sender },
    extensions: [],
    referenceTaskIds: [parent.task.id],
  };
  return {
    agent: null,
    message: brief,
    parentTaskId: parent.task.id,
    participants: [
      { id: sender, kind: 'human', role: 'reporter', display_name: '' },
      { id: agentId, kind: 'agent', role: 'assignee', display_name: '' },
    ],
    inherited: {
      lifecycle: 'conversation',
      model: extension.model,
      reasoning_effort: extension.reasoning_effort,
      budgetHolders: budgetHoldersOf(parent),
    },
  };
};

/**
 * The parent's side of a `/sub-task` (pure): the child's row, the updated Task on its stream, the
 * message in its transcript (the history shows what the participant said), and a note for the
 * model that does not wake it (no model turn).
 */
export const withSubTaskOpened = (
  change: Change,
  created: ChildCreated,
  options: {
    sender: string;
    description: string;
    /** The message that asked for it: kept in the transcript, so the history shows it. */
    message: { id: string; text: string; source: 'human' | 'agent' };
  }
): Change => {
  const row = childRow(null, created);
  const extension = readExtension(change.record.task);
  const known = extension.sub_tasks.some((existing) => existing.task_id === row.task_id);
  const withRow = known
    ? change
    : withRecord(change, (record) => ({
        ...record,
        task: withExtension(record.task, {
          ...extension,
          sub_tasks: [...extension.sub_tasks, row],
        }),
      }));
  const seq = withRow.record.loop.historySeq + 1;
  const said = withLoop(withRow, (loop) => ({ ...loop, historySeq: seq }));
  return withTaskEvent({
    ...said,
    history: [
      ...said.history,
      {
        seq,
        kind: 'participant_message',
        participantId: options.sender,
        messageId: options.message.id,
        source: options.message.source,
        text: options.message.text,
      },
    ],
    enqueue: [
      ...said.enqueue,
      {
        kind: 'note',
        id: `sub-task:${created.taskId}`,
        fromTaskId: created.taskId,
        text: `${options.sender} opened sub-task ${created.taskId}: ${options.description}`,
        result: false,
      },
    ],
  });
};
