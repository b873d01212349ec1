/**
 * The fetch every request to the agent goes through: it carries the bearer token, waits out a
 * 429 for as long as the agent's Retry-After says (bounded), and turns a 401 into an error that
 * says what to do. The SDK clients report a refused stream as "An unexpected error occurred." and
 * lose the status; here it is still known.
 */
import { CliError } from './cli-error.js';

/** At most this long waited in all for one request's 429s; past it, the 429 is the answer. */
export const RETRY_BUDGET_MS = 30_000;
/**
 * The first wait at most, doubled on each retry: Retry-After is the agent's guess at a limit it
 * cannot time (a stream cap says 30 s, while the stream a person stopped waiting for is usually
 * released within a second), so it bounds each wait rather than sets it.
 */
const FIRST_WAIT_MS = 1_000;

export interface AgentFetchOptions {
  token: string | undefined;
  /** Where the token came from, to say which to change when the agent refuses it. */
  tokenFrom: string;
  url: string;
  /** The waits, replaceable in tests. */
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
}

const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((done) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        done();
      },
      { once: true }
    );
  });

/** Retry-After as milliseconds: delta-seconds or an HTTP-date (RFC 9110 §10.2.3); 1 s if absent. */
export const retryAfterMs = (value: string | null, now = Date.now()): number => {
  if (value === null || value.trim() === '') return 1_000;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1_000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? 1_000 : Math.max(0, at - now);
};

export const unauthorized = (options: AgentFetchOptions): CliError =>
  new CliError(
    options.token === undefined
      ? `401 Unauthorized: the agent at ${options.url} wants a bearer token: pass --token (or set TINY_HARNESS_TOKEN)`
      : `401 Unauthorized: the agent at ${options.url} refused the bearer token from ${options.tokenFrom}: pass the right one with --token (or TINY_HARNESS_TOKEN), or leave both out to use the one \`npm start\` wrote`
  );

export const agentFetch = (options: AgentFetchOptions): typeof fetch => {
  const wait = options.sleep ?? sleep;
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    if (options.token !== undefined) headers.set('Authorization', `Bearer ${options.token}`);
    const request = { ...init, headers };
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      const response = await fetch(input, request);
      if (response.status === 401) {
        await response.body?.cancel();
        throw unauthorized(options);
      }
      // A limit reached (too many requests, too many open streams: a stream the person stopped
      // waiting for is released once the agent sees it closed): the same request, a moment later.
      if (response.status !== 429 || init?.signal?.aborted === true) return response;
      const ms = Math.min(
        FIRST_WAIT_MS * 2 ** attempt,
        retryAfterMs(response.headers.get('retry-after'))
      );
      if (waited + ms > RETRY_BUDGET_MS) return response;
      await response.body?.cancel();
      await wait(ms, init?.signal ?? undefined);
      waited += ms;
      init?.signal?.throwIfAborted();
    }
  };
};
