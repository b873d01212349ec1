/**
 * One task's part of the timeline, from its three sources: the execution histories of its
 * generations (when each step ran, how it ended, retries), its event log (state changes, progress,
 * the task's own edits) and its records (each model call, each tool call's verdict and result,
 * compactions, intake's accept or refuse of every message). Pure: the reader fetches, this joins.
 */

import { type Task, TaskState } from '@a2a-js/sdk';
import { STATUS_METADATA_KEY } from '../a2a/identifiers.js';
import { limitsText } from '../loop/budget.js';
import type { CompactionRecord } from '../loop/compaction.js';
import type { ModelCallRecord } from '../loop/invoke-model.js';
import { priceOf } from '../loop/prices.js';
import { costOf, type ModelPrices } from '../loop/usage.js';
import type { LoggedEvent } from '../ports/event-log.js';
import { readExtension, stateName } from '../task/a2a-task.js';
import type { TaskExtension } from '../task/extension.schema.js';
import type { Command } from '../tools/commands.js';
import type { Invocation } from '../tools/invoker.js';
import { type HistoryEventLike, readExecution, type StepRun } from './execution-history.js';
import { FORK_AUDIT_KEY, type ForkAudit, isForkAuditKey } from './fork-record.js';
import { messageIdOfIntakeKey } from './intake-key.js';
import { type Actor, bounded, type TimelineEntry } from './timeline.schema.js';
import {
  type ApprovalAuditRow,
  callFacts,
  neverRanText,
  stepsThatRan,
  toolRecordKey,
} from './tool-calls.js';

export interface ExecutionHistoryOfGeneration {
  /** The execution's name (`<task id>-g<generation>`). */
  name: string;
  generation: number;
  events: readonly HistoryEventLike[];
}

/** What intake recorded for one message (the `audit:<message id>` record). */
interface IntakeAuditRow {
  message_id: string;
  participant_id: string;
  accepted: boolean;
  reason: string | null;
  at: string;
}

export interface TaskAuditInput {
  taskId: string;
  depth: number;
  executions: readonly ExecutionHistoryOfGeneration[];
  log: readonly LoggedEvent[];
  /** The task's records by key (`response:…`, `tool:…`, `compaction:…`, `audit:…`). */
  records: ReadonlyMap<string, unknown>;
  /** Accepted messages' text by message id, where the store still has it. */
  messageTexts: ReadonlyMap<string, string>;
  prices?: ModelPrices | undefined;
}

type Draft = Omit<TimelineEntry, 'task_id' | 'depth'>;

const statusText = (message: { parts: Task['history'][number]['parts'] } | undefined): string =>
  (message?.parts ?? [])
    .flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []))
    .join('\n');

const subStateIn = (metadata: Record<string, unknown> | undefined): string | null => {
  const status = metadata?.[STATUS_METADATA_KEY] as { sub_state?: unknown } | undefined;
  return typeof status?.sub_state === 'string' ? status.sub_state : null;
};

const shortState = (name: string) => name.replace(/^TASK_STATE_/, '');

const extensionOf = (task: Task): TaskExtension | undefined => {
  try {
    return readExtension(task);
  } catch {
    return undefined;
  }
};

const ms = (from: string, to: string | undefined) =>
  to === undefined ? null : Date.parse(to) - Date.parse(from);

