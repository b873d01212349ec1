import type { LoopDeps } from '../loop/deps.js';
import type { HistoryEntry } from '../loop/history.schema.js';
import { loadRecord, mutateRecord } from '../loop/records.js';
import type { TurnRef } from '../loop/route.schema.js';
import { errorResultText } from '../tools/tool.js';

/**
 * Cuts the turn in progress (a cancel or a participant's completion arrived while it ran): the
 * running execution is superseded by a new generation that resumes from the last committed
 * state. Calls of the cut turn that never ran get an error result, so the transcript never holds
 * a call without its result.
 */
export const cutTurn = async (deps: LoopDeps, taskId: string): Promise<TurnRef> => {
  const record = await loadRecord(deps, taskId);
  const unanswered = (record.loop.response?.toolCalls ?? []).filter(
    (call) => !record.loop.appliedCalls.includes(call.id)
  );
  let seq = record.loop.historySeq;
  const entries: HistoryEntry[] = unanswered.map((call) => ({
    seq: ++seq,
    kind: 'tool_result',
    callId: call.id,
    name: call.name,
    output: errorResultText('tool.not_retried', 'the turn was cut before this call ran'),
    isError: true,
  }));
  await deps.store.appendHistory(taskId, entries);
  const cut = await mutateRecord(deps, taskId, (current) =>
    current.loop.generation !== record.loop.generation
      ? undefined
      : {
          ...current,
          loop: {
            ...current.loop,
            generation: current.loop.generation + 1,
            generationStartTurn: current.loop.turn,
            generationStartToolCalls: current.loop.toolCalls,
            historySeq: seq,
            appliedCalls: [...current.loop.appliedCalls, ...unanswered.map((call) => call.id)],
            parkToken: null,
          },
        }
  );
  return { taskId, generation: cut.loop.generation, turn: cut.loop.turn };
};
