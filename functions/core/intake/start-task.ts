import { type Message, type Task, TaskState } from '@a2a-js/sdk';
import { TASK_METADATA_KEY } from '../a2a/identifiers.js';
import { AlreadyExistsError, InvalidEnvelopeError } from '../errors.js';
import type { LoopDeps } from '../loop/deps.js';
import { initialLoopState } from '../loop/loop-state.schema.js';
import { emitTask, loadRecord } from '../loop/records.js';
import type { InheritedSettings } from '../ports/agent-directory.js';
import type { TaskRecord } from '../ports/task-store.js';
import {
  extensionFromEnvelope,
  extensionFromText,
  findEnvelope,
  messageText,
} from '../task/envelope.js';
import type { Lifecycle, TaskExtension } from '../task/extension.schema.js';

export interface StartTaskInput {
  message: Message;
  /** The participant the request asserted (the authenticated principal). */
  sender: string;
  /**
   * Server-side settings: only the harness itself passes these (children on self, /sub-task),
   * never a client. A client's task starts as a conversation with the deployment's model.
   */
  settings?: InheritedSettings | undefined;
  /** A task id reserved by the caller (a child's creation is idempotent on it). */
  taskId?: string | undefined;
}

const withSettings = (
  extension: TaskExtension,
  settings: InheritedSettings | undefined,
  clientLifecycle: Lifecycle
): TaskExtension => {
  const next: TaskExtension = { ...extension, lifecycle: settings?.lifecycle ?? clientLifecycle };
  if (settings?.model !== undefined) next.model = settings.model;
  if (settings?.reasoning_effort !== undefined) next.reasoning_effort = settings.reasoning_effort;
  return next;
};

/**
 * Creates the record; with a caller-reserved id a second call (a retried child creation) finds
 * the first one's record and goes on, so the brief below is still queued exactly once.
 */
const createOnce = async (deps: LoopDeps, record: TaskRecord, reservedId: string | undefined) => {
  try {
    return await deps.store.create(record);
  } catch (error) {
    if (reservedId === undefined || !(error instanceof AlreadyExistsError)) throw error;
    return loadRecord(deps, reservedId);
  }
};

/**
 * Creates a task from its first message (A2A SendMessage without a task id). The extension comes
 * from the message's task envelope, or defaults from its text. The text, if any, waits in the
 * inbox for the first drain; a task started with no text parks without a model call.
 */
export const startTask = async (deps: LoopDeps, input: StartTaskInput): Promise<TaskRecord> => {
  const { message, sender } = input;
  const envelope = findEnvelope(message);
  if (envelope !== undefined && envelope.kind !== 'task') {
    throw new InvalidEnvelopeError(`a ${envelope.kind} envelope needs an existing task`);
  }
  const text = messageText(message);
  const settings = { sender, agentId: deps.config.agentId };
  const extension = withSettings(
    envelope === undefined
      ? extensionFromText(text, settings)
      : extensionFromEnvelope(envelope.payload, settings),
    input.settings,
    deps.config.clientTaskLifecycle ?? 'conversation'
  );
  const taskId = input.taskId ?? deps.ids.next('task');
  const contextId = message.contextId || deps.ids.next('ctx');
  const task: Task = {
    id: taskId,
    contextId,
    status: {
      state: TaskState.TASK_STATE_SUBMITTED,
      message: undefined,
      timestamp: deps.clock.now(),
    },
    artifacts: [],
    // The transcript lives in the store as many small entries; the task item stays small.
    history: [],
    metadata: { [TASK_METADATA_KEY]: extension },
  };
  const record = await createOnce(
    deps,
    { task, loop: initialLoopState(), version: 1 },
    input.taskId
  );
  await emitTask(deps, record, 'created');
  if (text.trim() !== '') {
    const participant = extension.participants.find((p) => p.id === sender);
    await deps.store.enqueue(taskId, {
      kind: 'message',
      id: message.messageId,
      participantId: sender,
      source: participant?.kind === 'agent' ? 'agent' : 'human',
      text,
    });
  }
  return record;
};
