/**
 * How the CLI's requests meet an agent's refusals: a 429 is sent again after Retry-After within a
 * bounded wait, a 401 becomes an error that says what to do. Against a small HTTP server that
 * answers what each case needs; the waits are recorded, not slept.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentFetch, RETRY_BUDGET_MS, retryAfterMs } from '../../functions/cli/agent-fetch.js';
import { CliError } from '../../functions/cli/cli-error.js';

describe("the CLI's requests to an agent", () => {
  let server: Server;
  let url = '';
  /** What the server answers next, first to last; then 200. */
  let answers: Array<{ status: number; headers?: Record<string, string> }> = [];
  const seen: Array<{ authorization: string | undefined; body: string }> = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        seen.push({ authorization: request.headers.authorization, body });
        const answer = answers.shift() ?? { status: 200 };
        response.writeHead(answer.status, answer.headers).end('{}');
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => {
    server.close();
  });

  const fetchWith = (token: string | undefined) => {
    const waits: number[] = [];
    const call = agentFetch({
      token,
      tokenFrom: '--token',
      url,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    return { call, waits };
  };

  it('sends a 429d request again, the same, after Retry-After, waiting 1 s, then 2, 4 … at most', async () => {
    answers = [
      { status: 429, headers: { 'Retry-After': '30' } },
      { status: 429, headers: { 'Retry-After': '30' } },
      { status: 429, headers: { 'Retry-After': '1' } },
    ];
    seen.length = 0;
    const { call, waits } = fetchWith('t-1');
    const response = await call(url, { method: 'POST', body: '{"a":1}' });
    expect(response.status).toBe(200);
    expect(waits).toEqual([1_000, 2_000, 1_000]);
    expect(seen).toEqual(Array(4).fill({ authorization: 'Bearer t-1', body: '{"a":1}' }));
  });

  it('gives up after 30 s of waiting in all, answering with the last 429', async () => {
    answers = Array(20).fill({ status: 429, headers: { 'Retry-After': '60' } });
    const { call, waits } = fetchWith('t-1');
    const response = await call(url);
    expect(response.status).toBe(429);
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(waits.reduce((sum, ms) => sum + ms, 0)).toBeLessThanOrEqual(RETRY_BUDGET_MS);
    answers = [];
  });

  it('stops waiting when the request is aborted', async () => {
    answers = [{ status: 429, headers: { 'Retry-After': '5' } }];
    const controller = new AbortController();
    const call = agentFetch({
      token: 't-1',
      tokenFrom: '--token',
      url,
      sleep: async () => {
        controller.abort();
      },
    });
    await expect(call(url, { signal: controller.signal })).rejects.toThrow(/abort/i);
  });

  it('names a 401 and what to do, with a token and without one', async () => {
    answers = [{ status: 401 }, { status: 401 }];
    await expect(fetchWith('wrong').call(url)).rejects.toThrow(
      new CliError(
        `401 Unauthorized: the agent at ${url} refused the bearer token from --token: pass the right one with --token (or TINY_HARNESS_TOKEN), or leave both out to use the one \`npm start\` wrote`
      )
    );
    await expect(fetchWith(undefined).call(url)).rejects.toThrow(
      `401 Unauthorized: the agent at ${url} wants a bearer token: pass --token (or set TINY_HARNESS_TOKEN)`
    );
  });

  it('reads Retry-After as seconds or as a date, and as 1 s when it is neither', () => {
    const now = Date.parse('2026-12-04T12:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3_000);
    expect(retryAfterMs(new Date(now + 7_000).toUTCString(), now)).toBe(7_000);
    expect(retryAfterMs(null, now)).toBe(1_000);
    expect(retryAfterMs('soon', now)).toBe(1_000);
  });
});
