import { type Message, type Task, TaskState } from '@a2a-js/sdk';
import { TASK_METADATA_KEY } from '../a2a/identifiers.js';
import { intakeAuditKey } from '../audit/intake-key.js';
import { InvalidEnvelopeError } from '../errors.js';
import { withDefaultBudget } from '../loop/budget.js';
import { accountCreditOf } from '../loop/budget-account.js';
import type { LoopDeps } from '../loop/deps.js';
import { foldedForModel } from '../loop/drain.js';
import type { InboxItemDraft } from '../loop/inbox.schema.js';
import { initialLoopState } from '../loop/loop-state.schema.js';
import { changeOf, type StateChanged } from '../loop/records.js';
import { EMPTY_USAGE } from '../loop/usage.js';
import type { InheritedSettings } from '../ports/agent-directory.js';
import type { PushConfig } from '../ports/push-config-store.js';
import type {
  AuditRecord,
  BudgetEntry,
  CommitResult,
  TaskCommit,
  TaskRecord,
} from '../ports/task-store.js';
import {
  extensionFromEnvelope,
  extensionFromText,
  extensionOfChild,
  findEnvelope,
  messageText,
  type ServerRelations,
} from '../task/envelope.js';
import type { Lifecycle, TaskExtension } from '../task/extension.schema.js';
import { runCreation } from '../unit-of-work/interpreter.js';
import { answer, type Operation } from '../unit-of-work/operation.js';

export interface StartTaskInput {
  message: Message;
  /** The participant the request asserted (the authenticated principal). */
  sender: string;
  /**
   * Server-side settings: only the harness itself passes these (children on self, /sub-task),
   * never a client. A client's task starts as a conversation with the deployment's model.
   */
  settings?: InheritedSettings | undefined;
  /**
   * The relations of a child the harness itself creates on this harness (spawn_subtask,
   * create_task_for_participant, /sub-task): its parent and participants, never a client's.
   */
  relations?: ServerRelations | undefined;
  /** A task id reserved by the caller (a child's creation is idempotent on it). */
  taskId?: string | undefined;
  /** The sender's push-notification config for the new task (SendMessage's inline config). */
  pushConfig?: PushConfig | undefined;
}

/** One row per message intake decided on: who, accepted or not, and why. */
export interface IntakeAudit {
  message_id: string;
  participant_id: string;
  accepted: boolean;
  reason: string | null;
  /** The first `AUDIT_TEXT_LIMIT` characters of an accepted message's text (the auditor's view). */
  text?: string;
  at: string;
}

/** How much of a message's text its audit row keeps: the transcript has it whole. */
export const AUDIT_TEXT_LIMIT = 2_000;

/**
 * A task another agent delegated to us (its envelope says `delegated_from`, recorded as a parent
 * on that agent) is worked to its end, whatever a client's task would be: the agent that sent it
 * follows it and waits for its result.
 */
const lifecycleOfNew = (extension: TaskExtension, clientLifecycle: Lifecycle): Lifecycle =>
  extension.parent_tasks.length > 0 ? 'delegated' : clientLifecycle;

const withSettings = (
  extension: TaskExtension,
  settings: InheritedSettings | undefined,
  clientLifecycle: Lifecycle
): TaskExtension => {
  const next: TaskExtension = {
    ...extension,
    lifecycle: settings?.lifecycle ?? lifecycleOfNew(extension, clientLifecycle),
  };
  if (settings?.model !== undefined) next.model = settings.model;
  if (settings?.reasoning_effort !== undefined) next.reasoning_effort = settings.reasoning_effort;
  if (settings?.budget !== undefined) next.budget = settings.budget;
  return next;
};

/**
 * The extension of a new task as its first message describes it: a child's with the relations
 * the harness made, a client's with what a client may ask for.
 */
const describedExtension = (deps: LoopDeps, input: StartTaskInput): TaskExtension => {
  const { message, sender, relations } = input;
  const envelope = findEnvelope(message);
  if (envelope !== undefined && envelope.kind !== 'task') {
    throw new InvalidEnvelopeError(`a ${envelope.kind} envelope needs an existing task`);
  }
  if (relations !== undefined) {
    if (envelope === undefined)
      throw new InvalidEnvelopeError('a child brief needs a task envelope');
    return extensionOfChild(envelope.payload, relations);
  }
  const settings = { sender, agentId: deps.config.agentId };
  return envelope === undefined
    ? extensionFromText(messageText(message), settings)
    : extensionFromEnvelope(envelope.payload, settings);
};

/** The audit row of a message intake decided on. */
export const intakeAudit = (
  messageId: string,
  row: Omit<IntakeAudit, 'message_id' | 'at'>,
  now: string
): AuditRecord => ({
  key: intakeAuditKey(messageId),
  value: { message_id: messageId, ...row, at: now } satisfies IntakeAudit,
});

/**
 * A second start with a reserved id (a retried child creation) finds the first one's task and
 * where its message was taken in, and changes nothing.
 */
const existingStart = (
  taskId: string,
  messageId: string
): Operation<Started, { seq: 'read_message_seq' }> => ({
  taskId,
  readsBesideRecord: () => [
    { key: 'seq', effect: { kind: 'read_message_seq', taskId, messageId } },
  ],
  decide: ({ record, observed }) => answer({ record, inboxSeq: observed.seq ?? 0 }),
});

