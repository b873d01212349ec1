import { TaskState } from '@a2a-js/sdk';
import type { TaskRecord } from '../ports/task-store.js';
import { isTerminalState, readExtension, stateOf } from '../task/a2a-task.js';
import type { ToolRegistry } from '../tools/registry.js';
import { resultOf } from '../unit-of-work/interpreter.js';
import {
  answer,
  checkpoint,
  commitThen,
  type Facts,
  need,
  type Outcome,
  reach,
} from '../unit-of-work/operation.js';
import { budgetStopText, heldBudgetStopText, nextCallWorstCase, overrunsOf } from './budget.js';
import { budgetHoldersOf, holdsOf, refundsOf, usedBy } from './budget-account.js';
import { withCompaction } from './compaction.js';
import type { LoopConfig } from './config.js';
import { assembleContext } from './context.js';
import type { LoopDeps } from './deps.js';
import { type DrainDecision, decideDrain } from './drain.js';
import { decideTurnEnd, type TurnEndFacts } from './finish.js';
import { routeAfter, withinToolCallLimit, withModelResponse } from './invoke-model.js';
import { withExecutionArrived } from './park-token.js';
import { type Change, changeOf, withBudgetCredits, writesNothing } from './records.js';
import type { StepResult, TurnRef } from './route.schema.js';
import { ended, endRoute, parkedForInput } from './status.js';
import { currentRef } from './turn-position.js';
import { readUsage } from './usage.js';
import { type InboxRead, withParkDecidedOn } from './waiting-work.js';

/** What a turn's decision may ask for, each under its own key. */
export type TurnWants = {
  /** The inbox the drain folds. */
  inbox: 'read_inbox';
  /** The transcript the model is shown. */
  history: 'read_history';
  compaction: 'compact';
  /** The call's worst case, taken from every budget it draws on. */
  reservation: 'reserve_budget';
  model: 'call_model';
  /** The inbox once more, to end a delegated task only when nothing is unread. */
  inboxAtEnd: 'read_inbox';
  verdict: 'decide_completion';
};

/**
 * The point a turn reaches once its drain is decided: what it folded is committed (a follower
 * sees the task WORKING, and what it was told, while the model thinks), and the model's part
 * follows on the committed record, with the inbox as the drain read it.
 */
export interface Drained {
  ref: TurnRef;
  inbox: InboxRead;
}

/** What a turn's decision knows of the harness besides the task. */
export interface TurnSetting {
  config: LoopConfig;
  tools: ToolRegistry;
}

type TurnFacts = Facts<TurnWants, Drained>;
type TurnOutcome = Outcome<StepResult, TurnWants, Drained>;

/**
 * A turn's park route, marked (`decidedOn`) to be committed without a read when nothing waits on
 * the record the turn leaves and the inbox it read.
 */
const parkOn = (read: InboxRead) => (step: StepResult) => (record: TaskRecord) =>
  withParkDecidedOn(step, record, read);

/** The turn's end with what it has decided (`change`, made on `base`), committed if it writes. */
const endOfTurn = (
  base: TaskRecord,
  change: Change,
  ref: TurnRef,
  facts: TurnEndFacts,
  read: InboxRead
): TurnOutcome => {
  const decision = decideTurnEnd(change, ref, facts);
  if (decision.kind === 'needs_inbox') {
    return need<TurnWants>({
      key: 'inboxAtEnd',
      effect: { kind: 'read_inbox', taskId: base.task.id },
    });
  }
  if (decision.kind === 'needs_verdict') {
    return need<TurnWants>({
      key: 'verdict',
      effect: { kind: 'decide_completion', context: decision.context },
    });
  }
  const { change: ending, route } = decision.end;
  const resultOn = parkOn(read)(route);
  return writesNothing(ending, base)
    ? answer(route, resultOn)
    : commitThen(base, ending, route, resultOn);
};

