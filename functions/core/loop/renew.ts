import type { LoopDeps } from './deps.js';
import { type Change, changeOf, decided, decideOnRecord, withLoop } from './records.js';
import type { TurnRef } from './route.schema.js';

/** The next generation takes the task over: the one that owns it from now on (pure). */
export const withNextGeneration = (change: Change): Change =>
  withLoop(change, (loop) => ({
    ...loop,
    generation: loop.generation + 1,
    generationStartTurn: loop.turn,
    generationStartToolCalls: loop.toolCalls,
    parkToken: null,
  }));

/**
 * Continue-as-new: the next generation takes the task over. Only references cross: the
 * transcript, inbox, plan and event log stay in the store. Idempotent for a given generation.
 */
export const renew = async (deps: LoopDeps, ref: TurnRef): Promise<TurnRef> => {
  const { result } = await decideOnRecord<TurnRef>(deps, ref.taskId, (record) => {
    if (record.loop.generation !== ref.generation) {
      return {
        result: { taskId: ref.taskId, generation: record.loop.generation, turn: record.loop.turn },
      };
    }
    const change = withNextGeneration(changeOf(record));
    const { loop } = change.record;
    return decided(record, change, {
      taskId: ref.taskId,
      generation: loop.generation,
      turn: loop.turn,
    });
  });
  return result;
};