export interface Started {
  record: TaskRecord;
  /** The first message's seq in the inbox (0 when it queued nothing). */
  inboxSeq: number;
}

/** What a creation answers: the task as stored and where its first message was queued. */
export const startedOf = ({ record, enqueued }: CommitResult): Started => {
  if (record === undefined) throw new Error('a create commit returns the record');
  return { record, inboxSeq: enqueued[0] ?? 0 };
};

/** A new task as its creation stores it: submitted, with its extension and no history yet. */
export const submittedTask = (
  taskId: string,
  contextId: string,
  extension: TaskExtension,
  now: string
): Task => ({
  id: taskId,
  contextId,
  status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now },
  artifacts: [],
  // The transcript lives in the store as many small entries; the task item stays small.
  history: [],
  metadata: { [TASK_METADATA_KEY]: extension },
});

/**
 * A new task's first message, as its creation writes it: waiting in the inbox for the first drain
 * (unless it has no text: the task then parks without a model call) and its intake row.
 */
export const firstMessageWrites = (
  message: { id: string; text: string },
  sender: string,
  extension: TaskExtension,
  now: string
): { enqueue: InboxItemDraft[]; audit: AuditRecord[] } => {
  const participant = extension.participants.find((p) => p.id === sender);
  const row = { participant_id: sender, accepted: true, reason: null };
  return {
    enqueue:
      message.text.trim() === ''
        ? []
        : [
            {
              kind: 'message',
              id: message.id,
              participantId: sender,
              source: participant?.kind === 'agent' ? 'agent' : 'human',
              text: message.text,
            },
          ],
    audit: [
      intakeAudit(message.id, { ...row, text: message.text.slice(0, AUDIT_TEXT_LIMIT) }, now),
    ],
  };
};

/**
 * A creation whose first message its first drain would fold and take to the model, with the
 * message folded by the creation itself (`foldedForModel`): the task is WORKING from its first
 * commit, the message's id is kept as seen (no inbox item, no seq), and the first turn's drain
 * has nothing to write. Any other creation as it is: its message waits in the inbox.
 */
export const withFirstMessageFolded = (
  commit: Extract<TaskCommit, { kind: 'create' }>,
  agentId: string,
  now: string
): { commit: Extract<TaskCommit, { kind: 'create' }>; stateChanges: StateChanged[] } => {
  const unchanged = { commit, stateChanges: [] };
  const [first, ...others] = commit.enqueue ?? [];
  if (first?.kind !== 'message' || others.length > 0) return unchanged;
  const folded = foldedForModel(changeOf(commit.record), first, agentId, now);
  if (folded === undefined) return unchanged;
  return {
    commit: {
      ...commit,
      record: folded.record,
      history: [...(commit.history ?? []), ...folded.history],
      events: [...(commit.events ?? []), ...folded.events],
      enqueue: [],
      seen: [...(commit.seen ?? []), first.id],
    },
    stateChanges: folded.stateChanges,
  };
};

/** A new task with a budget opens its account at its limits: it has spent nothing. */
export const openingCredits = (taskId: string, extension: TaskExtension): BudgetEntry[] =>
  extension.budget === undefined
    ? []
    : [{ taskId, amounts: accountCreditOf(undefined, extension.budget, EMPTY_USAGE) }];

/**
 * Creates a task from its first message (A2A SendMessage without a task id). The extension comes
 * from the message's task envelope, or defaults from its text. The task, its first event (the
 * Task), the text (folded into the transcript when it goes to the model, else waiting in the
 * inbox for the first drain), the audit row and an inline push config are one commit: a refused
 * or failed start leaves nothing. A task started with no text
 * parks without a model call. With a caller-reserved id, a second start (a retried child
 * creation) finds the first one's record and changes nothing.
 */
export function startTask(deps: LoopDeps, input: StartTaskInput): Promise<Started> {
  const { message, sender } = input;
  const extension = withDefaultBudget(
    withSettings(
      describedExtension(deps, input),
      input.settings,
      deps.config.clientTaskLifecycle ?? 'conversation'
    ),
    deps.config.defaultBudgets
  );
  const text = messageText(message);
  const taskId = input.taskId ?? deps.ids.next('task');
  const contextId = message.contextId || deps.ids.next('ctx');
  const now = deps.clock.now();
  const task = submittedTask(taskId, contextId, extension, now);
  const first = firstMessageWrites({ id: message.messageId, text }, sender, extension, now);
  const creation = withFirstMessageFolded(
    {
      kind: 'create',
      record: {
        task,
        loop: {
          ...initialLoopState(),
          // Started after this commit, by whoever created it: pending until its first write.
          startPendingSince: now,
          parentTaskId: input.relations?.parentTaskId ?? null,
          budgetHolders: [...(input.settings?.budgetHolders ?? [])],
        },
        version: 1,
        eventSeq: 0,
        inboxCount: 0,
      },
      events: [{ kind: 'task', task }],
      ...first,
      pushConfigs: input.pushConfig === undefined ? [] : [input.pushConfig],
      budgetCredits: openingCredits(taskId, extension),
    },
    deps.config.agentId,
    now
  );
  return runCreation(deps, {
    ...creation,
    created: startedOf,
    existing:
      input.taskId === undefined ? undefined : existingStart(input.taskId, message.messageId),
  });
}