/** Whether the model may run for `ref` on this record; otherwise the route that replaces it. */
const routeInstead = (
  record: TaskRecord,
  ref: TurnRef,
  config: Pick<LoopConfig, 'maxTurns'>,
  now: string
): { result: StepResult; change?: Change } | undefined => {
  const state = stateOf(record.task);
  if (isTerminalState(state)) return { result: { ref, route: endRoute(state) } };
  if (record.loop.generation !== ref.generation)
    return { result: { ref, route: { next: 'superseded' } } };
  const next = { ...ref, turn: ref.turn + 1 };
  // A retried state whose response was committed: route on it, never call the model twice.
  if (record.loop.turn === next.turn && record.loop.response !== null) {
    return { result: routeAfter(next, record.loop.response) };
  }
  // Re-entered after the turn moved on (a restart from an earlier checkpoint): go on from where
  // the task is, never call the model for a turn already taken.
  if (record.loop.turn !== ref.turn) {
    return { result: { ref: currentRef(ref, record.loop), route: { next: 'turn' } } };
  }
  if (record.loop.turn >= config.maxTurns) {
    const failed = TaskState.TASK_STATE_FAILED;
    return {
      result: { ref, route: endRoute(failed) },
      change: ended(changeOf(record), ref, failed, 'turn limit reached', now),
    };
  }
  return undefined;
};

/**
 * The turn parked in `awaiting-budget` when its calls could pass a budget, before any is made:
 * the task's own limits on its ledger, then (for a task under accounts) the worst case taken from
 * every account it draws on, all or none. Undefined when the calls may be made.
 */
const budgetStop = (
  { record, observed, now }: TurnFacts,
  ref: TurnRef,
  read: InboxRead,
  characters: number,
  config: LoopConfig
): TurnOutcome | undefined => {
  // Parked with the turn's message folded and unanswered: a raised budget resumes it here.
  const stopped = (text: string): TurnOutcome => {
    const route = { next: 'park' as const, subState: 'awaiting-budget' as const };
    const parked = parkedForInput(changeOf(record), ref, 'awaiting-budget', text, now);
    return commitThen(record, parked, { ref, route }, parkOn(read)({ ref, route }));
  };
  // A task under no budget (its own or an ancestor's) stops at the read of its extension.
  const { budget } = readExtension(record.task);
  const holders = budgetHoldersOf(record);
  if (budget === undefined && holders.length === 0) return undefined;
  const worst = nextCallWorstCase(record, characters, config);
  const overruns = overrunsOf(budget, readUsage(record.task), worst);
  if (overruns.length > 0) return stopped(budgetStopText(overruns, worst.model_calls === 2));
  if (holders.length === 0) return undefined;
  const { reservation } = observed;
  if (reservation === undefined) {
    const holds = holdsOf(holders, worst);
    // The call this turn makes: its generation and turn (a retry of the turn makes the same one).
    const call = `${ref.generation}:${ref.turn + 1}`;
    const effect = { kind: 'reserve_budget', taskId: record.task.id, call, holds } as const;
    return need<TurnWants>({ key: 'reservation', effect });
  }
  if (reservation.exhausted !== null) {
    return stopped(heldBudgetStopText(reservation.exhausted, record.task.id));
  }
  return undefined;
};

/**
 * The model's part of turn `ref.turn + 1`: the transcript, compaction first when over budget, one
 * model call, and the response committed with the turn (its transcript entries, the usage, the
 * record the auditor reads), so a retried state reuses it and never calls the model twice. A
 * response without tool calls also ends the turn in the same commit. The commit is conditioned on
 * the task as read before the call: if the turn was cut or the task ended meanwhile, nothing of
 * the response is written. Tool calls come only from the response's structured calls.
 */
const modelPart = (
  facts: TurnFacts,
  ref: TurnRef,
  read: InboxRead,
  setting: TurnSetting
): TurnOutcome => {
  const { record, observed, now } = facts;
  const { config, tools } = setting;
  const instead = routeInstead(record, ref, config, now);
  if (instead !== undefined) {
    const resultOn = parkOn(read)(instead.result);
    return instead.change === undefined
      ? answer(instead.result, resultOn)
      : commitThen(record, instead.change, instead.result, resultOn);
  }
  const taskId = record.task.id;
  const { model: answered, compaction } = observed;
  // A turn whose drain wrote nothing (its message was folded by the claim that woke it) spends
  // the claim and the pending start with its response.
  let change = withExecutionArrived(changeOf(record));
  if (answered === undefined) {
    // The transcript as the record knows it: a later entry's commit would refuse this one's.
    const { history } = observed;
    if (history === undefined) {
      const { compactedThrough: after, historySeq: through } = record.loop;
      return need<TurnWants>({
        key: 'history',
        effect: { kind: 'read_history', taskId, after, through },
      });
    }
    if (compaction === undefined) {
      const assembled = assembleContext({ record, history, tools, config });
      // The budget is checked before compaction: its summary is a model call of the task too.
      const stopped = budgetStop(facts, ref, read, assembled.characters, config);
      if (stopped !== undefined) return stopped;
      return need<TurnWants>({
        key: 'compaction',
        effect: { kind: 'compact', ref, record, history, assembled },
      });
    }
    // The request as compaction left it: assembled once, by the decision or the compaction.
    const effect = { kind: 'call_model', taskId, context: compaction.context } as const;
    return need<TurnWants>({ key: 'model', effect });
  }
  if (compaction?.record) change = withCompaction(change, ref, compaction.record);
  const next = { ...ref, turn: ref.turn + 1 };
  const { call, note } = withinToolCallLimit(answered, next);
  change = withModelResponse(change, next, call);
  if (note !== undefined) change = { ...change, enqueue: [...change.enqueue, note] };
  // What the turn's calls did not use of their worst case goes back to every budget it was taken
  // from: the summary's call, when compaction made one, and the model's.
  if (observed.reservation !== undefined) {
    const used = usedBy(call, compaction?.record?.call);
    change = withBudgetCredits(change, refundsOf(observed.reservation.holds, used));
  }
  if (call.response.toolCalls.length > 0) {
    const route = routeAfter(next, call.response);
    return commitThen(record, change, route, parkOn(read)(route));
  }
  const end = { inbox: observed.inboxAtEnd, verdict: observed.verdict, now, config };
  return endOfTurn(record, change, next, end, read);
};

