import type { TaskRecord } from '../ports/task-store.js';
import type { LoopDeps } from './deps.js';
import { type DrainDecision, decideDrain } from './drain.js';
import { endOfTurn, finishTurn } from './finish.js';
import type { InboxItem } from './inbox.schema.js';
import { respond } from './invoke-model.js';
import { withParkDecidedOn } from './park.js';
import { withClaimSpent } from './park-token.js';
import { type Decision, decideAndCommit, decided, loadRecord, writesNothing } from './records.js';
import type { StepResult, TurnRef } from './route.schema.js';

/** Where the drain leaves the turn: the route it took, or the model's part with this record. */
type Drained = { step: StepResult } | { model: TurnRef; unchanged?: TaskRecord };

/**
 * A turn is the first step of an execution woken from its park: when its drain writes the record,
 * the claim that woke it is spent with it (park-token.ts). A drain that writes nothing writes
 * nothing for this either.
 */
const withWakeSpent = (decision: DrainDecision, record: TaskRecord): DrainDecision =>
  decision.change === undefined || writesNothing(decision.change, record)
    ? decision
    : { ...decision, change: withClaimSpent(decision.change) };

/**
 * One turn in one state: the inbox folded into the transcript (committed before the model runs,
 * so a follower sees the task WORKING, and what it was told, while it thinks), then the model's
 * part (`respond`: compaction, one call, the response) and, for a response without tool calls,
 * the end of the turn in the same commit. The task record and the inbox are read once; what the
 * drain committed is what the model's part starts from. A turn with nothing for the model (a
 * completion request, a question still open, nothing unread) ends, parks or waits at once.
 */
export const takeTurn = async (deps: LoopDeps, ref: TurnRef): Promise<StepResult> => {
  let inbox: readonly InboxItem[] = [];
  let inboxCount = 0;
  /** The record the last decision was made on, and what it left in the inbox. */
  let decidedOn: { record: TaskRecord; left: readonly InboxItem[] } | undefined;
  const drained = await decideAndCommit(
    deps,
    async () => {
      // The record first, then the inbox: every item counted in the record's inbox count is in
      // what the inbox read returns, so a park decided on both sees all of them (park.ts).
      const record = await loadRecord(deps, ref.taskId);
      inbox = await deps.store.readInbox(ref.taskId);
      inboxCount = record.inboxCount;
      return record;
    },
    async (record): Promise<Decision<Drained>> => {
      const decision = withWakeSpent(
        decideDrain(record, inbox, ref, {
          agentId: deps.config.agentId,
          turnsPerGeneration: deps.config.turnsPerGeneration,
          now: deps.clock.now(),
        }),
        record
      );
      const { change } = decision;
      const left = inbox.filter((item) => !(change?.consumed ?? []).includes(item));
      decidedOn = { record, left };
      if ('step' in decision) {
        const { step } = decision;
        if (change === undefined || writesNothing(change, record)) return { result: { step } };
        return decided(record, change, { step });
      }
      if (decision.goOn === 'end_turn') {
        // Nothing for the model: the turn ends now, with what the drain folded.
        const end = await finishTurn(deps, decision.change, decision.ref, async () => left);
        const { result, ...commit } = endOfTurn(record, end);
        return { ...commit, result: { step: result } };
      }
      if (writesNothing(decision.change, record))
        return { result: { model: decision.ref, unchanged: record } };
      return decided(record, decision.change, { model: decision.ref });
    }
  );
  const { result } = drained;
  const left = decidedOn?.left ?? [];
  if ('step' in result) {
    const record = drained.committed?.record ?? decidedOn?.record;
    return record === undefined
      ? result.step
      : withParkDecidedOn(result.step, record, { count: inboxCount, left });
  }
  return respond(deps, result.model, {
    endTurn: true,
    first: drained.committed?.record ?? result.unchanged,
    inbox: { count: inboxCount, left },
  });
};
