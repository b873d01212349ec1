/**
 * The web renderer under npm start (functions/local/web-site.ts), through the HTTP shim: the page
 * and its files with their security headers, and the configuration with the bearer token, given
 * to a loopback page only; the page to a browser, and `/` to the A2A endpoint for an API client.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpShim } from '../../functions/local/http-shim.js';
import { localConfigFor, webSite } from '../../functions/local/web-site.js';
import { rawRequest } from './raw-http.js';

/** A request with exactly the headers given (the Host and Sec-Fetch-Site checks are tried). */
const get = (port: number, path: string, headers: Record<string, string> = {}, method = 'GET') =>
  rawRequest(port, { path, method, headers });

/** What a browser's navigation asks for. */
const HTML = { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

describe('the web page under npm start', () => {
  const dist = mkdtempSync(join(tmpdir(), 'tiny-harness-web-'));
  let shim: Awaited<ReturnType<typeof startHttpShim>>;
  let port = 0;
  const apiCalls: string[] = [];

  beforeAll(async () => {
    mkdirSync(join(dist, 'assets'));
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>page</title>');
    writeFileSync(join(dist, 'assets', 'index-abc.js'), 'console.log(1)');
    writeFileSync(join(dist, '..', 'secret.txt'), 'not served');
    shim = await startHttpShim({
      port: 0,
      handler: async (event) => {
        apiCalls.push(`${event.httpMethod} ${event.path}`);
        return { statusCode: 401, body: '{"error":"unauthorized"}' };
      },
      site: webSite({ dir: dist, identity: { token: 'tok-1', participant: 'you' } }),
      throttle: false,
    });
    port = Number(new URL(shim.url).port);
  });
  afterAll(async () => {
    await shim?.close();
    rmSync(dist, { recursive: true, force: true });
    rmSync(join(dist, '..', 'secret.txt'), { force: true });
  });

  it('serves the page at / with a strict CSP and the other security headers', async () => {
    const page = await get(port, '/', { Host: `127.0.0.1:${port}`, ...HTML });
    expect(page.status).toBe(200);
    expect(page.body).toBe('<!doctype html><title>page</title>');
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    );
    expect(page.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'cross-origin-opener-policy': 'same-origin',
    });
    const script = await get(port, '/assets/index-abc.js');
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const head = await get(port, '/index.html', HTML, 'HEAD');
    expect([head.status, head.body]).toEqual([200, '']);
  });

  it('gives the token to a page on loopback, with the A2A URL of the address the page came from', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      const config = await get(port, '/config.json', {
        Host: host,
        'Sec-Fetch-Site': 'same-origin',
      });
      expect(config.status).toBe(200);
      expect(config.headers['cache-control']).toBe('no-store');
      expect(JSON.parse(config.body)).toEqual({
        api_url: `http://${host}`,
        auth: { kind: 'token', token: 'tok-1', participant: 'you' },
      });
    }
  });

  it('refuses the token to another host name (DNS rebinding), another port, or another site', async () => {
    // Another Host is not served at all (the shim's Host check, 421); another site is refused the
    // configuration (403).
    for (const [headers, status] of [
      [{ Host: `evil.example:${port}` }, 421],
      [{ Host: `127.0.0.1:${port + 1}` }, 421],
      [{ Host: '127.0.0.1' }, 421],
      [{ Host: `127.0.0.1:${port}`, 'Sec-Fetch-Site': 'cross-site' }, 403],
      [{ Host: `127.0.0.1:${port}`, 'Sec-Fetch-Site': 'same-site' }, 403],
    ] as Array<[Record<string, string>, number]>) {
      const refused = await get(port, '/config.json', headers);
      expect(refused.status, JSON.stringify(headers)).toBe(status);
      expect(refused.body).not.toContain('tok-1');
    }
  });

  it('refuses the token to a page on another host even where the Host check would let it through', () => {
    const identity = { token: 'tok-1', participant: 'you' };
    expect(localConfigFor({ headers: { host: `evil.example:${port}` } }, port, identity)).toEqual({
      refused: expect.stringMatching(/loopback/),
    });
  });

  it('serves nothing outside the built page, and leaves every other path to the A2A endpoint', async () => {
    // Dot segments are resolved before routing (the path leaves /assets/ and goes to the A2A
    // endpoint); an encoded slash stays in the name, which names no file.
    for (const path of [
      '/assets/../../secret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '/assets/..%2F..%2Fsecret.txt',
    ]) {
      expect((await get(port, path)).body).not.toContain('not served');
    }
    expect((await get(port, '/assets/..%2F..%2Fsecret.txt')).status).toBe(404);
    // A file of the page that is not there is an unknown route, answered in the HTTP+JSON
    // binding's shape.
    const missing = await get(port, '/assets/missing.js');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toBe('application/a2a+json');
    expect(JSON.parse(missing.body)).toEqual({
      error: {
        code: 404,
        status: 'NOT_FOUND',
        message: 'no A2A operation at GET /assets/missing.js',
        details: [],
      },
    });
    apiCalls.length = 0;
    await get(port, '/tasks/t-1');
    await get(port, '/', {}, 'POST');
    await get(port, '/.well-known/agent-card.json');
    expect(apiCalls).toEqual(['GET /tasks/t-1', 'POST /', 'GET /.well-known/agent-card.json']);
  });

  it('leaves / to the A2A endpoint for a client that does not ask for HTML', async () => {
    apiCalls.length = 0;
    for (const accept of ['application/json', 'application/a2a+json', '*/*', undefined]) {
      const answer = await get(port, '/', accept === undefined ? {} : { Accept: accept });
      expect(answer.body, String(accept)).not.toContain('<title>page</title>');
    }
    await get(port, '/index.html', { Accept: 'application/json' });
    expect(apiCalls).toEqual(['GET /', 'GET /', 'GET /', 'GET /', 'GET /index.html']);
  });

  it('says how to build the page when it is not built', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'tiny-harness-web-empty-'));
    const bare = await startHttpShim({
      port: 0,
      handler: async () => ({ statusCode: 404, body: '' }),
      site: webSite({ dir: empty, identity: { token: 't', participant: null } }),
      throttle: false,
    });
    try {
      const page = await get(Number(new URL(bare.url).port), '/', HTML);
      expect(page.status).toBe(200);
      expect(page.body).toContain('npm run web:build');
    } finally {
      await bare.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
