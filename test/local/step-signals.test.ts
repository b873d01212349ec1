import { describe, expect, it } from 'vitest';
import { StepSignals, taskOfStep } from '../../functions/local/step-signals.js';

describe("the local stack's step signals", () => {
  it("wake a task's waiters when one of its steps returns, and no other task's", async () => {
    const signals = new StepSignals();
    const woken: string[] = [];
    const a = signals.wait('task-a', 10_000).then(() => woken.push('a'));
    const b = signals.wait('task-b', 50).then(() => woken.push('b'));

    signals.stepped('task-a');
    await a;
    expect(woken).toEqual(['a']);
    await b;
    expect(woken).toEqual(['a', 'b']);
  });

  it('let a waiter go after its interval when no step returns', async () => {
    const signals = new StepSignals();
    const started = performance.now();
    await signals.wait('task-a', 30);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    // Nobody waits any more: a step now wakes nothing, and throws nothing.
    signals.stepped('task-a');
  });

  it("read the task of a turn step's event: its ref, or its tool call's", () => {
    const ref = { taskId: 't-1', generation: 1, turn: 0 };
    expect(taskOfStep({ op: 'turn', ref })).toBe('t-1');
    expect(taskOfStep({ op: 'execute_tool', call: { ref, callId: 'c' } })).toBe('t-1');
    expect(taskOfStep({ op: 'turn' })).toBeUndefined();
    expect(taskOfStep(null)).toBeUndefined();
  });
});
