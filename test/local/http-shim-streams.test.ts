import { request as httpRequest } from 'node:http';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { type ApiHandler, startHttpShim } from '../../functions/local/http-shim.js';

const shims: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const shim of shims.splice(0)) await shim.close();
});

/** A handler that answers a stream only when told to, and keeps the streams it answered. */
const heldStreamHandler = () => {
  let answer: () => void = () => {};
  let handlerReached: () => void = () => {};
  const reached = new Promise<void>((resolveReached) => {
    handlerReached = resolveReached;
  });
  const bodies: PassThrough[] = [];
  const handler: ApiHandler = async () => {
    handlerReached();
    await new Promise<void>((resolveAnswer) => {
      answer = resolveAnswer;
    });
    const body = new PassThrough();
    bodies.push(body);
    body.write(': keep-alive\n\n');
    return { statusCode: 200, headers: { 'Content-Type': 'text/event-stream' }, body };
  };
  return { handler, reached, answer: () => answer(), bodies };
};

const closed = (body: PassThrough) =>
  body.destroyed ? Promise.resolve() : new Promise<void>((done) => body.once('close', done));

/** Whether the stream the handler answered is closed within 2 s, or still open then. */
const stateOfStream = async (bodies: PassThrough[]) => {
  const body = await waitForBody(bodies);
  return Promise.race([
    closed(body).then(() => 'closed'),
    new Promise((done) => setTimeout(() => done('still open'), 2_000)),
  ]);
};

/** A POST to a shim whose handler holds its stream answer, once the handler has it. */
const postHeld = async () => {
  const held = heldStreamHandler();
  const shim = await startHttpShim({ port: 0, handler: held.handler, throttle: false });
  shims.push(shim);
  const request = httpRequest(`${shim.url}/`, { method: 'POST' });
  request.on('error', () => undefined);
  const answered = new Promise<void>((done) => request.on('response', () => done()));
  request.end('{}');
  await held.reached;
  return { held, request, answered };
};

describe('the local HTTP shim’s streamed answers', () => {
  it('ends a stream whose client went away before it was answered', async () => {
    const { held, request } = await postHeld();
    // The client gives up while the handler is still working (a slow server under load).
    request.destroy();
    await new Promise((done) => setTimeout(done, 50));
    held.answer();
    await expect(stateOfStream(held.bodies)).resolves.toBe('closed');
  });

  it('ends a stream when its client goes away while it is sent', async () => {
    const { held, request, answered } = await postHeld();
    held.answer();
    await answered;
    request.destroy();
    await expect(stateOfStream(held.bodies)).resolves.toBe('closed');
  });
});

const waitForBody = async (bodies: PassThrough[]): Promise<PassThrough> => {
  for (let waited = 0; bodies.length === 0 && waited < 2_000; waited += 10) {
    await new Promise((done) => setTimeout(done, 10));
  }
  const [body] = bodies;
  if (body === undefined) throw new Error('the handler answered no stream');
  return body;
};