const oneLine = (value: string, max = 80) => {
  const line = value.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** The entries of the event log: creation, state changes, progress, edits, remote children. */
const logEntries = (input: TaskAuditInput): Draft[] => {
  const drafts: Draft[] = [];
  let lastAt: string | undefined;
  let previous: TaskExtension | undefined;
  let state: string | undefined;
  let subState: string | null = null;
  for (const { seq, event } of input.log) {
    const source = { kind: 'event_log' as const, ref: `log#${seq}` };
    if (event.kind === 'status_update') {
      const update = event.statusUpdate;
      const at = update.status?.timestamp || lastAt || new Date(0).toISOString();
      lastAt = at;
      const to = stateName(update.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED);
      const sub = subStateIn(update.metadata);
      const message = statusText(update.status?.message);
      if (to !== state || sub !== subState) {
        drafts.push({
          at,
          kind: 'state_changed',
          actor: null,
          summary: `${state === undefined ? '' : `${shortState(state)} → `}${shortState(to)}${sub === null ? '' : ` (${sub})`}${message === '' ? '' : `: ${oneLine(message)}`}`,
          details: { from: state ?? null, to, sub_state: sub, message: bounded(message) },
          source,
        });
        state = to;
        subState = sub;
      } else if (message !== '') {
        drafts.push({
          at,
          kind: 'progress',
          actor: null,
          summary: oneLine(message),
          details: { state: to, message: bounded(message) },
          source,
        });
      }
      continue;
    }
    if (event.kind !== 'task') continue;
    const task = event.task;
    const extension = extensionOf(task);
    if (extension === undefined) continue;
    if (previous === undefined) {
      const at = task.status?.timestamp || lastAt || new Date(0).toISOString();
      lastAt = at;
      state = stateName(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED);
      subState = subStateIn(task.metadata);
      const parent = extension.parent_tasks[0];
      const reporter = extension.participants.find((p) => p.role === 'reporter');
      const actor: Actor | null =
        parent !== undefined
          ? { kind: 'parent', id: parent.task_id }
          : reporter !== undefined
            ? { kind: 'participant', id: reporter.id }
            : null;
      drafts.push({
        at,
        kind: 'task_created',
        actor,
        summary: `task "${oneLine(extension.name, 60)}" created${parent === undefined ? '' : ` as a sub-task of ${parent.task_id}`}`,
        details: {
          name: extension.name,
          goal: bounded(extension.goal),
          lifecycle: extension.lifecycle ?? null,
          model: extension.model ?? null,
          reasoning_effort: extension.reasoning_effort ?? null,
          participants: extension.participants.map((p) => ({ id: p.id, role: p.role })),
          parent_id: parent?.task_id ?? null,
          context_id: task.contextId,
        },
        source,
      });
      previous = extension;
      continue;
    }
    const at = lastAt ?? task.status?.timestamp ?? new Date(0).toISOString();
    drafts.push(...editsBetween(previous, extension, at, source));
    previous = extension;
  }
  return drafts;
};

/**
 * What a later Task event changed that no other source reports: a participant's edit (envelope)
 * and a remote child's row (a child on this harness reports itself, in its own entries).
 */
const editsBetween = (
  before: TaskExtension,
  after: TaskExtension,
  at: string,
  source: Draft['source']
): Draft[] => {
  const drafts: Draft[] = [];
  const changed: Record<string, unknown> = {};
  for (const key of ['name', 'description', 'participants'] as const) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) changed[key] = after[key];
  }
  // The list of criteria is an edit; a criterion met, rejected or accepted is a review (below).
  const criteriaList = (extension: TaskExtension) =>
    JSON.stringify(extension.acceptance_criteria.map(({ id, text }) => ({ id, text })));
  if (criteriaList(before) !== criteriaList(after)) {
    changed.acceptance_criteria = after.acceptance_criteria;
  }
  if (Object.keys(changed).length > 0) {
    drafts.push({
      at,
      kind: 'task_edited',
      actor: null,
      summary: `task edited: ${Object.keys(changed).join(', ')}`,
      details: { changed },
      source,
    });
  }
  drafts.push(...criteriaReviews(before, after, at, source));
  if (JSON.stringify(before.budget) !== JSON.stringify(after.budget)) {
    drafts.push({
      at,
      kind: 'task_edited',
      actor: null,
      summary: `budget set: ${limitsText(after.budget)}${before.budget === undefined ? '' : ` (was ${limitsText(before.budget)})`}`,
      details: { change: 'budget', from: before.budget ?? null, to: after.budget ?? null },
      source,
    });
  }
  for (const row of after.sub_tasks) {
    if (row.agent === null) continue;
    const old = before.sub_tasks.find((candidate) => candidate.task_id === row.task_id);
    if (old !== undefined && old.state === row.state && old.sub_state === row.sub_state) continue;
    drafts.push({
      at,
      kind: 'child_changed',
      actor: { kind: 'child', id: row.task_id },
      summary: `remote sub-task ${row.agent.id}/${row.task_id} ${old === undefined ? 'linked' : 'is'} ${shortState(row.state)}${row.sub_state === null ? '' : ` (${row.sub_state})`}`,
      details: {
        child_id: row.task_id,
        agent: row.agent.id,
        from: old?.state ?? null,
        to: row.state,
        sub_state: row.sub_state,
      },
      source,
    });
  }
  return drafts;
};

