import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConcurrencyConflictError } from '../../functions/core/errors.js';
import type { RemoteLinks } from '../../functions/core/ports/remote-links.js';
import { creatingLink, type RemoteLink } from '../../functions/core/remote/remote-link.js';
import { uid } from './fixtures.js';

export interface RemoteLinksFixture {
  links: RemoteLinks;
  cleanup?: () => Promise<void>;
}

let counter = 0;
const makeLink = (parentId: string): RemoteLink =>
  creatingLink({
    parentId,
    linkId: (++counter).toString(16).padStart(32, '0'),
    agent: 'ledger',
    messageId: `${parentId}:1:1:call-${counter}`,
    delivery: 'push',
    tokenHash: 'ab'.repeat(32),
    now: '2026-01-01T00:00:00.000Z',
  });

/**
 * The `RemoteLinks` port contract (functions/core/ports/remote-links.ts), one test per clause,
 * run by the in-memory fake and the DynamoDB adapter.
 */
export const describeRemoteLinksContract = (
  name: string,
  makeLinks: () => Promise<RemoteLinksFixture>
) => {
  describe(`RemoteLinks contract: ${name}`, () => {
    let fixture: RemoteLinksFixture;
    let links: RemoteLinks;

    beforeAll(async () => {
      fixture = await makeLinks();
      links = fixture.links;
    });

    afterAll(async () => {
      await fixture?.cleanup?.();
    });

    it('create stores a new link and returns it; a second create returns the first, unchanged', async () => {
      const link = makeLink(uid('parent'));
      expect(await links.create(link)).toEqual(link);
      const again = await links.create({ ...link, agent: 'other', tokenHash: null });
      expect(again).toEqual(link);
      expect(await links.get(link.parentId, link.linkId)).toEqual(link);
    });

    it('update stores the next version only over the one before it', async () => {
      const link = await links.create(makeLink(uid('parent')));
      const next = { ...link, phase: 'following' as const, remoteTaskId: 'r-1', version: 2 };
      expect(await links.update(next)).toEqual(next);
      await expect(links.update({ ...next, remoteTaskId: 'r-2' })).rejects.toThrow(
        ConcurrencyConflictError
      );
      await expect(links.update({ ...next, version: 4 })).rejects.toThrow(ConcurrencyConflictError);
      expect(await links.get(link.parentId, link.linkId)).toEqual(next);
    });

    it('get answers undefined for an unknown link; list gives a parent its links in link id order', async () => {
      const parentId = uid('parent');
      expect(await links.get(parentId, 'f'.repeat(32))).toBeUndefined();
      expect(await links.list(parentId)).toEqual([]);
      const first = makeLink(parentId);
      const second = makeLink(parentId);
      await links.create(second);
      await links.create(first);
      await links.create(makeLink(uid('other-parent')));
      expect(await links.list(parentId)).toEqual([first, second]);
    });

    it('returns copies: changing a returned link changes nothing stored', async () => {
      const link = await links.create(makeLink(uid('parent')));
      link.agent = 'changed';
      const stored = await links.get(link.parentId, link.linkId);
      expect(stored?.agent).toBe('ledger');
      if (stored !== undefined) stored.summary = 'changed';
      expect((await links.get(link.parentId, link.linkId))?.summary).toBe('');
    });
  });
};
