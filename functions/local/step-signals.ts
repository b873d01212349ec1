import type { RouteName } from '../core/loop/route.schema.js';
import type { TaskWatch } from '../service/task-watch.js';

interface Watcher {
  signalled: boolean;
  wake: (() => void) | undefined;
}

/**
 * Which tasks something has just happened to, for waiters in the same process. The local stack
 * runs the A2A service beside the step handlers and the table's writers, so a waiter need not
 * read a task on a timer: a blocking SendMessage reads it again when one of the task's steps that
 * may settle it has returned (`mayHaveSettled`: a tool call, the park, a turn that ends), and a
 * stream reads its log again when an item of the task has been written; each on its poll
 * interval only if nothing happens. A signal that comes while the waiter is reading is kept for
 * its next wait: the read may have seen the task from before the step's commit, and the step may
 * be the turn's last (the park). In the cloud they are separate functions and the service polls.
 */
export class TaskSignals {
  readonly #watchers = new Map<string, Set<Watcher>>();

  /** Starts watching `taskId`; close the watch when done with it. */
  watch(taskId: string): TaskWatch {
    const watcher: Watcher = { signalled: false, wake: undefined };
    const watchers = this.#watchers.get(taskId) ?? new Set<Watcher>();
    this.#watchers.set(taskId, watchers);
    watchers.add(watcher);
    return {
      next: (ms) =>
        new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            watcher.wake = undefined;
            watcher.signalled = false;
            resolve();
          };
          if (watcher.signalled) {
            watcher.signalled = false;
            resolve();
            return;
          }
          const timer = setTimeout(done, ms);
          watcher.wake = done;
        }),
      close: () => {
        watcher.wake?.();
        watchers.delete(watcher);
        if (watchers.size === 0 && this.#watchers.get(taskId) === watchers) {
          this.#watchers.delete(taskId);
        }
      },
    };
  }

  /** Something happened to `taskId`: every watch of it reads again, now or at its next wait. */
  signal(taskId: string): void {
    for (const watcher of [...(this.#watchers.get(taskId) ?? [])]) {
      watcher.signalled = true;
      watcher.wake?.();
    }
  }

  /** How many tasks are watched (none once every watch is closed). */
  get watchedTasks(): number {
    return this.#watchers.size;
  }
}

/** The task a turn-step event is about (`ref` or a tool call's `call.ref`), if it names one. */
export const taskOfStep = (event: unknown): string | undefined => {
  const shaped = event as { ref?: { taskId?: unknown }; call?: { ref?: { taskId?: unknown } } };
  const taskId = shaped?.ref?.taskId ?? shaped?.call?.ref?.taskId;
  return typeof taskId === 'string' ? taskId : undefined;
};

/** Where a turn goes on in this execution: its next step is the one that may settle it. */
const GOES_ON: ReadonlySet<RouteName> = new Set(['park', 'execute_tools', 'turn', 'renew']);

/**
 * Whether a returned step may have left its task settled (parked with its token, or ended), so
 * its waiters should read it now: not a turn whose route goes on to another step (to the park,
 * its tool calls, the next turn or the next generation's), which would only cost a read that
 * finds it unsettled. Anything else (a park, a tool call, an end, a failure, a result of no known
 * shape) may have.
 */
export const mayHaveSettled = (result: unknown): boolean => {
  const next = (result as { route?: { next?: unknown } } | undefined)?.route?.next;
  return !(typeof next === 'string' && GOES_ON.has(next as RouteName));
};
