import { resultOf } from '../unit-of-work/interpreter.js';
import {
  answer,
  commitThen,
  type Facts,
  type NoEffects,
  type Outcome,
} from '../unit-of-work/operation.js';
import type { LoopDeps } from './deps.js';
import { type Change, changeOf, withLoop } from './records.js';
import type { TurnRef } from './route.schema.js';

/**
 * The next generation takes the task over: the one that owns it from now on (pure). Its start is
 * pending from `now` until its execution writes (`startPendingSince`).
 */
export const withNextGeneration = (change: Change, now: string): Change =>
  withLoop(change, (loop) => ({
    ...loop,
    generation: loop.generation + 1,
    generationStartTurn: loop.turn,
    generationStartToolCalls: loop.toolCalls,
    parkToken: null,
    startPendingSince: now,
  }));

/** The renewal's decision (pure): the next generation, or the one that already took over. */
export const decideRenewal =
  (ref: TurnRef) =>
  ({ record, now }: Facts<NoEffects, never>): Outcome<TurnRef, NoEffects, never> => {
    const { loop } = record;
    if (loop.generation !== ref.generation) {
      return answer({ taskId: ref.taskId, generation: loop.generation, turn: loop.turn });
    }
    const change = withNextGeneration(changeOf(record), now);
    const next = change.record.loop;
    return commitThen(record, change, {
      taskId: ref.taskId,
      generation: next.generation,
      turn: next.turn,
    });
  };

/**
 * Continue-as-new: the next generation takes the task over. Only references cross: the
 * transcript, inbox, plan and event log stay in the store. Idempotent for a given generation.
 */
export function renew(deps: LoopDeps, ref: TurnRef): Promise<TurnRef> {
  return resultOf(deps, { taskId: ref.taskId, decide: decideRenewal(ref) });
}
