// @vitest-environment happy-dom
/** What the page does before it draws: its configuration, its addresses, its calls, its budget. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { questionOf } from '../../../functions/view/labels.js';
import { FIRST_LOAD_BUDGET_BYTES, measure } from '../../../web/budget.js';
import { authorizedFetch, retryAfterMs } from '../../../web/src/agent/agent.js';
import { readExtension } from '../../../web/src/agent/read.js';
import { hrefOf, type Route, routeOf } from '../../../web/src/app/route.js';
import type { Session } from '../../../web/src/auth/session.js';
import { parseConfig } from '../../../web/src/config.js';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('the configuration', () => {
  it('takes a token or a Cognito configuration, and names what is wrong with anything else', () => {
    const local = {
      api_url: 'http://127.0.0.1:8080',
      auth: { kind: 'token', token: 't', participant: 'you' },
    };
    expect(parseConfig(local)).toEqual(local);
    expect(() => parseConfig({ ...local, extra: 1 })).toThrow(/not a valid configuration/);
    expect(() =>
      parseConfig({
        api_url: 'x',
        auth: { kind: 'cognito', domain: 'd', client_id: 'c', scopes: [] },
      })
    ).toThrow(/\/auth/);
  });
});

describe('the task extension as the browser reads it', () => {
  it('accepts what the schema accepts, filling in defaults, and refuses unknown keys', () => {
    const raw = { name: 'n', goal: 'g', acceptance_criteria: [{ text: 'c' }] };
    expect(readExtension(raw)).toMatchObject({
      description: '',
      acceptance_criteria: [{ text: 'c', met: false }],
      sub_tasks: [],
      plan: null,
    });
    expect(readExtension({ name: 'n', goal: 'g', surprise: true })).toBeUndefined();
    expect(readExtension(undefined)).toBeUndefined();
  });
});

describe('addresses', () => {
  it('round-trips every page through its hash, ids with odd characters included', () => {
    const routes: Route[] = [
      { page: 'new' },
      { page: 'task', taskId: 'a/b c' },
      { page: 'task', taskId: 'a/b c', at: 'm/1 #2' },
      { page: 'remote', parentId: 'p-1', taskId: 'r#9' },
    ];
    for (const route of routes) expect(routeOf(hrefOf(route))).toEqual(route);
    expect(routeOf('')).toEqual({ page: 'new' });
    expect(routeOf('#/nothing/here')).toEqual({ page: 'new' });
  });
});

describe('a question as the harness words it', () => {
  it('splits the options from the question', () => {
    expect(questionOf('Which format?\nOptions: pdf, md')).toEqual({
      question: 'Which format?',
      options: ['pdf', 'md'],
    });
    expect(questionOf('Line one\nline two?')).toEqual({
      question: 'Line one\nline two?',
      options: [],
    });
  });
});

describe('calls to the agent', () => {
  const session: Session = {
    kind: 'token',
    participant: 'you',
    accessToken: async () => 'tok',
    signOut: () => undefined,
  };

  it('reads Retry-After in seconds or as a date, within bounds', () => {
    expect(retryAfterMs('2')).toBe(2_000);
    expect(retryAfterMs(null)).toBe(1_000);
    expect(retryAfterMs('600')).toBe(10_000);
    expect(retryAfterMs(new Date(5_000).toUTCString(), 2_000)).toBe(3_000);
  });

  it('carries the bearer token, waits as a 429 says and goes again, and reports a 401', async () => {
    vi.useFakeTimers();
    const answers = [429, 429, 200, 401];
    const seen: string[] = [];
    vi.stubGlobal('fetch', async (_input: unknown, init?: RequestInit) => {
      seen.push(new Headers(init?.headers).get('Authorization') ?? '');
      const status = answers.shift() ?? 500;
      return new Response('{}', { status, headers: status === 429 ? { 'Retry-After': '1' } : {} });
    });
    const refused: string[] = [];
    const call = authorizedFetch(session, (error) => refused.push(error.message));
    const first = call('http://agent/', { method: 'POST' });
    await vi.advanceTimersByTimeAsync(2_100);
    expect((await first).status).toBe(200);
    expect(seen).toEqual(['Bearer tok', 'Bearer tok', 'Bearer tok']);
    await expect(call('http://agent/', {})).rejects.toThrow(
      'the agent refused the credentials (401)'
    );
    expect(refused).toEqual(['the agent refused the credentials (401)']);
  });
});

describe('the first-load budget', () => {
  it('counts the entry and what it imports, not what loads on demand', () => {
    const chunk = (fileName: string, code: string, imports: string[] = [], isEntry = false) => ({
      type: 'chunk' as const,
      fileName,
      code,
      isEntry,
      imports,
      dynamicImports: [],
    });
    const report = measure([
      chunk('index.js', 'a'.repeat(1000), ['vendor.js'], true),
      chunk('vendor.js', 'b'.repeat(1000)),
      chunk('graph.js', 'c'.repeat(1000)),
    ]);
    expect(report.firstLoad.map((c) => c.file)).toEqual(['index.js', 'vendor.js']);
    expect(report.onDemand.map((c) => c.file)).toEqual(['graph.js']);
    expect(report.firstLoadGzip).toBe(report.firstLoad[0]!.gzip + report.firstLoad[1]!.gzip);
    expect(FIRST_LOAD_BUDGET_BYTES).toBe(200_000);
  });
});
