import { RemoteCallError } from '../../core/errors.js';
import { describe } from './credentials.js';

interface Cached {
  raw: unknown;
  etag: string | null;
  /** When the card may be used without asking again (its Cache-Control max-age). */
  freshUntil: number;
}

/** How long a card is used without asking again when its answer says nothing (max-age). */
const DEFAULT_MAX_AGE_S = 300;
/** At most this long, whatever the agent says: a card that changed is seen within the hour. */
const MAX_AGE_CAP_S = 3_600;

const maxAgeOf = (cacheControl: string | null): number => {
  if (cacheControl === null) return DEFAULT_MAX_AGE_S;
  if (/\bno-(cache|store)\b/i.test(cacheControl)) return 0;
  const match = /\bmax-age=(\d+)/i.exec(cacheControl);
  return match === null ? DEFAULT_MAX_AGE_S : Math.min(Number(match[1]), MAX_AGE_CAP_S);
};

/**
 * Agent cards, fetched and cached per URL: a fresh one (within its Cache-Control max-age) is
 * used as it is; a stale one is revalidated with `If-None-Match` and its ETag, and a 304 keeps
 * it. When the agent cannot be reached, a card already fetched is used rather than nothing (the
 * calls to the agent will tell whether it is down).
 */
export class AgentCardCache {
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  readonly #cards = new Map<string, Cached>();

  constructor(options: { fetch: typeof fetch; timeoutMs: number; now?: () => number }) {
    this.#fetch = options.fetch;
    this.#timeoutMs = options.timeoutMs;
    this.#now = options.now ?? Date.now;
  }

  /** The card's JSON, as the agent last served it. */
  async get(url: string): Promise<unknown> {
    const cached = this.#cards.get(url);
    if (cached !== undefined && cached.freshUntil > this.#now()) return cached.raw;
    let response: Response;
    try {
      response = await this.#fetch(url, {
        headers: {
          Accept: 'application/json',
          ...(cached?.etag == null ? {} : { 'If-None-Match': cached.etag }),
        },
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      if (cached !== undefined) return cached.raw;
      throw new RemoteCallError(
        'unreachable',
        `its card at ${url} did not answer: ${describe(error)}`,
        {
          cause: error,
        }
      );
    }
    const freshUntil = this.#now() + maxAgeOf(response.headers.get('cache-control')) * 1000;
    if (response.status === 304 && cached !== undefined) {
      this.#cards.set(url, { ...cached, freshUntil });
      return cached.raw;
    }
    if (!response.ok) {
      if (cached !== undefined) return cached.raw;
      throw new RemoteCallError(
        'unreachable',
        `its card at ${url} answered HTTP ${response.status}`
      );
    }
    let raw: unknown;
    try {
      raw = await response.json();
    } catch {
      throw new RemoteCallError('garbage', `its card at ${url} is not JSON`);
    }
    this.#cards.set(url, { raw, etag: response.headers.get('etag'), freshUntil });
    return raw;
  }
}
