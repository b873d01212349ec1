import type { LoopConfig } from './config.js';
import type { LoopState } from './loop-state.schema.js';

/**
 * What one execution spends of its history, measured by `npm run bench` on the synthesized state
 * machine ("History events per turn ≈ …"): about 11 events per model turn (13 with the park of a
 * chat turn) and 7 more per tool call (each call is a Map iteration of its own). Rounded up.
 */
export const HISTORY_EVENTS_PER_TURN = 13;
export const HISTORY_EVENTS_PER_TOOL_CALL = 7;

/** A Standard execution holds at most 25,000 events; renew well before, leaving a margin. */
export const HISTORY_EVENT_BUDGET = 20_000;

/**
 * Whether the running generation must hand over to a new execution (continue-as-new) before its
 * next turn: after `turnsPerGeneration` turns, or sooner when tool-heavy turns would bring the
 * history near its limit.
 */
export const shouldRenew = (
  loop: LoopState,
  config: Pick<LoopConfig, 'turnsPerGeneration'>
): boolean => {
  const turns = loop.turn - loop.generationStartTurn;
  const calls = loop.toolCalls - loop.generationStartToolCalls;
  return (
    turns >= config.turnsPerGeneration ||
    turns * HISTORY_EVENTS_PER_TURN + calls * HISTORY_EVENTS_PER_TOOL_CALL >= HISTORY_EVENT_BUDGET
  );
};