/** Who a criterion's `met_by` or `rejection.by` names: the agent, or a participant. */
const reviewerOf = (extension: TaskExtension, id: string): Actor =>
  extension.participants.find((participant) => participant.id === id)?.kind === 'agent'
    ? { kind: 'agent', id: null }
    : { kind: 'participant', id };

/** Each criterion met (by the agent, or accepted unmet by a participant) or rejected since. */
const criteriaReviews = (
  before: TaskExtension,
  after: TaskExtension,
  at: string,
  source: Draft['source']
): Draft[] =>
  after.acceptance_criteria.flatMap((criterion): Draft[] => {
    const old = before.acceptance_criteria.find((candidate) => candidate.id === criterion.id);
    if (old === undefined) return [];
    const details = { criterion: criterion.id, text: criterion.text };
    if (criterion.met && criterion.met_by !== null && old.met_at !== criterion.met_at) {
      const evidence = criterion.evidence?.text ?? '';
      return [
        {
          at,
          kind: 'task_edited',
          actor: reviewerOf(after, criterion.met_by),
          summary: `criterion ${criterion.id} met: ${oneLine(evidence, 60)}`,
          details: { ...details, change: 'met', evidence: criterion.evidence },
          source,
        },
      ];
    }
    if (!criterion.met && old.met && criterion.rejection !== null) {
      return [
        {
          at,
          kind: 'task_edited',
          actor: reviewerOf(after, criterion.rejection.by),
          summary: `criterion ${criterion.id} rejected: ${oneLine(criterion.rejection.reason, 60)}`,
          details: { ...details, change: 'rejected', reason: bounded(criterion.rejection.reason) },
          source,
        },
      ];
    }
    return [];
  });

const commandEntries = (
  command: Command,
  at: string,
  source: Draft['source'],
  tool: Actor
): Draft[] => {
  switch (command.kind) {
    case 'attach_plan': {
      const steps = command.plan.steps;
      return [
        {
          at,
          kind: 'plan_changed',
          actor: tool,
          summary: `plan attached: ${steps.length} step${steps.length === 1 ? '' : 's'} (${steps.map((s) => s.name).join(', ')})`,
          details: {
            change: 'attached',
            steps: steps.map((s) => ({ id: s.id, name: s.name, depends_on: s.depends_on })),
          },
          source,
        },
      ];
    }
    case 'complete_step':
      return [
        {
          at,
          kind: 'plan_changed',
          actor: tool,
          summary: `step ${command.stepId} done → ${oneLine(command.output, 60)}`,
          details: { change: 'step_done', step: command.stepId, output: bounded(command.output) },
          source,
        },
      ];
    case 'spawn_subtask':
    case 'create_participant_task': {
      const remote = command.kind === 'spawn_subtask' ? command.agent : null;
      const where =
        command.kind === 'create_participant_task'
          ? ` for ${command.participantId}`
          : remote === null
            ? ''
            : ` on ${remote}`;
      return [
        {
          at,
          kind: 'child_requested',
          actor: tool,
          summary: `sub-task "${oneLine(command.name, 60)}" requested${where}`,
          details: {
            command: command.kind,
            name: command.name,
            goal: bounded(command.goal),
            acceptance_criteria: command.acceptanceCriteria,
            agent: remote,
            participant_id:
              command.kind === 'create_participant_task' ? command.participantId : null,
            step: command.stepId,
          },
          source,
        },
      ];
    }
    case 'set_role':
      return [
        {
          at,
          kind: 'task_edited',
          actor: tool,
          summary: `${command.participantId} is now ${command.role}`,
          details: { changed: { role: { participant: command.participantId, to: command.role } } },
          source,
        },
      ];
    default:
      return [];
  }
};

