import type { ModelToolCall } from '../ports/model.js';
import type { TaskRecord } from '../ports/task-store.js';
import { isTerminalState, readExtension, stateOf } from '../task/a2a-task.js';
import {
  approvalStatusText,
  awaitingApproval,
  secondsToDeadline,
  withApprovalsSettled,
} from './approvals.js';
import { agentIsAssignee, assigneeOf } from './assignee.js';
import type { HistoryEntry } from './history.schema.js';
import type { InboxItem, InboxItemDraft } from './inbox.schema.js';
import { type Change, changeOf } from './records.js';
import { shouldRenew } from './renewal-policy.js';
import type { StepResult, TurnRef } from './route.schema.js';
import { endRoute, parkedForInput, working } from './status.js';
import { currentRef, unappliedCalls } from './turn-position.js';

/**
 * How much one drain folds: a commit holds at most 100 items and 4 MB, and the transcript
 * entries of large messages are split across items (400,000 characters are at most 1.2 MB in
 * UTF-8). What is left waits for the next drain (the turn that follows reads it).
 */
export const DRAIN_LIMITS = { items: 20, characters: 400_000 } as const;

/** The items one drain takes: the oldest first, within the limits (always at least one). */
export const itemsToFold = (inbox: readonly InboxItem[]): InboxItem[] => {
  const taken: InboxItem[] = [];
  let characters = 0;
  for (const item of inbox) {
    characters += item.text.length;
    if (
      taken.length > 0 &&
      (taken.length >= DRAIN_LIMITS.items || characters > DRAIN_LIMITS.characters)
    ) {
      break;
    }
    taken.push(item);
  }
  return taken;
};

/**
 * Folds what arrived since the last drain into the transcript: accepted messages (a reply to the
 * pending question is marked as such and clears it), notes from children and the harness's notes. The items leave the
 * inbox in the same commit that writes their transcript entries, so a retried drain never folds
 * an item twice and a crash never loses one.
 */
export const foldInbox = (change: Change, items: readonly InboxItem[], agentId: string): Change => {
  if (items.length === 0) return change;
  const folded = foldItems(change, items, agentId);
  const inboxCursor = Math.max(change.record.loop.inboxCursor, ...items.map((item) => item.seq));
  return {
    ...folded,
    record: { ...folded.record, loop: { ...folded.record.loop, inboxCursor } },
    consumed: [...change.consumed, ...items],
  };
};

/**
 * A message for the model to a parked task, folded into the transcript by the very commit that
 * claims the task's token (intake's), when nothing waits in its inbox before it and the drain of
 * the turn it wakes would fold it and go to the model: that drain then has nothing to write, and
 * the message no inbox item (the task is WORKING from the claim on). Undefined otherwise (a task
 * mid-turn, whose calls come first; a reply that ends the task or leaves it waiting): the message
 * waits in the inbox for the drain, as any other item.
 */
export const foldedOnClaim = (
  change: Change,
  message: Extract<InboxItemDraft, { kind: 'message' }>,
  agentId: string,
  now: string
): Change | undefined => {
  const { record } = change;
  if (record.loop.parkToken === null || record.inbox === undefined || record.inbox.length > 0) {
    return undefined;
  }
  if (unappliedCalls(record.loop).length > 0) return undefined;
  return foldedForModel(change, message, agentId, now);
};

/**
 * `message` folded into the transcript and the task WORKING, when reading it leads to the model
 * and to nothing else (no completion request, no question left open); undefined otherwise. The
 * claim of a parked task uses it, and a new task's creation (its first drain then has nothing to
 * write); a participant task's first message, which is for its assignee, stays in the inbox.
 */
export const foldedForModel = (
  change: Change,
  message: Extract<InboxItemDraft, { kind: 'message' }>,
  agentId: string,
  now: string
): Change | undefined => {
  const folded = foldItems(change, [message], agentId);
  const { completionRequest, pendingQuestion, needsModel } = folded.record.loop;
  if (completionRequest !== null || pendingQuestion !== null || !needsModel) return undefined;
  return working(folded, now);
};

