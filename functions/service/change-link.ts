import { ConcurrencyConflictError } from '../core/errors.js';
import type { RemoteLinks } from '../core/ports/remote-links.js';
import type { LinkRef, RemoteLink } from '../core/remote/remote-link.js';

const MAX_ATTEMPTS = 10;

/**
 * One read, one pure decision, one conditional write of a link; decided again on the link as it
 * now is when another follower wrote first (a push and a poll at once). What was learnt from the
 * agent is captured by `decide`, never asked again. Undefined when the link does not exist.
 */
export const changeLink = async (
  links: RemoteLinks,
  ref: LinkRef,
  decide: (link: RemoteLink) => RemoteLink
): Promise<RemoteLink | undefined> => {
  for (let attempt = 1; ; attempt++) {
    const link = await links.get(ref.parentId, ref.linkId);
    if (link === undefined) return undefined;
    const next = decide(link);
    if (next === link) return link;
    try {
      return await links.update({ ...next, version: link.version + 1 });
    } catch (error) {
      if (error instanceof ConcurrencyConflictError && attempt < MAX_ATTEMPTS) continue;
      throw error;
    }
  }
};
