/**
 * Which tasks' turn and tool steps have just run, for waiters in the same process. The local
 * stack runs the A2A service and the step handlers side by side, so a blocking SendMessage need
 * not read the task on a timer: it reads it again when one of the task's steps has returned (the
 * turn, a tool call, the park), and on its poll interval only if none does. In the cloud they are
 * separate functions and the service polls.
 */
export class StepSignals {
  readonly #waiters = new Map<string, Set<() => void>>();

  /** Resolves when a step of `taskId` returns, or after `ms`. */
  wait(taskId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const waiters = this.#waiters.get(taskId) ?? new Set<() => void>();
      this.#waiters.set(taskId, waiters);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0 && this.#waiters.get(taskId) === waiters) {
          this.#waiters.delete(taskId);
        }
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
    });
  }

  /** A step of `taskId` returned: every waiter on it reads the task again. */
  stepped(taskId: string): void {
    for (const done of [...(this.#waiters.get(taskId) ?? [])]) done();
  }
}

/** The task a turn-step event is about (`ref` or a tool call's `call.ref`), if it names one. */
export const taskOfStep = (event: unknown): string | undefined => {
  const shaped = event as { ref?: { taskId?: unknown }; call?: { ref?: { taskId?: unknown } } };
  const taskId = shaped?.ref?.taskId ?? shaped?.call?.ref?.taskId;
  return typeof taskId === 'string' ? taskId : undefined;
};
