import type { ModelToolCall } from '../ports/model.js';
import type { LoopState } from './loop-state.schema.js';
import type { TurnRef } from './route.schema.js';

/**
 * Where a task's turn stands, read from its loop state alone: an execution that re-enters the
 * loop at a state it has passed already (a checkpoint from before its crash, a retried state)
 * continues from here rather than from what its reference says.
 */

/** Tool calls of the current turn whose results are not applied yet. */
export const unappliedCalls = (loop: LoopState): ModelToolCall[] =>
  (loop.response?.toolCalls ?? []).filter((call) => !loop.appliedCalls.includes(call.id));

/** Something the model has not answered yet: a tool to run, a message or result to read. */
export const turnUnfinished = (loop: LoopState): boolean =>
  loop.needsModel || unappliedCalls(loop).length > 0;

/** The reference of the task's current turn. */
export const currentRef = (ref: TurnRef, loop: LoopState): TurnRef => ({ ...ref, turn: loop.turn });
