/**
 * A loop's wait that something else may end early: `wait` resolves after `ms` (never, without
 * one), or as soon as `wake` is called. A wake with nobody waiting is not kept: a loop checks its
 * own state before it waits, in the same turn.
 */
export class Wakeup {
  #end: (() => void) | undefined;

  wait(ms?: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(() => this.#end?.(), ms);
      this.#end = () => {
        clearTimeout(timer);
        this.#end = undefined;
        resolve();
      };
    });
  }

  wake(): void {
    this.#end?.();
  }
}
