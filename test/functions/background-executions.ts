import type { LoopDeps } from '../../functions/core/loop/deps.js';
import type { TurnRef } from '../../functions/core/loop/route.schema.js';
import { runTask } from '../../functions/core/testing/driver.js';
import type { Executions } from '../../functions/service/executions.js';

/**
 * Executions that run each turn on the in-memory ports after the call returns, as Step Functions
 * runs them after StartExecution: what a caller sees is the task changing while it watches.
 * `idle()` waits for every turn started so far.
 */
export class BackgroundExecutions implements Executions {
  readonly #deps: LoopDeps;
  readonly #parkedOn = new Map<string, string>();
  /** Runs queued or in progress, per task. */
  readonly #active = new Map<string, number>();
  #running: Promise<void> = Promise.resolve();

  constructor(deps: LoopDeps) {
    this.#deps = deps;
  }

  async start(ref: TurnRef): Promise<void> {
    this.#later(ref.taskId);
  }

  async resume(token: string): Promise<boolean> {
    const taskId = this.#parkedOn.get(token);
    if (taskId === undefined) return false;
    this.#parkedOn.delete(token);
    this.#later(taskId);
    return true;
  }

  async isRunning(taskId: string): Promise<boolean> {
    return (this.#active.get(taskId) ?? 0) > 0;
  }

  async fail(): Promise<void> {}

  async stop(): Promise<void> {}

  idle(): Promise<void> {
    return this.#running;
  }

  #later(taskId: string): void {
    this.#active.set(taskId, (this.#active.get(taskId) ?? 0) + 1);
    this.#running = this.#running.then(async () => {
      try {
        // A macrotask later: the caller's own awaits finish first, as with a real service.
        await new Promise((resolve) => setTimeout(resolve, 1));
        const outcome = await runTask(this.#deps, taskId);
        if (outcome.kind === 'parked') this.#parkedOn.set(outcome.token, taskId);
      } finally {
        this.#active.set(taskId, (this.#active.get(taskId) ?? 1) - 1);
      }
    });
  }
}