/**
 * A turn is the first step of an execution woken from its park or started for its generation:
 * when its drain writes the record, the claim that woke it and the pending start are spent with
 * it (park-token.ts). A drain that writes nothing writes nothing for this either: the model's
 * response spends them, and a turn that goes no further leaves a pending start to the sweep,
 * which finds the execution there.
 */
const withArrival = (decision: DrainDecision, record: TaskRecord): DrainDecision =>
  decision.change === undefined || writesNothing(decision.change, record)
    ? decision
    : { ...decision, change: withExecutionArrived(decision.change) };

/**
 * The decision of one turn (pure): the inbox folded into the transcript (a checkpoint, before
 * the model runs), then the model's part and, for a response without tool calls, the end of the
 * turn in the same commit. A turn with nothing for the model (a completion request, a question
 * still open, nothing unread) ends, parks or waits at once.
 */
export const decideTurn =
  (ref: TurnRef, setting: TurnSetting) =>
  (facts: TurnFacts): TurnOutcome => {
    if (facts.reached !== undefined) {
      return modelPart(facts, facts.reached.ref, facts.reached.inbox, setting);
    }
    const { record, observed, now } = facts;
    // The record first, then the inbox: every item counted in the record's inbox count is in
    // what the inbox read returns, so a park decided on both sees all of them. A record that
    // says its inbox whole (the store had it with the record) needs no read of its own.
    const inbox = observed.inbox ?? record.inbox;
    if (inbox === undefined) {
      return need<TurnWants>({
        key: 'inbox',
        effect: { kind: 'read_inbox', taskId: record.task.id },
      });
    }
    const { config } = setting;
    const decision = withArrival(
      decideDrain(record, inbox, ref, {
        agentId: config.agentId,
        turnsPerGeneration: config.turnsPerGeneration,
        now,
      }),
      record
    );
    const consumed = decision.change?.consumed ?? [];
    const read: InboxRead = {
      count: record.inboxCount,
      left: inbox.filter((item) => !consumed.includes(item)),
    };
    if ('step' in decision) {
      const { step, change } = decision;
      const resultOn = parkOn(read)(step);
      if (change === undefined || writesNothing(change, record)) return answer(step, resultOn);
      return commitThen(record, change, step, resultOn);
    }
    if (decision.goOn === 'end_turn') {
      // Nothing for the model: the turn ends now, with what the drain folded.
      const end = { inbox: read.left, verdict: observed.verdict, now, config };
      return endOfTurn(record, decision.change, decision.ref, end, read);
    }
    const drained = { ref: decision.ref, inbox: read };
    // Whatever happens next, the model's part goes on from this drain: a conflict reads the
    // task again, but folds nothing between the model's call and its response.
    if (writesNothing(decision.change, record)) return reach(drained);
    return checkpoint(record, decision.change, drained);
  };

/**
 * One turn in one state (the Take Turn state): the drain, the model's part, the turn's end,
 * decided by `decideTurn` and performed by the unit of work.
 */
export function takeTurn(deps: LoopDeps, ref: TurnRef): Promise<StepResult> {
  const setting: TurnSetting = { config: deps.config, tools: deps.tools };
  return resultOf(deps, { taskId: ref.taskId, decide: decideTurn(ref, setting) });
}
