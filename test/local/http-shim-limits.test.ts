import { request as httpRequest } from 'node:http';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_REQUEST_BYTES } from '../../functions/handlers/body-limit.js';
import { TOO_MANY_REQUESTS_CODE } from '../../functions/handlers/too-many-requests.js';
import { type ApiHandler, startHttpShim } from '../../functions/local/http-shim.js';
import { createThrottle } from '../../functions/local/throttle.js';

/** A handler that only records what reached it. */
const stubHandler = () => {
  const events: APIGatewayProxyEvent[] = [];
  const handler: ApiHandler = async (event) => {
    events.push(event);
    return {
      statusCode: 200,
      headers: { 'Content-Type': 'application/json' },
      body: '{"ok":true}',
    };
  };
  return { events, handler };
};

const shims: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const shim of shims.splice(0)) await shim.close();
});

const start = async (options: Omit<Parameters<typeof startHttpShim>[0], 'port'>) => {
  const shim = await startHttpShim({ port: 0, ...options });
  shims.push(shim);
  return shim;
};

/**
 * A POST over node:http. `chunked` sends no Content-Length, so the shim has to count the bytes
 * as they arrive.
 */
const post = (
  url: string,
  body: Buffer,
  options: { chunked?: boolean; headers?: Record<string, string> } = {}
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> =>
  new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          ...(options.chunked ? {} : { 'Content-Length': String(body.length) }),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          })
        );
      }
    );
    // The shim may answer and close before the whole upload is written: that is the point.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    if (options.chunked) {
      // Several writes: the body arrives in pieces, as a slow client sends it.
      const piece = 64 * 1024;
      for (let offset = 0; offset < body.length; offset += piece) {
        req.write(body.subarray(offset, offset + piece));
      }
      req.end();
    } else {
      req.end(body);
    }
  });

describe('the local endpoint refuses large bodies before the handler runs', () => {
  for (const chunked of [false, true]) {
    const how = chunked ? 'counted as it arrives (chunked)' : 'by its Content-Length';
    it(`1 MiB + 1 byte is 413, ${how}, and the handler is never called`, async () => {
      const { events, handler } = stubHandler();
      const shim = await start({ handler, throttle: false });
      const reply = await post(shim.url, Buffer.alloc(MAX_REQUEST_BYTES + 1, 'a'), { chunked });
      expect(reply.status).toBe(413);
      expect(reply.headers['content-type']).toBe('application/json');
      expect(JSON.parse(reply.body)).toEqual({
        error: 'request body too large',
        limit: MAX_REQUEST_BYTES,
      });
      expect(events).toHaveLength(0);
    });

    it(`exactly 1 MiB reaches the handler whole, ${how}`, async () => {
      const { events, handler } = stubHandler();
      const shim = await start({ handler, throttle: false });
      const reply = await post(shim.url, Buffer.alloc(MAX_REQUEST_BYTES, 'a'), { chunked });
      expect(reply.status).toBe(200);
      expect(events).toHaveLength(1);
      expect(events[0]!.body).toHaveLength(MAX_REQUEST_BYTES);
    });
  }

  it('takes the limit as an option', async () => {
    const { events, handler } = stubHandler();
    const shim = await start({ handler, throttle: false, maxBodyBytes: 10 });
    expect((await post(shim.url, Buffer.from('0123456789'))).status).toBe(200);
    expect((await post(shim.url, Buffer.from('0123456789A'))).status).toBe(413);
    expect(events).toHaveLength(1);
  });

  it('keeps serving after a refusal', async () => {
    const { events, handler } = stubHandler();
    const shim = await start({ handler, throttle: false, maxBodyBytes: 10 });
    expect((await post(shim.url, Buffer.alloc(1024 * 1024, 'x'), { chunked: true })).status).toBe(
      413
    );
    expect((await post(shim.url, Buffer.from('{}'))).status).toBe(200);
    expect(events).toHaveLength(1);
  });
});

