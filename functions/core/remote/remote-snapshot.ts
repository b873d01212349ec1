import { type Message, type Part, Role, type Task, TaskState } from '@a2a-js/sdk';
import * as z from 'zod';
import { STATUS_METADATA_KEY, USAGE_METADATA_KEY } from '../a2a/identifiers.js';
import { RemoteCallError } from '../errors.js';
import { type ReportedUsage, type TaskUsage, TaskUsageSchema } from '../loop/usage.js';
import { isTerminalState, stateName } from '../task/a2a-task.js';
import { type SubState, SubStateSchema, type TaskStateName } from '../task/extension.schema.js';

/** A remote task as its parent's stand-in reads it from GetTask (or a push that carried it). */
export interface RemoteSnapshot {
  state: TaskStateName;
  subState: SubState | null;
  /** The agent's latest message on the task: its id marks one remote turn. */
  turn: { id: string; text: string } | null;
  /** What the parent's model reads: the status message, or the latest reply, and the artifacts. */
  result: string;
  /** Null when the agent reports no usage under the tiny-harness usage key. */
  usage: ReportedUsage | null;
}

/** A part as the parent's model reads it: text as it is, data as JSON, files by name. */
const partText = (part: Part): string => {
  const content = part.content;
  if (content?.$case === 'text') return content.value;
  if (content?.$case === 'data') return JSON.stringify(content.value);
  if (content?.$case === 'url')
    return `[file ${part.filename || content.value} (${part.mediaType})]`;
  if (content?.$case === 'raw') return `[file ${part.filename || 'unnamed'} (${part.mediaType})]`;
  return '';
};

const messageText = (message: Message): string =>
  message.parts
    .map(partText)
    .filter((text) => text !== '')
    .join('\n');

const isAgent = (message: Message | undefined): message is Message =>
  message !== undefined && message.role === Role.ROLE_AGENT;

const TreeSchema = TaskUsageSchema.extend({ unknown: z.array(z.string()).default([]) }).loose();
const UsageSchema = TaskUsageSchema.extend({ tree: TreeSchema.optional() }).loose();

/**
 * What a remote task's usage metadata says: a remote tiny-harness reports its tree's total beside
 * its own (and what it cannot count); another agent that uses our key, its own.
 */
const usageOf = (task: Task): ReportedUsage | null => {
  const parsed = UsageSchema.safeParse(task.metadata?.[USAGE_METADATA_KEY]);
  if (!parsed.success) return null;
  const { tree, ...own } = parsed.data;
  const pick = (usage: TaskUsage): TaskUsage => ({
    model_calls: usage.model_calls,
    input_tokens: usage.input_tokens,
    cached_input_tokens: usage.cached_input_tokens,
    output_tokens: usage.output_tokens,
    cost_usd: usage.cost_usd,
  });
  return tree === undefined
    ? { usage: pick(own), unknown: [] }
    : { usage: pick(tree), unknown: tree.unknown };
};

const subStateOf = (task: Task, state: TaskState): SubState | null => {
  if (state !== TaskState.TASK_STATE_INPUT_REQUIRED) return null;
  const status = task.metadata?.[STATUS_METADATA_KEY] as { sub_state?: unknown } | undefined;
  const parsed = SubStateSchema.safeParse(status?.sub_state);
  // An agent that does not speak the status extension and wants input is asking something.
  return parsed.success ? parsed.data : 'awaiting-answer';
};

/**
 * The snapshot of a remote task, or a RemoteCallError (`garbage`) when the answer is not the task
 * asked for or carries no state: what an agent answers is untrusted input.
 */
export const snapshotOf = (task: Task, expectedId: string): RemoteSnapshot => {
  if (task.id !== expectedId) {
    throw new RemoteCallError(
      'garbage',
      `it answered with task ${JSON.stringify(task.id)} when asked for ${expectedId}`
    );
  }
  const state = task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
  if (state === TaskState.TASK_STATE_UNSPECIFIED || state === TaskState.UNRECOGNIZED) {
    throw new RemoteCallError('garbage', `task ${expectedId} has no A2A state`);
  }
  const status = task.status?.message;
  const latest = isAgent(status) ? status : task.history.filter(isAgent).at(-1);
  const reply = latest === undefined ? '' : messageText(latest);
  const artifacts = (task.artifacts ?? []).map((artifact) => {
    const text = artifact.parts
      .map(partText)
      .filter((part) => part !== '')
      .join('\n');
    return `[artifact ${artifact.name || artifact.artifactId}]\n${text}`;
  });
  const ending = isTerminalState(state);
  return {
    state: stateName(state),
    subState: subStateOf(task, state),
    turn: latest === undefined ? null : { id: latest.messageId, text: reply },
    result: (ending ? [reply, ...artifacts] : [reply]).filter((text) => text !== '').join('\n\n'),
    usage: usageOf(task),
  };
};

/** A message an agent answered SendMessage with instead of a task: the child's whole result. */
export const snapshotOfMessage = (message: Message): RemoteSnapshot => ({
  state: 'TASK_STATE_COMPLETED',
  subState: null,
  turn: { id: message.messageId, text: messageText(message) },
  result: messageText(message),
  usage: null,
});
