import { HookAbortError } from '../errors.js';

/**
 * Operation hooks. Every hook point has three phases:
 * - `pre` executors run in order and may rewrite the context (return a new one) or veto the
 *   operation by throwing `HookAbortError`;
 * - `in` executors run in order until one returns a result: that result is the operation's.
 *   The built-in body sits at priority 1000, so a lower-priority executor replaces it;
 * - `post` executors run in order and observe the context and the result.
 * Order is (priority ascending, then registration). Hooks run in Lambdas, never in the state
 * machine definition.
 */
export const BUILT_IN_PRIORITY = 1000;

export type HookPhase = 'pre' | 'in' | 'post';

export type InExecutorOutcome<R> = { result: R } | undefined;

export interface PreExecutor<C> {
  phase: 'pre';
  priority: number;
  run(context: C): Promise<C | undefined> | C | undefined;
}
export interface InExecutor<C, R> {
  phase: 'in';
  priority: number;
  run(context: C): Promise<InExecutorOutcome<R>> | InExecutorOutcome<R>;
}
export interface PostExecutor<C, R> {
  phase: 'post';
  priority: number;
  run(context: C, result: R): Promise<void> | void;
}
export type HookExecutor<C, R> = PreExecutor<C> | InExecutor<C, R> | PostExecutor<C, R>;

interface Registered<C, R> {
  executor: HookExecutor<C, R>;
  order: number;
}

/** A point's context and result types. Points are named `<object>.<event>`. */
export interface HookPointTypes {
  [point: string]: { context: unknown; result: unknown };
}

export class Hooks<P extends HookPointTypes> {
  readonly #executors = new Map<keyof P, Registered<unknown, unknown>[]>();
  #registrations = 0;

  register<K extends keyof P>(
    point: K,
    executor: HookExecutor<P[K]['context'], P[K]['result']>
  ): this {
    const list = this.#executors.get(point) ?? [];
    list.push({
      executor: executor as HookExecutor<unknown, unknown>,
      order: this.#registrations++,
    });
    list.sort((a, b) => a.executor.priority - b.executor.priority || a.order - b.order);
    this.#executors.set(point, list);
    return this;
  }

  /**
   * Runs the operation `point` around its built-in body. Throws `HookAbortError` when a pre
   * executor vetoes; the body is then never called.
   */
  async run<K extends keyof P>(
    point: K,
    context: P[K]['context'],
    body: (context: P[K]['context']) => Promise<P[K]['result']> | P[K]['result']
  ): Promise<P[K]['result']> {
    type C = P[K]['context'];
    type R = P[K]['result'];
    const builtIn: InExecutor<C, R> = {
      phase: 'in',
      priority: BUILT_IN_PRIORITY,
      run: async (ctx) => ({ result: await body(ctx) }),
    };
    const registered = (this.#executors.get(point) ?? []) as Registered<C, R>[];
    const all = [...registered, { executor: builtIn, order: Number.MAX_SAFE_INTEGER }].sort(
      (a, b) => a.executor.priority - b.executor.priority || a.order - b.order
    );

    let current = context;
    for (const { executor } of all) {
      if (executor.phase === 'pre') current = (await executor.run(current)) ?? current;
    }
    let outcome: InExecutorOutcome<R>;
    for (const { executor } of all) {
      if (executor.phase !== 'in') continue;
      outcome = await executor.run(current);
      if (outcome !== undefined) break;
    }
    if (outcome === undefined) {
      throw new HookAbortError(`no executor produced a result for ${String(point)}`);
    }
    for (const { executor } of all) {
      if (executor.phase === 'post') await executor.run(current, outcome.result);
    }
    return outcome.result;
  }
}
