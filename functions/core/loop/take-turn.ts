import type { TaskRecord } from '../ports/task-store.js';
import type { LoopDeps } from './deps.js';
import { decideDrain } from './drain.js';
import { endOfTurn, finishTurn } from './finish.js';
import type { InboxItem } from './inbox.schema.js';
import { respond } from './invoke-model.js';
import { type Decision, decideAndCommit, decided, loadRecord, writesNothing } from './records.js';
import type { StepResult, TurnRef } from './route.schema.js';

/** Where the drain leaves the turn: the route it took, or the model's part with this record. */
type Drained = { step: StepResult } | { model: TurnRef; unchanged?: TaskRecord };

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
  const drained = await decideAndCommit(
    deps,
    async () => {
      const [record, items] = await Promise.all([
        loadRecord(deps, ref.taskId),
        deps.store.readInbox(ref.taskId),
      ]);
      inbox = items;
      return record;
    },
    async (record): Promise<Decision<Drained>> => {
      const decision = decideDrain(record, inbox, ref, {
        agentId: deps.config.agentId,
        turnsPerGeneration: deps.config.turnsPerGeneration,
        now: deps.clock.now(),
      });
      if ('step' in decision) {
        const { step, change } = decision;
        if (change === undefined || writesNothing(change, record)) return { result: { step } };
        return decided(record, change, { step });
      }
      const { change } = decision;
      if (decision.goOn === 'end_turn') {
        // Nothing for the model: the turn ends now, with what the drain folded.
        const left = inbox.filter((item) => !change.consumed.includes(item));
        const end = await finishTurn(deps, change, decision.ref, async () => left);
        const { result, ...commit } = endOfTurn(record, end);
        return { ...commit, result: { step: result } };
      }
      if (writesNothing(change, record))
        return { result: { model: decision.ref, unchanged: record } };
      return decided(record, change, { model: decision.ref });
    }
  );
  const { result } = drained;
  if ('step' in result) return result.step;
  return respond(deps, result.model, {
    endTurn: true,
    first: drained.committed?.record ?? result.unchanged,
  });
};