/** The transcript entries of `items`, and what reading them changes in the loop (pure). */
const foldItems = (change: Change, items: readonly InboxItemDraft[], agentId: string): Change => {
  const { record } = change;
  const extension = readExtension(record.task);
  const participantTask = !agentIsAssignee(extension, agentId);
  let { historySeq, pendingQuestion, actor, needsModel, completionRequest } = record.loop;
  const entries: HistoryEntry[] = [];
  for (const item of items) {
    if (item.kind === 'note') {
      entries.push({
        seq: ++historySeq,
        kind: 'note',
        fromTaskId: item.fromTaskId,
        text: item.text,
      });
      needsModel ||= item.result;
      continue;
    }
    if (item.kind === 'harness_note') {
      const { topic, criteria, text } = item;
      entries.push({ seq: ++historySeq, kind: 'harness_note', topic, criteria, text });
      needsModel ||= !participantTask;
      continue;
    }
    let text = item.text;
    if (pendingQuestion !== null && item.participantId === pendingQuestion.participantId) {
      text = `Reply from ${item.participantId} to "${pendingQuestion.question}": ${text}`;
      pendingQuestion = null;
    }
    entries.push({
      seq: ++historySeq,
      kind: 'participant_message',
      participantId: item.participantId,
      messageId: item.id,
      source: item.source,
      text,
    });
    actor = item.participantId;
    if (participantTask && item.participantId === assigneeOf(extension)) {
      // The assignee's answer is the participant task's result.
      completionRequest = { requestedBy: item.participantId, reason: item.text };
    } else {
      needsModel = !participantTask;
    }
  }
  return {
    ...change,
    record: {
      ...record,
      loop: { ...record.loop, historySeq, pendingQuestion, actor, needsModel, completionRequest },
    },
    history: [...change.history, ...entries],
  };
};

/**
 * What the drain decides: a route the turn takes at once (`step`, with what it commits, if
 * anything), or the turn goes on (`goOn`) with what it folded: to the model, or straight to its
 * end (`end_turn`: a completion request, or nothing the model has not read).
 */
export type DrainDecision =
  | { step: StepResult; change?: Change }
  | { goOn: 'model' | 'end_turn'; ref: TurnRef; change: Change };

/**
 * A turn whose calls are not all applied: it parks while a call waits for approval (until the
 * earliest deadline: the park's timeout), otherwise its calls run, those answered included. A
 * deadline passed or a completion request settles what still waits (a rejection).
 */
const midTurn = (
  record: TaskRecord,
  ref: TurnRef,
  pending: readonly ModelToolCall[],
  now: string
): DrainDecision => {
  const current = currentRef(ref, record.loop);
  const settled = withApprovalsSettled(changeOf(record), now);
  const waiting = awaitingApproval(settled.record.loop);
  if (waiting.length > 0) {
    const route = {
      next: 'park' as const,
      subState: 'awaiting-approval' as const,
      timeoutSeconds: secondsToDeadline(waiting, now),
    };
    return {
      step: { ref: current, route },
      change: parkedForInput(
        settled,
        current,
        'awaiting-approval',
        approvalStatusText(waiting),
        now
      ),
    };
  }
  const calls = pending.map((call) => ({ ref: current, callId: call.id }));
  // Answered approvals: the task works again while their calls run.
  const change = settled.record.loop.approvals.length > 0 ? working(settled, now) : settled;
  return { step: { ref: current, route: { next: 'execute_tools', calls } }, change };
};

/** The drain's decision on a loaded task and its inbox (pure). */
export const decideDrain = (
  record: TaskRecord,
  inbox: readonly InboxItem[],
  ref: TurnRef,
  options: { agentId: string; turnsPerGeneration: number; now: string }
): DrainDecision => {
  const state = stateOf(record.task);
  if (isTerminalState(state)) return { step: { ref, route: endRoute(state) } };
  if (record.loop.generation !== ref.generation)
    return { step: { ref, route: { next: 'superseded' } } };
  if (shouldRenew(record.loop, options)) return { step: { ref, route: { next: 'renew' } } };
  // Mid-turn (calls waiting for approval, or a restart from an earlier checkpoint): the turn's
  // calls run first, and nothing is folded between a call and its result.
  const pending = unappliedCalls(record.loop);
  if (pending.length > 0) return midTurn(record, ref, pending, options.now);

  const folded = foldInbox(changeOf(record), itemsToFold(inbox), options.agentId);
  const { loop } = folded.record;
  const current = { ...ref, turn: loop.turn };
  if (loop.completionRequest !== null) return { goOn: 'end_turn', ref: current, change: folded };
  if (loop.pendingQuestion !== null) {
    const { question, options: choices } = loop.pendingQuestion;
    const text = choices.length > 0 ? `${question}\nOptions: ${choices.join(', ')}` : question;
    return {
      step: { ref: current, route: { next: 'park', subState: 'awaiting-answer' } },
      change: parkedForInput(folded, current, 'awaiting-answer', text, options.now),
    };
  }
  if (!loop.needsModel) return { goOn: 'end_turn', ref: current, change: folded };
  return { goOn: 'model', ref: current, change: working(folded, options.now) };
};