const verdictOf = (invocation: Invocation) =>
  invocation.kind === 'error'
    ? { verdict: 'refused', code: invocation.code }
    : invocation.kind === 'output' && invocation.isError
      ? { verdict: 'error', code: null }
      : { verdict: 'ok', code: null };

/** The entries of one generation's execution: model calls, tool calls, waits, retries, failures. */
const executionEntries = (
  input: TaskAuditInput,
  execution: ExecutionHistoryOfGeneration,
  extension: TaskExtension | undefined
): Draft[] => {
  const drafts: Draft[] = [];
  const facts = readExecution(execution.events);
  const at = (eventId: number) => ({
    kind: 'execution' as const,
    ref: `${execution.name}#${eventId}`,
  });
  const generation = execution.generation;
  if (facts.startedAt !== undefined) {
    drafts.push({
      at: facts.startedAt,
      kind: 'execution_started',
      actor: generation > 1 ? { kind: 'harness', id: null } : null,
      summary:
        generation > 1
          ? `generation ${generation} took over (execution ${execution.name})`
          : `execution ${execution.name} started`,
      details: { execution: execution.name, generation },
      source: at(facts.startEventId ?? 0),
    });
  }
  const compacted = new Set<string>();
  const responded = new Set<string>();
  const ranBy = stepsThatRan(facts.runs, generation, input.records);
  const retried = (run: StepRun) =>
    facts.runs.some(
      (other) =>
        other.attempt === run.attempt + 1 &&
        other.op === run.op &&
        other.callId === run.callId &&
        JSON.stringify(other.ref) === JSON.stringify(run.ref)
    );
  for (const run of facts.runs) {
    const source = at(run.eventId);
    const endedAt = run.endedAt ?? run.scheduledAt;
    if (run.outcome === 'failed' || (run.outcome === 'timed_out' && run.op !== 'park')) {
      const again = retried(run);
      drafts.push({
        at: endedAt,
        kind: again ? 'retry' : 'step_failed',
        actor: { kind: 'harness', id: null },
        summary: `${run.op} attempt ${run.attempt} ${run.outcome === 'timed_out' ? 'timed out' : 'failed'}${run.error === undefined ? '' : ` (${run.error})`}${again ? ': retrying' : ''}`,
        details: {
          op: run.op,
          attempt: run.attempt,
          turn: run.ref?.turn ?? null,
          call_id: run.callId ?? null,
          error: run.error ?? null,
          cause: bounded(run.cause ?? ''),
        },
        source,
      });
      continue;
    }
    const ref = run.ref;
    if (ref === undefined) continue;
    // A turn state compacts and calls the model at most once for the turn its reference names; a
    // turn state re-entered later (a retry, a restart) finds both recorded and is not shown twice.
    if (run.op === 'turn') {
      const compactionKey = `compaction:${generation}:${ref.turn}`;
      const compaction = input.records.get(compactionKey) as CompactionRecord | undefined;
      if (compaction !== undefined && !compacted.has(compactionKey)) {
        compacted.add(compactionKey);
        drafts.push({
          at: compaction.at ?? run.scheduledAt,
          kind: 'compaction',
          actor: { kind: 'hook', id: 'compaction.summarise' },
          summary: `context compacted: ${compaction.removed_seqs.length} entries summarised, ~${compaction.tokens_before} → ~${compaction.tokens_after} tokens`,
          details: {
            removed_seqs: compaction.removed_seqs,
            tokens_before: compaction.tokens_before,
            tokens_after: compaction.tokens_after,
            kept_sections: compaction.kept_sections,
            summary: bounded(compaction.summary),
            ...(compaction.call === undefined ? {} : { summary_call: compaction.call }),
          },
          source: { kind: 'record', ref: compactionKey },
        });
      }
      if (run.outcome === 'succeeded') {
        const key = `response:${generation}:${ref.turn + 1}`;
        const response = input.records.get(key) as ModelCallRecord | undefined;
        if (response === undefined || responded.has(key)) continue;
        responded.add(key);
        const price = priceOf(input.prices, response.model, extension?.model);
        const cost = costOf(response.usage, price);
        const calls = response.toolCalls.map((call) => call.name);
        drafts.push({
          // When the call began: the turn state folds the inbox (a state change) before it.
          at: new Date(Date.parse(response.at) - response.latency_ms).toISOString(),
          kind: 'model_call',
          actor: { kind: 'model', id: response.model },
          summary: `${response.model} turn ${ref.turn + 1}: ${response.usage.inputTokens} in (${response.usage.cachedInputTokens} cached) / ${response.usage.outputTokens} out${cost > 0 ? `, $${cost.toFixed(6)}` : ''}${calls.length > 0 ? ` → ${calls.join(', ')}` : response.text === '' ? '' : `: ${oneLine(response.text, 60)}`}`,
          details: {
            turn: ref.turn + 1,
            generation,
            model: response.model,
            reasoning_effort: extension?.reasoning_effort ?? null,
            input_tokens: response.usage.inputTokens,
            cached_input_tokens: response.usage.cachedInputTokens,
            output_tokens: response.usage.outputTokens,
            cost_usd: Math.round(cost * 1_000_000) / 1_000_000,
            latency_ms: response.latency_ms,
            finish_reason: response.finishReason,
            tool_calls: calls,
            text: bounded(response.text),
          },
          source: { kind: 'record', ref: key },
        });
        continue;
      }
      continue;
    }
    if (run.op === 'execute_tool' && run.callId !== undefined) {
      const key = toolRecordKey(generation, ref.turn, run.callId);
      const invocation = input.records.get(key) as Invocation | undefined;
      // One entry per call, from the step that ran it (not the one that asked for approval).
      if (invocation === undefined || ranBy.get(key) !== run) continue;
      const call = callFacts(input.records, generation, ref.turn, run.callId);
      const tool: Actor = { kind: 'tool', id: call.name };
      const { verdict, code } = verdictOf(invocation);
      const outcome =
        call.neverRan !== null
          ? neverRanText(call.neverRan)
          : `${verdict === 'ok' ? '→' : `✗ ${code ?? verdict}:`} ${oneLine(invocation.text, 60)}`;
      drafts.push({
        at: run.scheduledAt,
        kind: 'tool_call',
        actor: tool,
        summary: `${call.name}(${oneLine(call.arguments, 50)}) ${call.neverRan === null ? outcome : oneLine(outcome, 90)}`,
        details: {
          turn: ref.turn,
          generation,
          call_id: run.callId,
          name: call.name,
          arguments: bounded(call.arguments),
          verdict,
          code,
          ran: call.neverRan === null,
          // A result cut for the transcript is read whole from its record (`source`).
          result: bounded(
            invocation.kind === 'output' ? (invocation.whole ?? invocation.text) : invocation.text
          ),
          latency_ms: call.neverRan === null ? ms(run.scheduledAt, run.endedAt) : null,
        },
        source: { kind: 'record', ref: key },
      });
      if (invocation.kind === 'command') {
        drafts.push(
          ...commandEntries(invocation.command, run.scheduledAt, { kind: 'record', ref: key }, tool)
        );
      }
      continue;
    }
    if (run.op === 'park' && run.outcome !== 'running') {
      const waited = ms(run.scheduledAt, run.endedAt) ?? 0;
      const seconds = (waited / 1000).toFixed(1);
      const timedOut = run.outcome === 'timed_out';
      drafts.push({
        at: endedAt,
        kind: 'wait_ended',
        actor: timedOut ? { kind: 'timeout', id: null } : null,
        summary: timedOut
          ? `the wait timed out after ${seconds} s: the execution renews`
          : `woken after waiting ${seconds} s`,
        details: {
          waited_ms: waited,
          sub_state: run.payload.subState ?? null,
          outcome: run.outcome,
        },
        source,
      });
      continue;
    }
    if (run.op === 'fail') {
      const failure = (run.payload.error ?? {}) as { Error?: string; Cause?: string };
      drafts.push({
        at: run.scheduledAt,
        kind: 'step_failed',
        actor: { kind: 'harness', id: null },
        summary: `a step failed for good: ${failure.Error ?? 'error'}${failure.Cause ? `: ${oneLine(failure.Cause, 80)}` : ''}`,
        details: { error: failure.Error ?? null, cause: bounded(failure.Cause ?? '') },
        source,
      });
    }
  }
  if (facts.end !== undefined) {
    const { end } = facts;
    drafts.push({
      at: end.at,
      kind: 'execution_ended',
      actor: end.status === 'ABORTED' ? { kind: 'harness', id: null } : null,
      summary: `execution ${execution.name} ${end.status.toLowerCase().replace('_', ' ')}${end.cause ? `: ${oneLine(end.cause, 80)}` : end.error ? `: ${end.error}` : ''}`,
      details: {
        execution: execution.name,
        generation,
        status: end.status,
        error: end.error ?? null,
        cause: end.cause ?? null,
      },
      source: at(end.eventId),
    });
  }
  return drafts;
};

