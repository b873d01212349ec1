import { describe, expect, it } from 'vitest';
import {
  conflictPauseMs,
  MAX_CONFLICT_PAUSE_MS,
} from '../../../functions/adapters/system/conflict-pause.js';

describe('the pause after a conflict', () => {
  it('is a random part of a bound that doubles with each conflict, up to its cap', () => {
    expect(conflictPauseMs(1, 0)).toBe(0);
    expect(conflictPauseMs(1, 0.5)).toBe(2);
    expect(conflictPauseMs(2, 0.5)).toBe(4);
    expect(conflictPauseMs(5, 0.5)).toBe(32);
    expect(conflictPauseMs(6, 0.999)).toBeLessThan(MAX_CONFLICT_PAUSE_MS);
    expect(conflictPauseMs(9, 0.999)).toBeCloseTo(0.999 * MAX_CONFLICT_PAUSE_MS, 9);
    expect(conflictPauseMs(30, 0.5)).toBe(MAX_CONFLICT_PAUSE_MS / 2);
  });
});
