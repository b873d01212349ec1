import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { MAX_REQUEST_BYTES } from '../handlers/body-limit.js';
import { isJsonRpcRequest, tooManyRequests } from '../handlers/too-many-requests.js';
import { bearerTokenOf } from '../service/identity.js';
import { localLambdaContext } from './lambda-context.js';
import { refuseForeignHost } from './loopback-host.js';
import { createThrottle, DEFAULT_THROTTLE, type ThrottleOptions } from './throttle.js';
import type { WebSite } from './web-site.js';

/** A proxy result, or one whose body streams (the REST API integration's STREAM mode). */
export type ApiResult = Omit<APIGatewayProxyResult, 'body'> & { body: string | Readable };

export type ApiHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<ApiResult>;

/**
 * Sends a streamed body as it is produced (headers first, each chunk flushed), and stops producing
 * when the client goes away: destroying the body ends the generator that tails the event log (and
 * gives back the caller's stream lease). A client that went away while the handler worked (the
 * response is closed already, its `close` past) has its stream destroyed at once: nothing would
 * ever end it.
 */
const sendStream = (response: ServerResponse, result: ApiResult, body: Readable) => {
  if (response.closed) {
    body.destroy();
    return;
  }
  response.writeHead(result.statusCode, result.headers as Record<string, string> | undefined);
  response.flushHeaders();
  response.on('close', () => body.destroy());
  body.on('error', () => response.destroy());
  body.pipe(response);
};

class TooLargeError extends Error {
  constructor() {
    super('request body too large');
  }
}

const readBody = (request: IncomingMessage, limit: number): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Stop buffering; the rest is read and dropped once the 413 is sent.
        request.off('data', onData);
        reject(new TooLargeError());
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });

const declaredLength = (request: IncomingMessage): number | undefined => {
  const value = request.headers['content-length'];
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
};

/**
 * Whose bucket a request spends: its bearer token's (one per configured caller), or its remote
 * address's when it has none. An unknown token gets a bucket too; it is refused with 401 anyway.
 */
export const clientKeyOf = (request: IncomingMessage): string => {
  const token = bearerTokenOf(request.headers.authorization);
  return token === undefined ? `address:${request.socket.remoteAddress ?? ''}` : `token:${token}`;
};

const sendJson = (
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {}
) => {
  response.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
};

/** The REST API's proxy event for a local request, as API Gateway would build it. */
export const toProxyEvent = (
  request: IncomingMessage,
  body: Buffer,
  stage: string
): APIGatewayProxyEvent => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  // Loopback is plain HTTP: say so, as a load balancer would, so absolute URLs come out right.
  const headers: Record<string, string> = { 'x-forwarded-proto': 'http' };
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = value;
  return {
    httpMethod: request.method ?? 'GET',
    path: url.pathname,
    resource: '/{proxy+}',
    headers,
    multiValueHeaders: {},
    queryStringParameters: Object.keys(query).length > 0 ? query : null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: body.length > 0 ? body.toString('utf8') : null,
    isBase64Encoded: false,
    requestContext: {
      stage,
      httpMethod: request.method ?? 'GET',
      path: url.pathname,
      identity: { sourceIp: request.socket.remoteAddress ?? '' },
    } as APIGatewayProxyEvent['requestContext'],
  };
};

/**
 * The 429 of a client past its bucket, in the error shape of the binding it called. Only a
 * JSON-RPC answer needs the body (its id), read within the usual limit.
 */
const throttled = async (
  request: IncomingMessage,
  retryAfterSeconds: number,
  { ratePerMinute, burst }: ThrottleOptions,
  maxBodyBytes: number
): Promise<APIGatewayProxyResult> => {
  const method = request.method ?? 'GET';
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  const body =
    isJsonRpcRequest(method, path) && (declaredLength(request) ?? 0) <= maxBodyBytes
      ? await readBody(request, maxBodyBytes).then(
          (bytes) => bytes.toString('utf8'),
          () => ''
        )
      : '';
  return tooManyRequests(
    { method, path, body },
    {
      reason: 'RATE_LIMITED',
      message: `too many requests from this client: at most ${ratePerMinute} a minute, in bursts of ${burst}; retry after ${retryAfterSeconds} s`,
      retryAfterSeconds,
      metadata: { ratePerMinute: String(ratePerMinute), burst: String(burst) },
    }
  );
};

export interface HttpShimOptions {
  handler: ApiHandler;
  port: number;
  host?: string;
  stage?: string;
  onError?: (error: unknown) => void;
  /** Larger request bodies get 413 before the handler runs. @default 1 MiB */
  maxBodyBytes?: number;
  /** Per-client token buckets; `false` turns them off. @default 120 a minute, burst 30 */
  throttle?: ThrottleOptions | false;
  /** The web renderer's page, served beside the API (in the cloud, CloudFront serves it). */
  site?: WebSite | undefined;
  /**
   * Hosts answered besides this server's loopback address (`host[:port]`): the host of
   * TINY_HARNESS_BASE_URL, when remote agents reach us through a tunnel that keeps its own name.
   */
  allowedHosts?: readonly string[] | undefined;
}

/**
 * The local API Gateway: an HTTP server on loopback that turns each request into the REST API's
 * proxy event for the same A2A Lambda handler the cloud runs. Like API Gateway it refuses before
 * the handler: too many requests from one client (429, in the binding's error shape), too large
 * a body (413). Before anything, a Host that is not its loopback address is refused (421: a
 * DNS-rebinding page, loopback-host.ts).
 */
export const startHttpShim = async (
  options: HttpShimOptions
): Promise<{ server: Server; url: string; close(): Promise<void> }> => {
  const host = options.host ?? '127.0.0.1';
  const maxBodyBytes = options.maxBodyBytes ?? MAX_REQUEST_BYTES;
  const limits = options.throttle === false ? undefined : (options.throttle ?? DEFAULT_THROTTLE);
  const throttle = limits === undefined ? undefined : createThrottle(limits);
  const tooLargeBody = { error: 'request body too large', limit: maxBodyBytes };
  // Close the connection: a client still uploading should stop, not fill a kept-alive socket.
  const tooLarge = (response: ServerResponse) =>
    sendJson(response, 413, tooLargeBody, { Connection: 'close' });

  const server = createServer(async (request, response) => {
    if (refuseForeignHost(request, response, options.allowedHosts)) return;
    if (options.site?.handles(request)) {
      return options.site.serve(request, response, (server.address() as AddressInfo).port);
    }
    const decision = throttle?.take(clientKeyOf(request)) ?? { allowed: true };
    if (!decision.allowed && limits !== undefined) {
      const refusal = await throttled(request, decision.retryAfterSeconds, limits, maxBodyBytes);
      response.writeHead(refusal.statusCode, refusal.headers as Record<string, string>);
      response.end(refusal.body);
      return;
    }
    // A declared length says enough: nothing is read.
    if ((declaredLength(request) ?? 0) > maxBodyBytes) return tooLarge(response);
    try {
      const body = await readBody(request, maxBodyBytes);
      const result = await options.handler(
        toProxyEvent(request, body, options.stage ?? ''),
        localLambdaContext('A2aFunction', 30_000)
      );
      if (typeof result.body !== 'string') return sendStream(response, result, result.body);
      response.writeHead(result.statusCode, result.headers as Record<string, string> | undefined);
      response.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
    } catch (error) {
      if (error instanceof TooLargeError) return tooLarge(response);
      options.onError?.(error);
      sendJson(response, 500, { error: 'internal error' });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
