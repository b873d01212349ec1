import type { RemoteLink } from '../remote/remote-link.js';

/**
 * The stand-in's records of children on remote agents, kept beside their parent. A side record
 * of the parent (like its push configs): writing one never races the parent's turns.
 *
 * - `create` MUST store the link only when none exists under `(parentId, linkId)`, and return
 *   the stored one either way (a retried creation finds the first one's link).
 * - `update` MUST store `next` only while the stored link's version is `next.version - 1`, and
 *   throw ConcurrencyConflictError otherwise.
 * - `get` MUST return `undefined`, not throw, for an unknown link; `list` returns the parent's
 *   links ordered by link id.
 * - Implementations MUST return copies: mutating a returned value never changes the store.
 */
export interface RemoteLinks {
  create(link: RemoteLink): Promise<RemoteLink>;
  update(next: RemoteLink): Promise<RemoteLink>;
  get(parentId: string, linkId: string): Promise<RemoteLink | undefined>;
  list(parentId: string): Promise<RemoteLink[]>;
}
