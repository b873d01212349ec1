/**
 * The Host check of every endpoint `npm start` serves on loopback. Listening on 127.0.0.1 keeps
 * other machines out, but not a web page: a page whose own host name an attacker re-points at
 * 127.0.0.1 (DNS rebinding) reaches a loopback server from the victim's browser, same-origin as
 * far as the browser knows, and its requests carry the attacker's host name in `Host`. So a
 * request is served only when it names this machine's loopback address and the port it came in
 * on; anything else is answered 421 (Misdirected Request) before it is read.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Whether `host` (a Host header) is `127.0.0.1`, `localhost` or `[::1]` with exactly `port`, or
 * one of `alsoAllowed` (host[:port], as `new URL(...).host` spells it). Names are compared
 * case-insensitively; a missing port, another port or any other name is not loopback.
 */
export const isLoopbackHost = (
  host: string | undefined,
  port: number,
  alsoAllowed: readonly string[] = []
): boolean => {
  if (host === undefined) return false;
  const named = host.toLowerCase();
  if (alsoAllowed.some((allowed) => allowed.toLowerCase() === named)) return true;
  const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(named);
  return match !== null && LOOPBACK_NAMES.has(match[1] ?? '') && Number(match[2]) === port;
};

/** The port a request came in on (the server's own, whatever the Host says). */
export const localPortOf = (request: IncomingMessage): number => request.socket.localPort ?? 0;

/**
 * Answers 421 and returns true when the request's Host is not this server's loopback address;
 * returns false, having written nothing, when it is. The body says what to use instead.
 */
export const refuseForeignHost = (
  request: IncomingMessage,
  response: ServerResponse,
  alsoAllowed: readonly string[] = []
): boolean => {
  const port = localPortOf(request);
  if (isLoopbackHost(request.headers.host, port, alsoAllowed)) return false;
  const body = `misdirected request: this server answers only to Host 127.0.0.1:${port}, localhost:${port} or [::1]:${port} (Host: ${request.headers.host ?? 'none'})\n`;
  response.writeHead(421, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'X-Content-Type-Options': 'nosniff',
    Connection: 'close',
  });
  response.end(body);
  return true;
};
