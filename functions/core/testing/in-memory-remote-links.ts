import { ConcurrencyConflictError } from '../errors.js';
import type { RemoteLinks } from '../ports/remote-links.js';
import { type RemoteLink, RemoteLinkSchema } from '../remote/remote-link.js';

/**
 * The in-memory `RemoteLinks`: the port's reference behaviour and the fake tests use. Links are
 * kept as JSON text, so nothing a caller holds aliases the store.
 */
export class InMemoryRemoteLinks implements RemoteLinks {
  readonly #links = new Map<string, string>();

  static #key(parentId: string, linkId: string): string {
    return `${parentId}\u0000${linkId}`;
  }

  async create(link: RemoteLink): Promise<RemoteLink> {
    const key = InMemoryRemoteLinks.#key(link.parentId, link.linkId);
    const existing = this.#links.get(key);
    if (existing !== undefined) return JSON.parse(existing) as RemoteLink;
    const text = JSON.stringify(RemoteLinkSchema.parse(link));
    this.#links.set(key, text);
    return JSON.parse(text) as RemoteLink;
  }

  async update(next: RemoteLink): Promise<RemoteLink> {
    const key = InMemoryRemoteLinks.#key(next.parentId, next.linkId);
    const stored = this.#links.get(key);
    const version = stored === undefined ? undefined : (JSON.parse(stored) as RemoteLink).version;
    if (version !== next.version - 1) {
      throw new ConcurrencyConflictError(`remote link ${next.linkId} changed since it was read`);
    }
    const text = JSON.stringify(RemoteLinkSchema.parse(next));
    this.#links.set(key, text);
    return JSON.parse(text) as RemoteLink;
  }

  async get(parentId: string, linkId: string): Promise<RemoteLink | undefined> {
    const text = this.#links.get(InMemoryRemoteLinks.#key(parentId, linkId));
    return text === undefined ? undefined : (JSON.parse(text) as RemoteLink);
  }

  async list(parentId: string): Promise<RemoteLink[]> {
    return [...this.#links.entries()]
      .filter(([key]) => key.startsWith(`${parentId}\u0000`))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, text]) => JSON.parse(text) as RemoteLink);
  }
}
