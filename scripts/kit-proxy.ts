import { createHash } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { refuseForeignHost } from '../functions/local/loopback-host.js';

/**
 * A loopback proxy for clients that cannot send our headers, such as the A2A conformance kit
 * (docs/a2a/conformance.md): it adds `Authorization: Bearer <token>` to every request, and
 * `A2A-Version: 1.0` to one that has none, and rewrites the agent card so the interfaces it
 * advertises are the proxy's (the kit calls the URLs the card names). Everything else, SSE
 * streams included, passes through as it comes.
 *
 *   npm run kit-proxy -- --target http://127.0.0.1:8080 --token <token> [--port 9999]
 */

export interface KitProxyOptions {
  /** The A2A base URL behind the proxy (`npm start`'s, or a deployed stage's). */
  target: string;
  /** The bearer token every request gets. */
  token: string;
  /** Loopback port; 0 picks a free one. */
  port: number;
}

export interface KitProxy {
  url: string;
  close(): Promise<void>;
}

const CARD_PATH = '/.well-known/agent-card.json';
/** Headers a proxy must not pass on (hop-by-hop, RFC 9110 §7.6.1), and the ones it recomputes. */
const DROPPED = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'host',
  'content-length',
]);

const readAll = async (stream: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/** The card with each interface at the proxy instead of the target. */
const rewriteCard = (body: Buffer, target: string, proxy: string): Buffer => {
  const card = JSON.parse(body.toString('utf8')) as {
    supportedInterfaces?: Array<{ url: string }>;
  };
  for (const entry of card.supportedInterfaces ?? []) {
    if (entry.url.startsWith(target)) entry.url = `${proxy}${entry.url.slice(target.length)}`;
  }
  return Buffer.from(JSON.stringify(card), 'utf8');
};

export const startKitProxy = async (options: KitProxyOptions): Promise<KitProxy> => {
  const target = new URL(options.target);
  const targetBase = options.target.replace(/\/$/, '');
  let proxyBase = '';
  const server: Server = createServer(async (incoming, outgoing) => {
    // It adds a bearer token to whatever reaches it: a rebinding page must not be the kit.
    if (refuseForeignHost(incoming, outgoing)) return;
    try {
      const body = await readAll(incoming);
      const headers: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (value !== undefined && !DROPPED.has(name)) headers[name] = value;
      }
      headers.authorization = `Bearer ${options.token}`;
      headers['a2a-version'] ??= '1.0';
      if (body.length > 0) headers['content-length'] = String(body.length);
      const path = `${target.pathname.replace(/\/$/, '')}${incoming.url ?? '/'}`;
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      const upstream = send(target, { method: incoming.method, path, headers }, async (answer) => {
        const answerHeaders = Object.fromEntries(
          Object.entries(answer.headers).filter(([name]) => !DROPPED.has(name))
        );
        if (incoming.method === 'GET' && incoming.url?.split('?')[0] === CARD_PATH) {
          const card = rewriteCard(await readAll(answer), targetBase, proxyBase);
          // The card changed: so does its entity tag.
          answerHeaders.etag = `"${createHash('sha256').update(card).digest('base64url').slice(0, 27)}"`;
          outgoing.writeHead(answer.statusCode ?? 502, answerHeaders);
          outgoing.end(card);
          return;
        }
        outgoing.writeHead(answer.statusCode ?? 502, answerHeaders);
        outgoing.flushHeaders();
        answer.pipe(outgoing);
      });
      upstream.on('error', (error) => {
        if (!outgoing.headersSent) outgoing.writeHead(502, { 'Content-Type': 'text/plain' });
        outgoing.end(`kit-proxy: ${error.message}`);
      });
      outgoing.on('close', () => upstream.destroy());
      upstream.end(body);
    } catch (error) {
      outgoing.writeHead(502, { 'Content-Type': 'text/plain' });
      outgoing.end(`kit-proxy: ${(error as Error).message}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port, '127.0.0.1', resolve));
  proxyBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: proxyBase,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

const main = async () => {
  const { values } = parseArgs({
    options: {
      target: { type: 'string', default: 'http://127.0.0.1:8080' },
      token: { type: 'string' },
      port: { type: 'string', default: '9999' },
    },
  });
  if (values.token === undefined) {
    console.error('kit-proxy needs --token <bearer token> (npm start prints one)');
    process.exit(1);
  }
  const proxy = await startKitProxy({
    target: values.target,
    token: values.token,
    port: Number(values.port),
  });
  console.log(`kit-proxy: ${proxy.url} -> ${values.target} (Ctrl-C stops it)`);
  console.log(`Point the kit at it: ./run_tck.py --sut-host ${proxy.url}`);
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(`kit-proxy could not start: ${(error as Error).message}`);
    process.exit(1);
  });
}
