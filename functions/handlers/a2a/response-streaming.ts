import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { A2aHttpResult } from './http.js';

/**
 * The parts of the Lambda Node.js runtime's `awslambda` global that response streaming uses
 * (the "Response streaming for Lambda functions" guide): `streamifyResponse` marks a handler as
 * streaming, and `HttpResponseStream.from` writes the status and headers (the prelude an API
 * Gateway proxy integration in STREAM mode reads) before the body.
 */
export interface LambdaStreamingApi {
  streamifyResponse(
    handler: (event: APIGatewayProxyEvent, stream: Writable, context: Context) => Promise<void>
  ): unknown;
  HttpResponseStream: {
    from(
      stream: Writable,
      prelude: { statusCode: number; headers?: Record<string, string> }
    ): Writable;
  };
}

type A2aHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<A2aHttpResult>;

const headersOf = (result: A2aHttpResult): Record<string, string> =>
  Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([name, value]) => [name, `${value}`])
  );

/**
 * The A2A function as a streaming Lambda handler: every answer goes out through the response
 * stream, so SSE frames reach the client as they are produced (the REST API integration's
 * STREAM mode) and a one-shot JSON answer is simply a short stream.
 */
export const streamingLambdaHandler = (handler: A2aHandler, api: LambdaStreamingApi) =>
  api.streamifyResponse(async (event, responseStream, context) => {
    const result = await handler(event, context);
    const out = api.HttpResponseStream.from(responseStream, {
      statusCode: result.statusCode,
      headers: headersOf(result),
    });
    const body =
      typeof result.body === 'string'
        ? Readable.from(
            result.isBase64Encoded === true ? [Buffer.from(result.body, 'base64')] : [result.body]
          )
        : result.body;
    await pipeline(body, out);
  });

/**
 * Outside the Lambda runtime (no `awslambda` global) the same handler answers buffered, as an API
 * Gateway BUFFERED integration would: a stream is read to its end into the body.
 */
export const bufferedHandler =
  (handler: A2aHandler) => async (event: APIGatewayProxyEvent, context: Context) => {
    const result = await handler(event, context);
    if (typeof result.body === 'string') return result;
    const chunks: Buffer[] = [];
    for await (const chunk of result.body) chunks.push(Buffer.from(chunk));
    return { ...result, body: Buffer.concat(chunks).toString('utf8') };
  };
