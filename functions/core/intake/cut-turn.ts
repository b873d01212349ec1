import type { HistoryEntry } from '../loop/history.schema.js';
import { type Change, withLoop } from '../loop/records.js';
import { withNextGeneration } from '../loop/renew.js';
import { errorResultText } from '../tools/tool.js';

/**
 * Cuts the turn in progress (a participant's completion arrived while it ran): a new generation
 * takes the task over and resumes from the last committed state, so every later write of the
 * running one is refused. Calls of the cut turn that never ran get an error result, so the
 * transcript never holds a call without its result. Pure: the caller commits it, stops the old
 * execution and starts the new one (pending from `now` until it writes).
 */
export const withTurnCut = (change: Change, now: string): Change => {
  const { loop } = change.record;
  const unanswered = (loop.response?.toolCalls ?? []).filter(
    (call) => !loop.appliedCalls.includes(call.id)
  );
  let seq = loop.historySeq;
  const entries: HistoryEntry[] = unanswered.map((call) => ({
    seq: ++seq,
    kind: 'tool_result',
    callId: call.id,
    name: call.name,
    output: errorResultText('tool.not_retried', 'the turn was cut before this call ran'),
    isError: true,
  }));
  const cut = withLoop(withNextGeneration(change, now), (next) => ({
    ...next,
    historySeq: seq,
    appliedCalls: [...next.appliedCalls, ...unanswered.map((call) => call.id)],
  }));
  return { ...cut, history: [...cut.history, ...entries] };
};
