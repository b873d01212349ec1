/**
 * A waiter's view of what happens to one task, where it happens in its process (`npm start`): its
 * steps returning, or its items written.
 */
export interface TaskWatch {
  /**
   * Resolves at once when something happened to the task since the watch began or since `next`
   * last resolved; else when something does, or after `ms`.
   */
  next(ms: number): Promise<void>;
  /** The watch ends: nothing is kept for it any more. */
  close(): void;
}
