import type { Task } from '@a2a-js/sdk';
import { FORK_AUDIT_KEY, type ForkAudit, forkAuditKey } from '../audit/fork-record.js';
import { ParticipantsRefusedError } from '../errors.js';
import { withDefaultBudget } from '../loop/budget.js';
import type { CompactionRecord } from '../loop/compaction.js';
import type { LoopDeps } from '../loop/deps.js';
import type { HistoryEntry } from '../loop/history.schema.js';
import type { ResolvedPoint } from '../loop/history-point.js';
import { initialLoopState } from '../loop/loop-state.schema.js';
import type { TaskCommit, TaskRecord } from '../ports/task-store.js';
import { readExtension } from '../task/a2a-task.js';
import type { Participant, Plan, TaskExtension } from '../task/extension.schema.js';
import { newTaskParticipants } from '../task/new-participants.js';
import { runCreation } from '../unit-of-work/interpreter.js';
import {
  firstMessageWrites,
  openingCredits,
  type Started,
  startedOf,
  submittedTask,
  withFirstMessageFolded,
} from './start-task.js';

export interface ForkTaskInput {
  /** The original as read now (its participants say who may fork it). */
  original: TaskRecord;
  /** The original as it was at the point (its plan, criteria, model then). */
  asItWas: Task;
  point: ResolvedPoint;
  /** The original's transcript through the point. */
  entries: readonly HistoryEntry[];
  compaction: CompactionRecord | undefined;
  caller: string;
  name?: string | undefined;
  /** Participants the caller names, under the rules of a new task. */
  participants?: readonly Participant[] | undefined;
  /** The fork's first message: its first turn runs on it. */
  message?: { messageId: string; text: string } | undefined;
}

/**
 * Who is on a fork: the caller as its reporter, the agent as its assignee, everyone else on the
 * original (who could read the history it carries) as a watcher, and whoever the caller names,
 * under the rules of a new task (others only as watchers). Nobody gains a role that acts.
 */
export const forkParticipants = (
  original: readonly Participant[],
  named: readonly Participant[],
  creator: { sender: string; agentId: string }
): Participant[] => {
  const { sender, agentId } = creator;
  // The agent works on a fork as its assignee; as its reporter it would judge its own work.
  if (sender === agentId) {
    throw new ParticipantsRefusedError(`the agent ${agentId} does not fork tasks`);
  }
  const callerThere = original.find((participant) => participant.id === sender);
  const namedIds = new Set(named.map((participant) => participant.id));
  const copied = original
    .filter(({ id }) => id !== sender && id !== agentId && !namedIds.has(id))
    .map((participant): Participant => ({ ...participant, role: 'watcher' }));
  const caller: Participant[] =
    namedIds.has(sender) || callerThere === undefined ? [] : [{ ...callerThere, role: 'reporter' }];
  return newTaskParticipants([...caller, ...named, ...copied], creator);
};

/** The plan as it was, without links to tasks the fork has no relation with. */
const forkPlan = (plan: Plan | null): Plan | null =>
  plan === null
    ? null
    : { ...plan, steps: plan.steps.map((step) => ({ ...step, linked_tasks: [] })) };

/**
 * The fork's extension: the original's work as it was at the point (goal, criteria and their
 * evidence, plan, model), its own participants, no parent and no sub-tasks (a child reports to
 * the task that made it, never to a copy), a conversation's lifecycle (the caller drives it) and
 * the deployment's budget for its type (its spend is its own, from zero).
 */
const forkExtension = (deps: LoopDeps, input: ForkTaskInput): TaskExtension => {
  const then = readExtension(input.asItWas);
  const { participants } = readExtension(input.original.task);
  const extension: TaskExtension = {
    name: input.name ?? `${then.name} (fork)`,
    type: then.type,
    goal: then.goal,
    description: then.description,
    acceptance_criteria: then.acceptance_criteria,
    participants: forkParticipants(participants, input.participants ?? [], {
      sender: input.caller,
      agentId: deps.config.agentId,
    }),
    parent_tasks: [],
    sub_tasks: [],
    plan: forkPlan(then.plan),
    lifecycle: 'conversation',
    forked_from: { task_id: input.original.task.id, message_id: input.point.messageId },
  };
  if (then.model !== undefined) extension.model = then.model;
  if (then.reasoning_effort !== undefined) extension.reasoning_effort = then.reasoning_effort;
  return withDefaultBudget(extension, deps.config.defaultBudgets);
};

/**
 * Creates a fork of a task from a point in its history (pure decision, one commit): a new task
 * carrying the original's transcript through the point (the compaction the model was shown
 * then included), its work as it was then, and a server-owned `forked_from` link. The original
 * is not changed: the same commit only adds the fork to its forks (outside its version) and
 * writes its audit record of the fork. No tool call is made again: the point never ends inside
 * a model response whose calls are unanswered, and the fork's turn starts after it. Waiting
 * approvals, unread inbox items, sub-tasks and push configs stay with the original.
 */
export function forkTask(deps: LoopDeps, input: ForkTaskInput): Promise<Started> {
  const { original, point, caller, message } = input;
  const extension = forkExtension(deps, input);
  const taskId = deps.ids.next('task');
  const contextId = deps.ids.next('ctx');
  const now = deps.clock.now();
  const task = submittedTask(taskId, contextId, extension, now);
  const audit: ForkAudit = {
    from_task_id: original.task.id,
    fork_task_id: taskId,
    message_id: point.messageId,
    through_seq: point.throughSeq,
    by: caller,
    at: now,
  };
  const first =
    message === undefined
      ? { enqueue: [], audit: [] }
      : firstMessageWrites({ id: message.messageId, text: message.text }, caller, extension, now);
  const { compaction } = input;
  const commit: Extract<TaskCommit, { kind: 'create' }> = {
    kind: 'create',
    record: {
      task,
      loop: {
        ...initialLoopState(),
        startPendingSince: now,
        historySeq: point.throughSeq,
        compactedThrough: compaction?.removed_through ?? 0,
        summary: compaction?.summary ?? null,
        keptSections: compaction?.kept_sections ?? null,
        actor: caller,
      },
      version: 1,
      eventSeq: 0,
      inboxCount: 0,
    },
    history: input.entries.filter((entry) => entry.seq <= point.throughSeq),
    events: [{ kind: 'task', task }],
    enqueue: first.enqueue,
    audit: [{ key: FORK_AUDIT_KEY, value: audit }, ...first.audit],
    budgetCredits: openingCredits(taskId, extension),
    forkOf: {
      taskId: original.task.id,
      forkId: taskId,
      audit: { key: forkAuditKey(taskId), value: audit },
    },
  };
  return runCreation(deps, {
    ...withFirstMessageFolded(commit, deps.config.agentId, now),
    created: startedOf,
  });
}