const APPROVAL_KIND = {
  approved: 'approval_granted',
  rejected: 'approval_rejected',
  expired: 'approval_expired',
} as const;

/** An approval asked for (the tool's call, who may give it) or answered (who, or the timeout). */
const approvalEntry = (key: string, row: ApprovalAuditRow): Draft => {
  const call = `${row.tool}(${oneLine(row.arguments, 50)})`;
  const source = { kind: 'record' as const, ref: key };
  const details = { call_id: row.call_id, tool: row.tool, arguments: bounded(row.arguments) };
  if (row.verdict === undefined) {
    return {
      at: row.at,
      kind: 'approval_requested',
      actor: { kind: 'tool', id: row.tool },
      summary: `${row.fate_unknown === true ? 'approval asked again (it may or may not have run: the harness stopped while sending it)' : 'approval requested'}: ${call}, from ${(row.approvers ?? []).join(' or ')}, until ${row.deadline ?? '?'}`,
      details: {
        ...details,
        approvers: row.approvers ?? [],
        deadline: row.deadline ?? null,
        ...(row.fate_unknown === true ? { fate_unknown: true } : {}),
      },
      source,
    };
  }
  const reason = row.reason ? `: ${oneLine(row.reason, 60)}` : '';
  return {
    at: row.at,
    kind: APPROVAL_KIND[row.verdict],
    actor:
      row.verdict === 'expired' || row.by === null || row.by === undefined
        ? { kind: 'timeout', id: null }
        : { kind: 'participant', id: row.by },
    summary: `${row.verdict === 'expired' ? 'approval expired' : row.verdict}: ${call}${reason}`,
    details: { ...details, verdict: row.verdict, by: row.by ?? null, reason: row.reason ?? null },
    source,
  };
};

