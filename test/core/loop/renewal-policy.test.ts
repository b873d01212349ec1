import { describe, expect, it } from 'vitest';
import { initialLoopState } from '../../../functions/core/loop/loop-state.schema.js';
import {
  HISTORY_EVENT_BUDGET,
  HISTORY_EVENTS_PER_TOOL_CALL,
  shouldRenew,
} from '../../../functions/core/loop/renewal-policy.js';

const loop = (turns: number, calls: number, started = { turn: 0, calls: 0 }) => ({
  ...initialLoopState(),
  turn: started.turn + turns,
  generationStartTurn: started.turn,
  toolCalls: started.calls + calls,
  generationStartToolCalls: started.calls,
});

describe('when a generation renews', () => {
  it('renews after turnsPerGeneration turns counted from the generation start', () => {
    expect(shouldRenew(loop(199, 0), { turnsPerGeneration: 200 })).toBe(false);
    expect(shouldRenew(loop(200, 0), { turnsPerGeneration: 200 })).toBe(true);
    expect(shouldRenew(loop(199, 0, { turn: 400, calls: 0 }), { turnsPerGeneration: 200 })).toBe(
      false
    );
  });

  it('renews sooner when tool-heavy turns would bring the history near the 25,000-event limit', () => {
    const calls = Math.ceil(HISTORY_EVENT_BUDGET / HISTORY_EVENTS_PER_TOOL_CALL);
    expect(shouldRenew(loop(10, calls), { turnsPerGeneration: 200 })).toBe(true);
    expect(shouldRenew(loop(10, 40), { turnsPerGeneration: 200 })).toBe(false);
    // 200 turns of 20 calls each would overflow: renewal comes well before turn 200.
    const firstRenewal = Array.from({ length: 200 }, (_, turn) => turn + 1).find((turns) =>
      shouldRenew(loop(turns, turns * 20), { turnsPerGeneration: 200 })
    );
    expect(firstRenewal).toBeLessThan(200);
    expect((firstRenewal ?? 0) * (26 + 20 * 7)).toBeLessThan(25_000);
  });
});
