import { describe, expect, it } from 'vitest';
import { HookAbortError } from '../../../functions/core/errors.js';
import { BUILT_IN_PRIORITY, Hooks } from '../../../functions/core/hooks/hooks.js';

interface Points {
  [point: string]: { context: unknown; result: unknown };
  'plan.created': { context: { steps: string[] }; result: string };
  'step.finished': { context: { step: string }; result: string };
}

const context = () => ({ steps: ['a', 'b'] });

/** A body that records its calls and joins the steps. */
const recordingBody = () => {
  const calls: Array<{ steps: string[] }> = [];
  const body = (ctx: { steps: string[] }) => {
    calls.push(ctx);
    return `body:${ctx.steps.join(',')}`;
  };
  return { calls, body };
};

describe('Hooks', () => {
  it('runs the built-in body alone when nothing is registered', async () => {
    const { calls, body } = recordingBody();
    expect(await new Hooks<Points>().run('plan.created', context(), body)).toBe('body:a,b');
    expect(calls).toHaveLength(1);
  });

  it('orders executors by priority, then by registration', async () => {
    const order: string[] = [];
    const pre = (label: string, priority: number) => ({
      phase: 'pre' as const,
      priority,
      run: () => {
        order.push(label);
        return undefined;
      },
    });
    const hooks = new Hooks<Points>()
      .register('plan.created', pre('late', 50))
      .register('plan.created', pre('first-10', 10))
      .register('plan.created', pre('second-10', 10))
      .register('plan.created', pre('early', 1));
    await hooks.run('plan.created', context(), () => 'done');
    expect(order).toEqual(['early', 'first-10', 'second-10', 'late']);
  });

  it('lets a pre executor rewrite the context the body and later executors see', async () => {
    const { calls, body } = recordingBody();
    const seenByLater: unknown[] = [];
    const hooks = new Hooks<Points>()
      .register('plan.created', {
        phase: 'pre',
        priority: 10,
        run: (ctx) => ({ steps: [...ctx.steps, 'c'] }),
      })
      .register('plan.created', {
        phase: 'pre',
        priority: 20,
        run: (ctx) => {
          seenByLater.push(ctx);
          return undefined; // keeps the context as it is
        },
      });
    expect(await hooks.run('plan.created', context(), body)).toBe('body:a,b,c');
    expect(seenByLater).toEqual([{ steps: ['a', 'b', 'c'] }]);
    expect(calls).toEqual([{ steps: ['a', 'b', 'c'] }]);
  });

  it('lets a pre executor veto with HookAbortError: the body never runs, nor post', async () => {
    const { calls, body } = recordingBody();
    const posts: unknown[] = [];
    const hooks = new Hooks<Points>()
      .register('plan.created', {
        phase: 'pre',
        priority: 10,
        run: () => {
          throw new HookAbortError('plans are frozen');
        },
      })
      .register('plan.created', {
        phase: 'post',
        priority: 10,
        run: (_ctx, r) => void posts.push(r),
      });
    await expect(hooks.run('plan.created', context(), body)).rejects.toThrow(HookAbortError);
    expect(calls).toEqual([]);
    expect(posts).toEqual([]);
  });

  it('lets an in executor below the built-in priority replace the body', async () => {
    const { calls, body } = recordingBody();
    const hooks = new Hooks<Points>().register('plan.created', {
      phase: 'in',
      priority: BUILT_IN_PRIORITY - 1,
      run: (ctx) => ({ result: `plugin:${ctx.steps.length}` }),
    });
    expect(await hooks.run('plan.created', context(), body)).toBe('plugin:2');
    expect(calls).toEqual([]);
  });

  it('falls through to the body when an in executor returns undefined', async () => {
    const { calls, body } = recordingBody();
    let consulted = 0;
    const hooks = new Hooks<Points>().register('plan.created', {
      phase: 'in',
      priority: 10,
      run: () => {
        consulted += 1;
        return undefined;
      },
    });
    expect(await hooks.run('plan.created', context(), body)).toBe('body:a,b');
    expect(consulted).toBe(1);
    expect(calls).toHaveLength(1);
  });

  it('never reaches an in executor above the built-in priority: the body answers first', async () => {
    let consulted = 0;
    const hooks = new Hooks<Points>().register('plan.created', {
      phase: 'in',
      priority: BUILT_IN_PRIORITY + 1,
      run: () => {
        consulted += 1;
        return { result: 'never' };
      },
    });
    expect(await hooks.run('plan.created', context(), () => 'body')).toBe('body');
    expect(consulted).toBe(0);
  });

  it('shows post executors the final context and the result, in order', async () => {
    const seen: unknown[] = [];
    const hooks = new Hooks<Points>()
      .register('plan.created', { phase: 'pre', priority: 1, run: () => ({ steps: ['x'] }) })
      .register('plan.created', {
        phase: 'post',
        priority: 20,
        run: (ctx, result) => void seen.push(['second', ctx, result]),
      })
      .register('plan.created', {
        phase: 'post',
        priority: 10,
        run: async (ctx, result) => void seen.push(['first', ctx, result]),
      });
    expect(await hooks.run('plan.created', context(), (ctx) => ctx.steps.join('+'))).toBe('x');
    expect(seen).toEqual([
      ['first', { steps: ['x'] }, 'x'],
      ['second', { steps: ['x'] }, 'x'],
    ]);
  });

  it('keeps points apart', async () => {
    const hooks = new Hooks<Points>().register('step.finished', {
      phase: 'in',
      priority: 1,
      run: () => ({ result: 'replaced' }),
    });
    expect(await hooks.run('plan.created', context(), () => 'body')).toBe('body');
    expect(await hooks.run('step.finished', { step: 'a' }, () => 'body')).toBe('replaced');
  });

  it('awaits async executors and bodies', async () => {
    const hooks = new Hooks<Points>().register('plan.created', {
      phase: 'pre',
      priority: 1,
      run: async (ctx) => ({ steps: [...ctx.steps].reverse() }),
    });
    expect(await hooks.run('plan.created', context(), async (ctx) => ctx.steps.join(''))).toBe(
      'ba'
    );
  });
});
