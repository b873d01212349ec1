import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  HttpWebhookSender,
  type Resolve,
} from '../../../functions/adapters/push/http-webhook-sender.js';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let port: number;
const received: Received[] = [];
/** How the test server answers a path; unknown paths get 204. */
const answers = new Map<string, (response: import('node:http').ServerResponse) => void>();

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body });
      const answer = answers.get(request.url ?? '');
      if (answer === undefined) response.writeHead(204).end();
      else answer(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  received.length = 0;
  answers.clear();
});

/** A resolver that knows only the names it is given, and remembers what it was asked. */
const resolverOf = (names: Record<string, string[]>) => {
  const asked: string[] = [];
  const resolve: Resolve = async (hostname) => {
    asked.push(hostname);
    const addresses = names[hostname];
    if (addresses === undefined) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    }
    return addresses.map(
      (address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })
    );
  };
  return { resolve, asked };
};

const post = (sender: HttpWebhookSender, url: string, timeoutMs = 5_000) =>
  sender.post({
    url,
    headers: { 'Content-Type': 'application/a2a+json', 'X-A2A-Notification-Token': 'tok-123' },
    body: '{"statusUpdate":{"taskId":"t"}}',
    timeoutMs,
  });

describe('HttpWebhookSender', () => {
  it('POSTs the body and headers to an allowed webhook and answers its status', async () => {
    const sender = new HttpWebhookSender({ policy: { allowLoopback: true } });
    const result = await post(sender, `http://127.0.0.1:${port}/hook`);

    expect(result).toEqual({ kind: 'status', status: 204 });
    expect(received).toEqual([
      {
        path: '/hook',
        body: '{"statusUpdate":{"taskId":"t"}}',
        headers: expect.objectContaining({
          'content-type': 'application/a2a+json',
          'x-a2a-notification-token': 'tok-123',
          'content-length': '31',
        }),
      },
    ]);
  });

  it('connects to the address its lookup checked', async () => {
    const { resolve, asked } = resolverOf({ localhost: ['127.0.0.1'] });
    const sender = new HttpWebhookSender({ policy: { allowLoopback: true }, resolve });

    expect(await post(sender, `http://localhost:${port}/by-name`)).toEqual({
      kind: 'status',
      status: 204,
    });
    expect(asked).toEqual(['localhost']);
    expect(received.map((r) => r.path)).toEqual(['/by-name']);
  });

  it('refuses a public-looking name that resolves to loopback when loopback is not allowed', async () => {
    const { resolve, asked } = resolverOf({ 'hooks.example.com': ['127.0.0.1'] });
    const sender = new HttpWebhookSender({ policy: { allowLoopback: false }, resolve });

    const result = await post(sender, `https://hooks.example.com:${port}/hook`);

    expect(result).toEqual({ kind: 'refused', reason: expect.stringMatching(/non-public/) });
    expect(asked).toEqual(['hooks.example.com']);
    expect(received).toEqual([]);
  });

  it.each([
    ['a private address', ['10.0.0.5']],
    ['the link-local metadata address', ['169.254.169.254']],
    ['an IPv4-mapped private address', ['::ffff:10.0.0.1']],
    ['a unique-local IPv6 address', ['fd00::1']],
    ['a private address among public ones', ['93.184.216.34', '10.1.2.3']],
    // IPv6 forms that carry a loopback or private IPv4 address (issue 9, item 6).
    ['IPv4-compatible loopback', ['::127.0.0.1']],
    ['IPv4-translated loopback', ['::ffff:0:7f00:1']],
    ['6to4 of loopback', ['2002:7f00:1::1']],
    ['NAT64 local-use of 10.0.0.1', ['64:ff9b:1::a00:1']],
    ['NAT64 well-known of the metadata address', ['64:ff9b::a9fe:a9fe']],
    ['Teredo of loopback', ['2001:0:4136:e378:8000:63bf:80ff:fffe']],
    ['ISATAP of a private address', ['2001:db9::5efe:10.0.0.1']],
  ])('refuses a name that resolves to %s, connecting nowhere', async (_, addresses) => {
    const { resolve } = resolverOf({ 'hooks.example.com': addresses });
    const sender = new HttpWebhookSender({ policy: { allowLoopback: true }, resolve });
    expect(await post(sender, 'https://hooks.example.com/hook')).toMatchObject({
      kind: 'refused',
    });
    expect(received).toEqual([]);
  });

  it.each([
    'https://10.0.0.5/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[::ffff:10.0.0.1]/hook',
    'http://hooks.example.com/hook',
    'https://[::127.0.0.1]/hook',
    'https://[::ffff:0:7f00:1]/hook',
    'https://[2002:7f00:1::1]/hook',
    'https://[64:ff9b:1::a00:1]/hook',
  ])('refuses %s without resolving or connecting', async (url) => {
    const { resolve, asked } = resolverOf({});
    const sender = new HttpWebhookSender({ policy: { allowLoopback: true }, resolve });
    expect(await post(sender, url)).toMatchObject({ kind: 'refused' });
    expect(asked).toEqual([]);
  });

  it('refuses loopback by address when loopback is not allowed', async () => {
    const sender = new HttpWebhookSender({ policy: { allowLoopback: false } });
    expect(await post(sender, `http://127.0.0.1:${port}/hook`)).toMatchObject({
      kind: 'refused',
    });
    expect(received).toEqual([]);
  });

  it('does not follow a redirect: the 3xx is the answer', async () => {
    answers.set('/moved', (response) =>
      response.writeHead(302, { Location: `http://127.0.0.1:${port}/elsewhere` }).end()
    );
    const sender = new HttpWebhookSender({ policy: { allowLoopback: true } });

    expect(await post(sender, `http://127.0.0.1:${port}/moved`)).toEqual({
      kind: 'status',
      status: 302,
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received.map((r) => r.path)).toEqual(['/moved']);
  });

  it('answers "failed" when the webhook does not answer in time, or cannot be reached', async () => {
    answers.set('/silent', () => undefined);
    const sender = new HttpWebhookSender({ policy: { allowLoopback: true } });

    const silent = await post(sender, `http://127.0.0.1:${port}/silent`, 200);
    expect(silent).toEqual({ kind: 'failed', reason: 'no answer within 200 ms' });

    const closed = new HttpWebhookSender({
      policy: { allowLoopback: true },
      resolve: resolverOf({}).resolve,
    });
    expect(await post(closed, 'http://localhost:1/hook')).toEqual({
      kind: 'failed',
      reason: 'ENOTFOUND',
    });
  });

  it('answers "refused" for a header value HTTP cannot carry', async () => {
    const sender = new HttpWebhookSender({ policy: { allowLoopback: true } });
    const result = await sender.post({
      url: `http://127.0.0.1:${port}/hook`,
      headers: { 'X-A2A-Notification-Token': 'line\r\nInjected: yes' },
      body: '{}',
      timeoutMs: 1_000,
    });
    expect(result).toMatchObject({ kind: 'refused' });
    expect(received).toEqual([]);
  });
});