describe('the local endpoint throttles each client', () => {
  /** A clock the test moves: refilling takes no waiting. */
  const clock = () => {
    let now = 1_000_000;
    return { now: () => now, advance: (ms: number) => (now += ms) };
  };

  it('answers 429 with Retry-After once a client spends its burst, and refills', async () => {
    const time = clock();
    const { events, handler } = stubHandler();
    // 60 a minute: one token a second.
    const shim = await start({ handler, throttle: { ratePerMinute: 60, burst: 3, now: time.now } });
    const alice = { headers: { Authorization: 'Bearer alice-token' } };
    for (let i = 0; i < 3; i++)
      expect((await post(shim.url, Buffer.from('{}'), alice)).status).toBe(200);
    const refused = await post(shim.url, Buffer.from('{}'), alice);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.body).error.code).toBe(TOO_MANY_REQUESTS_CODE);
    expect(events).toHaveLength(3);

    time.advance(1_000);
    expect((await post(shim.url, Buffer.from('{}'), alice)).status).toBe(200);
    expect((await post(shim.url, Buffer.from('{}'), alice)).status).toBe(429);
    expect(events).toHaveLength(4);
  });

  it("answers a JSON-RPC request's 429 as a JSON-RPC error with the request's id", async () => {
    const { handler } = stubHandler();
    const shim = await start({ handler, throttle: { ratePerMinute: 60, burst: 1 } });
    const call = Buffer.from('{"jsonrpc":"2.0","id":7,"method":"GetTask","params":{"id":"t-1"}}');
    expect((await post(shim.url, call)).status).toBe(200);
    const refused = await post(shim.url, call);
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toBe('application/json');
    expect(refused.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32000,
        message:
          'too many requests from this client: at most 60 a minute, in bursts of 1; retry after 1 s',
        data: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'RATE_LIMITED',
            domain: 'tiny-harness',
            metadata: { ratePerMinute: '60', burst: '1' },
          },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' },
        ],
      },
    });
  });

  it("answers an HTTP+JSON request's 429 as a google.rpc.Status, RESOURCE_EXHAUSTED", async () => {
    const { handler } = stubHandler();
    const shim = await start({ handler, throttle: { ratePerMinute: 60, burst: 1 } });
    const send = `${shim.url}/message:send`;
    expect((await post(send, Buffer.from('{}'))).status).toBe(200);
    const refused = await post(send, Buffer.from('{}'));
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toBe('application/a2a+json');
    expect(refused.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.body)).toEqual({
      error: {
        code: 429,
        status: 'RESOURCE_EXHAUSTED',
        message:
          'too many requests from this client: at most 60 a minute, in bursts of 1; retry after 1 s',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'RATE_LIMITED',
            domain: 'tiny-harness',
            metadata: { ratePerMinute: '60', burst: '1' },
          },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' },
        ],
      },
    });
  });

  it('keeps one bucket per bearer token, and one per address for requests without one', async () => {
    const time = clock();
    const { handler } = stubHandler();
    const shim = await start({ handler, throttle: { ratePerMinute: 60, burst: 1, now: time.now } });
    const as = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });
    expect((await post(shim.url, Buffer.from('{}'), as('alice-token'))).status).toBe(200);
    expect((await post(shim.url, Buffer.from('{}'), as('alice-token'))).status).toBe(429);
    expect((await post(shim.url, Buffer.from('{}'), as('bob-token'))).status).toBe(200);
    expect((await post(shim.url, Buffer.from('{}'))).status).toBe(200);
    expect((await post(shim.url, Buffer.from('{}'))).status).toBe(429);
  });

  it('is on by default: 120 a minute, burst 30', async () => {
    const { events, handler } = stubHandler();
    const shim = await start({ handler });
    const replies = [];
    for (let i = 0; i < 31; i++) replies.push((await post(shim.url, Buffer.from('{}'))).status);
    expect(replies.filter((status) => status === 200)).toHaveLength(30);
    expect(replies.at(-1)).toBe(429);
    expect(events).toHaveLength(30);
  });
});

describe('the token bucket', () => {
  it('waits out the deficit: Retry-After is the seconds until one token is back', () => {
    let now = 0;
    const throttle = createThrottle({ ratePerMinute: 6, burst: 2, now: () => now });
    expect(throttle.take('a')).toEqual({ allowed: true });
    expect(throttle.take('a')).toEqual({ allowed: true });
    expect(throttle.take('a')).toEqual({ allowed: false, retryAfterSeconds: 10 });
    now += 4_000;
    expect(throttle.take('a')).toEqual({ allowed: false, retryAfterSeconds: 6 });
    now += 6_000;
    expect(throttle.take('a')).toEqual({ allowed: true });
    // A long quiet spell refills to the burst, no further.
    now += 3_600_000;
    expect(throttle.take('a')).toEqual({ allowed: true });
    expect(throttle.take('a')).toEqual({ allowed: true });
    expect(throttle.take('a').allowed).toBe(false);
  });

  it('forgets the least recently seen clients past its bound', () => {
    const throttle = createThrottle({ ratePerMinute: 1, burst: 1, now: () => 0, maxClients: 2 });
    expect(throttle.take('a').allowed).toBe(true);
    expect(throttle.take('b').allowed).toBe(true);
    expect(throttle.take('c').allowed).toBe(true);
    // 'a' was evicted: a fresh bucket. 'c' is still remembered.
    expect(throttle.take('a').allowed).toBe(true);
    expect(throttle.take('c').allowed).toBe(false);
  });

  it('refuses a configuration that could never admit anyone', () => {
    expect(() => createThrottle({ ratePerMinute: 0, burst: 1 })).toThrow(/ratePerMinute/);
    expect(() => createThrottle({ ratePerMinute: 1, burst: 0 })).toThrow(/burst/);
  });
});
