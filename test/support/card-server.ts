import { createHash } from 'node:crypto';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CardServer {
  url: string;
  /** Every request, in order: its path and the If-None-Match it carried. */
  requests: Array<{ path: string; ifNoneMatch: string | undefined; status: number }>;
  close(): Promise<void>;
}

const etagOf = (body: string) =>
  `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"`;

/**
 * Every other request passed to the agent at `upstream`, as a gateway in front of it would: an
 * endpoint is called at its card's origin only, so a card served here names this server's URL.
 * An upstream that does not answer is a 502.
 */
const forward = (request: IncomingMessage, response: ServerResponse, upstream: string) => {
  const target = new URL(request.url ?? '/', upstream);
  const outgoing = httpRequest(
    target,
    { method: request.method, headers: { ...request.headers, host: target.host } },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    }
  );
  outgoing.on('error', () => {
    if (!response.headersSent) response.writeHead(502);
    response.end();
  });
  request.pipe(outgoing);
};

/**
 * Agent cards on loopback, as a test writes them (a card with push turned off, an A2A 0.3
 * card): each path serves its card's JSON with an ETag, a 304 for a matching If-None-Match, and
 * `max-age=0`, so a client asks again every time and the requests show how it asked. With
 * `upstream`, any other path is the agent's there (`forward`).
 */
export const startCardServer = async (
  cards: Record<string, () => unknown | Promise<unknown>>,
  options: { upstream?: string } = {}
): Promise<CardServer> => {
  const requests: CardServer['requests'] = [];
  const server = createServer(async (request: IncomingMessage, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const ifNoneMatch = request.headers['if-none-match'];
    const card = cards[path];
    if (card === undefined && options.upstream !== undefined) {
      forward(request, response, options.upstream);
      return;
    }
    if (card === undefined) {
      requests.push({ path, ifNoneMatch, status: 404 });
      response.writeHead(404).end();
      return;
    }
    let body: string;
    try {
      body = JSON.stringify(await card());
    } catch {
      requests.push({ path, ifNoneMatch, status: 502 });
      response.writeHead(502).end();
      return;
    }
    const etag = etagOf(body);
    const status = ifNoneMatch === etag ? 304 : 200;
    requests.push({ path, ifNoneMatch, status });
    response.writeHead(status, {
      'Content-Type': 'application/json',
      'Cache-Control': 'max-age=0',
      ETag: etag,
    });
    response.end(status === 304 ? undefined : body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
