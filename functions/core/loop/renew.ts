import type { LoopDeps } from './deps.js';
import { mutateRecord } from './records.js';
import type { TurnRef } from './route.schema.js';

/**
 * Continue-as-new: the next generation takes the task over. Only references cross: the
 * transcript, inbox, plan and event log stay in the store. Idempotent for a given generation.
 */
export const renew = async (deps: LoopDeps, ref: TurnRef): Promise<TurnRef> => {
  const record = await mutateRecord(deps, ref.taskId, (current) =>
    current.loop.generation !== ref.generation
      ? undefined
      : {
          ...current,
          loop: {
            ...current.loop,
            generation: ref.generation + 1,
            generationStartTurn: current.loop.turn,
            generationStartToolCalls: current.loop.toolCalls,
            parkToken: null,
          },
        }
  );
  return { taskId: ref.taskId, generation: record.loop.generation, turn: record.loop.turn };
};
