/**
 * The web renderer under `npm start`: the built page (web/dist) at `/`, and `/config.json`, which
 * tells the page where the A2A endpoint is and hands it a bearer token. Same origin as the A2A
 * endpoint, so the page needs no CORS. Every other request is the A2A endpoint's, and so is `/`
 * for a client that does not ask for HTML: an A2A client asking the HTTP+JSON binding for a route
 * it does not have gets the binding's 404, not a page it cannot read.
 *
 * The token goes only to a page on loopback: a request whose Host is not this server's loopback
 * address (a DNS-rebinding page), or that a browser marks as cross-site, is refused.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WebConfig } from '../core/a2a/web-config.schema.js';
import { A2A_CONTENT_TYPE } from '../handlers/a2a/http.js';
import { noRoute } from '../handlers/a2a/rest.js';
import { webHeaders } from '../view/security-headers.js';
import { isLoopbackHost } from './loopback-host.js';

export interface WebSiteOptions {
  /** The built page (web/dist). */
  dir: string;
  /** Who the page acts as: the token it is given, and the participant that token is. */
  identity: { token: string; participant: string | null };
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.map': 'application/json',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** The page itself: served to a client that asks for HTML, as a browser's navigation does. */
const isDocumentPath = (path: string) => path === '/' || path === '/index.html';

/** What the page loads: served to whoever asks (a script or a fetch sends no HTML Accept). */
const isResourcePath = (path: string) =>
  path === '/config.json' || path === '/favicon.svg' || path.startsWith('/assets/');

const asksForHtml = (request: Pick<IncomingMessage, 'headers'>) =>
  /\btext\/html\b|\bapplication\/xhtml\+xml\b/i.test(request.headers.accept ?? '');

/** A file of the page that is not there: the HTTP+JSON binding's 404, as for any unknown route. */
const notFound = (
  request: IncomingMessage,
  response: ServerResponse,
  headers: Record<string, string>
) => {
  const reply = noRoute(
    request.method ?? 'GET',
    new URL(request.url ?? '/', 'http://localhost').pathname
  );
  response.writeHead(reply.status, { 'Content-Type': A2A_CONTENT_TYPE, ...headers });
  response.end(JSON.stringify(reply.body));
};

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>tiny-harness</title></head>
<body><main><h1>tiny-harness</h1><p>The web page is not built: run <code>npm run web:build</code> (npm start and npm test build it for you), then reload.</p></main></body></html>`;

/** The config for a page loaded from `host`, or why it is refused. */
export const localConfigFor = (
  request: Pick<IncomingMessage, 'headers'>,
  port: number,
  identity: WebSiteOptions['identity']
): { config: WebConfig } | { refused: string } => {
  const host = request.headers.host ?? '';
  if (!isLoopbackHost(host, port)) {
    return {
      refused: `the configuration is served to pages on this machine's loopback address only (Host: ${host || 'none'})`,
    };
  }
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return { refused: 'the configuration is not served to other sites' };
  }
  return {
    config: {
      api_url: `http://${host}`,
      auth: { kind: 'token', token: identity.token, participant: identity.participant },
    },
  };
};

export const webSite = (options: WebSiteOptions) => {
  const root = normalize(options.dir);
  const headers = webHeaders({ connectTo: [] });
  return {
    /** Whether the request is the page's (answered here) rather than the A2A endpoint's. */
    handles: (request: IncomingMessage): boolean => {
      if (request.method !== 'GET' && request.method !== 'HEAD') return false;
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      return isResourcePath(path) || (isDocumentPath(path) && asksForHtml(request));
    },
    serve: (request: IncomingMessage, response: ServerResponse, port: number): void => {
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      if (path === '/config.json') {
        const answer = localConfigFor(request, port, options.identity);
        const status = 'config' in answer ? 200 : 403;
        response.writeHead(status, {
          'Content-Type': 'application/json',
          'Cache-Control': 'no-store',
          ...headers,
        });
        response.end(
          JSON.stringify('config' in answer ? answer.config : { error: answer.refused })
        );
        return;
      }
      const file = normalize(join(root, path === '/' ? 'index.html' : path));
      const inside = file.startsWith(`${root}${sep}`);
      if (!inside || !existsSync(file) || !statSync(file).isFile()) {
        if (isDocumentPath(path)) {
          response.writeHead(200, {
            'Content-Type': TYPES['.html']!,
            'Cache-Control': 'no-cache',
            ...headers,
          });
          response.end(NOT_BUILT);
          return;
        }
        notFound(request, response, headers);
        return;
      }
      response.writeHead(200, {
        'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
        // Built assets carry their content hash in their name; the page itself is checked each time.
        'Cache-Control': path.startsWith('/assets/')
          ? 'public, max-age=31536000, immutable'
          : 'no-cache',
        ...headers,
      });
      if (request.method === 'HEAD') {
        response.end();
        return;
      }
      createReadStream(file).pipe(response);
    },
  };
};

export type WebSite = ReturnType<typeof webSite>;

/** The built page of this checkout. */
export const WEB_DIST = fileURLToPath(new URL('../../web/dist', import.meta.url));
