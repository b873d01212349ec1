import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { localLambdaContext } from './lambda-context.js';

export type ApiHandler = (
  event: APIGatewayProxyEvent,
  context: Context
) => Promise<APIGatewayProxyResult>;

/** Request bodies past this are refused before the handler sees them, as API Gateway does (10 MB there). */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

const readBody = (request: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('request body too large'));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });

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
    } as APIGatewayProxyEvent['requestContext'],
  };
};

/**
 * The local API Gateway: an HTTP server on loopback that turns each request into the REST API's
 * proxy event for the same A2A Lambda handler the cloud runs.
 */
export const startHttpShim = async (options: {
  handler: ApiHandler;
  port: number;
  host?: string;
  stage?: string;
  onError?: (error: unknown) => void;
}): Promise<{ server: Server; url: string; close(): Promise<void> }> => {
  const host = options.host ?? '127.0.0.1';
  const server = createServer(async (request, response) => {
    try {
      const body = await readBody(request);
      const result = await options.handler(
        toProxyEvent(request, body, options.stage ?? ''),
        localLambdaContext('A2aFunction', 30_000)
      );
      response.writeHead(result.statusCode, result.headers as Record<string, string> | undefined);
      response.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
    } catch (error) {
      options.onError?.(error);
      const tooLarge = (error as Error).message === 'request body too large';
      response.writeHead(tooLarge ? 413 : 500, { 'Content-Type': 'application/json' });
      response.end(
        JSON.stringify({ error: tooLarge ? 'request body too large' : 'internal error' })
      );
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
