import { describe, expect, it } from 'vitest';
import { mayHaveSettled, TaskSignals, taskOfStep } from '../../functions/local/step-signals.js';

describe("the local stack's step signals", () => {
  it("wake a task's watches when one of its steps returns, and no other task's", async () => {
    const signals = new TaskSignals();
    const woken: string[] = [];
    const [watchA, watchB] = [signals.watch('task-a'), signals.watch('task-b')];
    const a = watchA.next(10_000).then(() => woken.push('a'));
    const b = watchB.next(50).then(() => woken.push('b'));

    signals.signal('task-a');
    await a;
    expect(woken).toEqual(['a']);
    await b;
    expect(woken).toEqual(['a', 'b']);
    watchA.close();
    watchB.close();
    expect(signals.watchedTasks).toBe(0);
  });

  it('keep a step that returned while the waiter was not waiting (reading the task) for its next wait', async () => {
    const signals = new TaskSignals();
    const watch = signals.watch('task-a');
    // The waiter reads the task; meanwhile the turn's last step (the park) returns.
    signals.signal('task-a');
    const started = performance.now();
    await watch.next(10_000);
    expect(performance.now() - started).toBeLessThan(1_000);
    // Kept once: the wait after it waits for the next step (or its interval).
    const next = performance.now();
    await watch.next(30);
    expect(performance.now() - next).toBeGreaterThanOrEqual(25);
    watch.close();
  });

  it('let a waiter go after its interval when no step returns', async () => {
    const signals = new TaskSignals();
    const watch = signals.watch('task-a');
    const started = performance.now();
    await watch.next(30);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    watch.close();
    // Nobody watches any more: a step now wakes nothing, keeps nothing, and throws nothing.
    signals.signal('task-a');
    expect(signals.watchedTasks).toBe(0);
  });

  it("read the task of a turn step's event: its ref, or its tool call's", () => {
    const ref = { taskId: 't-1', generation: 1, turn: 0 };
    expect(taskOfStep({ op: 'turn', ref })).toBe('t-1');
    expect(taskOfStep({ op: 'execute_tool', call: { ref, callId: 'c' } })).toBe('t-1');
    expect(taskOfStep({ op: 'turn' })).toBeUndefined();
    expect(taskOfStep(null)).toBeUndefined();
  });

  it('say a turn that goes on to another step cannot have settled its task, and anything else may have', () => {
    const ref = { taskId: 't', generation: 1, turn: 1 };
    for (const next of ['park', 'execute_tools', 'turn', 'renew']) {
      expect(mayHaveSettled({ ref, route: { next } })).toBe(false);
    }
    expect(mayHaveSettled({ ref, route: { next: 'end', state: 'TASK_STATE_COMPLETED' } })).toBe(
      true
    );
    expect(mayHaveSettled({ ref, route: { next: 'superseded' } })).toBe(true);
    // A park's, a tool call's, or a result of no known shape.
    expect(mayHaveSettled({ wakeNow: false })).toBe(true);
    expect(mayHaveSettled({})).toBe(true);
    expect(mayHaveSettled(undefined)).toBe(true);
  });
});
