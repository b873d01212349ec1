import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * Webhooks on 127.0.0.1: every POST is kept per path and answered 200, except that a path in
 * `failFirst` answers 500 to that many POSTs first.
 */
export const startWebhooks = async (failFirst: Record<string, number>) => {
  const received = new Map<string, Delivery[]>();
  const attempts = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const path = request.url ?? '';
      const attempt = (attempts.get(path) ?? 0) + 1;
      attempts.set(path, attempt);
      if (attempt <= (failFirst[path] ?? 0)) {
        response.writeHead(500).end();
        return;
      }
      received.set(path, [...(received.get(path) ?? []), { headers: request.headers, body }]);
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received: (path: string) => received.get(path) ?? [],
    attempts: (path: string) => attempts.get(path) ?? 0,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
};
