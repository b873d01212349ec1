import { Readable, Writable } from 'node:stream';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { A2aHttpResult } from '../../../functions/handlers/a2a/http.js';
import {
  bufferedHandler,
  type LambdaStreamingApi,
  streamingLambdaHandler,
} from '../../../functions/handlers/a2a/response-streaming.js';
import { apiGatewayEvent } from '../../support/api-gateway.js';
import { lambdaContext } from '../support.js';

/**
 * The Lambda runtime's response streaming as its guide describes it: `HttpResponseStream.from`
 * writes a JSON prelude (status and headers) and eight NUL bytes, then the body follows on the
 * same stream. This fake records the bytes so a test reads what API Gateway would.
 */
const fakeRuntime = () => {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  const api: LambdaStreamingApi = {
    streamifyResponse: (handler) => handler,
    HttpResponseStream: {
      from(stream, prelude) {
        stream.write(JSON.stringify(prelude));
        stream.write(Buffer.alloc(8));
        return stream;
      },
    },
  };
  const written = () => {
    const all = Buffer.concat(chunks);
    const split = all.indexOf(Buffer.alloc(8));
    return {
      prelude: JSON.parse(all.subarray(0, split).toString('utf8')) as unknown,
      body: all.subarray(split + 8).toString('utf8'),
    };
  };
  return { api, sink, written };
};

type Streaming = (event: APIGatewayProxyEvent, stream: Writable, context: Context) => Promise<void>;

const answering = (result: A2aHttpResult) => async () => result;

describe('the A2A function under Lambda response streaming', () => {
  it('writes the status and headers as the prelude, then the SSE frames as they come', async () => {
    const { api, sink, written } = fakeRuntime();
    const frames = Readable.from(['id: 1\ndata: {"task":{}}\n\n', ': keep-alive\n\n']);
    const handler = streamingLambdaHandler(
      answering({
        statusCode: 200,
        headers: { 'Content-Type': 'text/event-stream' },
        body: frames,
      }),
      api
    ) as Streaming;

    await handler(apiGatewayEvent({}), sink, lambdaContext('A2aFunction'));

    expect(written()).toEqual({
      prelude: { statusCode: 200, headers: { 'Content-Type': 'text/event-stream' } },
      body: 'id: 1\ndata: {"task":{}}\n\n: keep-alive\n\n',
    });
  });

  it('sends a one-shot JSON answer as a short stream, decoding a base64 body', async () => {
    const { api, sink, written } = fakeRuntime();
    const handler = streamingLambdaHandler(
      answering({
        statusCode: 404,
        headers: { 'Content-Type': 'application/json' },
        body: Buffer.from('{"error":"no"}').toString('base64'),
        isBase64Encoded: true,
      }),
      api
    ) as Streaming;

    await handler(apiGatewayEvent({}), sink, lambdaContext('A2aFunction'));

    expect(written()).toEqual({
      prelude: { statusCode: 404, headers: { 'Content-Type': 'application/json' } },
      body: '{"error":"no"}',
    });
  });

  it('answers buffered outside the Lambda runtime: a stream is read to its end into the body', async () => {
    const handler = bufferedHandler(
      answering({ statusCode: 200, headers: {}, body: Readable.from(['a', 'b']) })
    );

    const result = await handler(apiGatewayEvent({}), lambdaContext('A2aFunction'));

    expect(result).toEqual({ statusCode: 200, headers: {}, body: 'ab' });
  });
});