/** A fork made from this task (`fork:<id>`), or this task's own origin (`forked_from`). */
const forkEntry = (key: string, row: ForkAudit): Draft => {
  const point = row.message_id === null ? 'before its first turn' : `at ${row.message_id}`;
  const own = key === FORK_AUDIT_KEY;
  return {
    at: row.at,
    kind: own ? 'forked_from' : 'forked',
    actor: { kind: 'participant', id: row.by },
    summary: own
      ? `forked from ${row.from_task_id} ${point} by ${row.by}`
      : `forked by ${row.by} ${point} into ${row.fork_task_id}`,
    details: {
      from_task_id: row.from_task_id,
      fork_task_id: row.fork_task_id,
      message_id: row.message_id,
      through_seq: row.through_seq,
    },
    source: { kind: 'record', ref: key },
  };
};

const recordEntries = (input: TaskAuditInput): Draft[] =>
  [...input.records.entries()].flatMap(([key, value]): Draft[] => {
    if (key.startsWith('approval:')) return [approvalEntry(key, value as ApprovalAuditRow)];
    if (key === FORK_AUDIT_KEY || isForkAuditKey(key)) return [forkEntry(key, value as ForkAudit)];
    if (messageIdOfIntakeKey(key) === undefined) return [];
    const row = value as IntakeAuditRow;
    const said = input.messageTexts.get(row.message_id);
    return [
      {
        at: row.at,
        kind: row.accepted ? 'message_accepted' : 'message_refused',
        actor: { kind: 'participant', id: row.participant_id },
        summary: row.accepted
          ? `message from ${row.participant_id}${said === undefined ? '' : `: ${oneLine(said, 70)}`}`
          : `message from ${row.participant_id} refused: ${row.reason ?? 'no reason recorded'}`,
        details: {
          message_id: row.message_id,
          participant_id: row.participant_id,
          accepted: row.accepted,
          reason: row.reason,
          ...(said === undefined ? {} : { text: bounded(said) }),
        },
        source: { kind: 'record', ref: key },
      },
    ];
  });

