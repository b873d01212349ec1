import type { LinkRef } from '../remote/remote-link.js';

/**
 * Starts the stand-in of a child on a remote agent: a small execution that follows the remote
 * task (polls it with backoff, takes pushes' news, sends a cancel) until it ends. Starting one
 * that runs already under the same name is a no-op.
 */
export interface RemoteFollowers {
  /**
   * `run` names the execution: 1 at creation, the next number when one renews itself, `cancel`
   * when the parent was canceled (it sends the CancelTask, then ends).
   */
  start(ref: LinkRef, run: number | 'cancel'): Promise<void>;
}