/** The latest Task snapshot in the log: the task as the timeline describes it. */
export const latestTask = (log: readonly LoggedEvent[]): Task | undefined => {
  for (let index = log.length - 1; index >= 0; index--) {
    const event = log[index]?.event;
    if (event?.kind === 'task') return event.task;
  }
  return undefined;
};

/** The seq of the event a model call followed, from its record (see `ModelCallRecord`). */
const eventSeqBefore = (draft: Draft, records: TaskAuditInput['records']): number | undefined => {
  if (draft.kind !== 'model_call') return undefined;
  const record = records.get(draft.source.ref) as ModelCallRecord | undefined;
  return record?.after_event_seq;
};

/**
 * The log's entries with each model call that says which event it followed placed just after
 * that event, so that among entries of the same millisecond the call comes after the state
 * change that started its turn and before the one its answer caused.
 */
const withModelCallsPlaced = (
  log: readonly Draft[],
  executions: readonly Draft[],
  records: TaskAuditInput['records']
): Draft[] => {
  const calls = executions
    .map((draft) => ({ draft, after: eventSeqBefore(draft, records) }))
    .filter((call): call is { draft: Draft; after: number } => call.after !== undefined);
  const placed: Draft[] = [];
  let next = 0;
  for (const entry of log) {
    const seq = Number(entry.source.ref.replace(/^log#/, ''));
    while (next < calls.length && (calls[next]?.after ?? 0) < seq) {
      placed.push((calls[next] as { draft: Draft }).draft);
      next++;
    }
    placed.push(entry);
  }
  for (const call of calls.slice(next)) placed.push(call.draft);
  return placed;
};

/** One task's entries, each stamped with the task and its depth, in no particular order. */
export const taskEntries = (input: TaskAuditInput): TimelineEntry[] => {
  const latest = latestTask(input.log);
  const extension = latest === undefined ? undefined : extensionOf(latest);
  // Sources in this order, so that among entries of the same millisecond a message comes before
  // the state change it caused, and a status before the execution's record of the same step.
  const executions = input.executions.flatMap((execution) =>
    executionEntries(input, execution, extension)
  );
  const drafts = [
    ...recordEntries(input),
    ...withModelCallsPlaced(logEntries(input), executions, input.records),
    ...executions.filter((draft) => eventSeqBefore(draft, input.records) === undefined),
  ];
  return drafts.map((draft) => ({ ...draft, task_id: input.taskId, depth: input.depth }));
};
