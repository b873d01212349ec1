/**
 * The local engine behind the Step Functions wire protocol (awsJson1_0: `POST /`,
 * `X-Amz-Target: AWSStepFunctions.<Operation>`), so handlers keep using `@aws-sdk/client-sfn`
 * with only an `endpoint` override. Errors go out as the service sends them, a 400 whose body
 * has `__type: "<namespace>#<Name>"`; the SDK keeps the part after `#` and throws its typed
 * exception of that name. Timestamps are epoch seconds, as the service returns them.
 *
 * Anyone who can reach it can stop executions and answer parked tasks' tokens, so it listens on
 * loopback, answers only to its loopback Host (a DNS-rebinding page is refused with 421,
 * loopback-host.ts), and only at a path holding a secret made for this run: its endpoint is
 * `http://127.0.0.1:<port>/<secret>`, which the SDK clients it is handed to call as they would
 * any endpoint with a path, and which another user of this machine, who can reach the port,
 * cannot guess (403).
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refuseForeignHost } from '../loopback-host.js';
import type { LocalStepFunctions } from './engine.js';
import { isSfnServiceError } from './sfn-errors.js';
import { OperationError, runOperation } from './sfn-operations.js';

export interface SfnHttpFacadeOptions {
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  host?: string;
}

export interface SfnHttpFacade {
  /** `http://<host>:<port>/<secret>`, for `new SFNClient({ endpoint })`. */
  endpoint: string;
  /** The port it listens on (the banner says where it is, never its secret). */
  port: number;
  close(): Promise<void>;
}

const TARGET_PREFIX = 'AWSStepFunctions.';
const CONTENT_TYPE = 'application/x-amz-json-1.0';
const SFN_NAMESPACE = 'com.amazonaws.swf.service.v2.model';
const CORAL_NAMESPACE = 'com.amazon.coral.service';
/** Inputs and outputs are capped at 256 KiB; leave room for the envelope. */
const MAX_BODY_BYTES = 1024 * 1024;

class WireError extends Error {
  readonly status: number;
  readonly type: string;

  constructor(status: number, type: string, message: string) {
    super(message);
    this.status = status;
    this.type = type;
  }
}

/** Dates as epoch seconds (with milliseconds), the awsJson timestamp format. */
const toWire = (value: unknown): unknown => {
  if (value instanceof Date) return value.getTime() / 1000;
  if (Array.isArray(value)) return value.map(toWire);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toWire(item)]));
  }
  return value;
};

const wireError = (error: unknown): WireError => {
  if (error instanceof WireError) return error;
  if (isSfnServiceError(error))
    return new WireError(400, `${SFN_NAMESPACE}#${error.name}`, error.message);
  if (error instanceof OperationError) {
    const namespace = error.name === 'ValidationException' ? SFN_NAMESPACE : CORAL_NAMESPACE;
    return new WireError(400, `${namespace}#${error.name}`, error.message);
  }
  return new WireError(
    500,
    `${CORAL_NAMESPACE}#InternalFailure`,
    String((error as Error)?.message ?? error)
  );
};

const readBody = async (request: IncomingMessage): Promise<unknown> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES)
      throw new WireError(413, `${CORAL_NAMESPACE}#SerializationException`, 'Request too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text.length === 0 ? {} : JSON.parse(text);
  } catch {
    throw new WireError(
      400,
      `${CORAL_NAMESPACE}#SerializationException`,
      'The request body is not JSON'
    );
  }
};

const send = (response: ServerResponse, status: number, body: unknown): void => {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': CONTENT_TYPE,
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID(),
  });
  response.end(text);
};

/** Whether the request's path is the secret's (`/<secret>`, or `/<secret>/` as the SDK sends it). */
const carriesSecret = (request: IncomingMessage, secret: string): boolean => {
  const path = (request.url ?? '').split('?', 1)[0] ?? '';
  const given = Buffer.from(path.replace(/\/$/, ''));
  const expected = Buffer.from(`/${secret}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
};

const handle = async (
  engine: LocalStepFunctions,
  secret: string,
  request: IncomingMessage,
  response: ServerResponse
) => {
  if (refuseForeignHost(request, response)) return;
  try {
    if (!carriesSecret(request, secret)) {
      throw new WireError(
        403,
        `${CORAL_NAMESPACE}#AccessDeniedException`,
        "This endpoint is the local stack's own: use the endpoint it was started with"
      );
    }
    const target = request.headers['x-amz-target'];
    if (
      request.method !== 'POST' ||
      typeof target !== 'string' ||
      !target.startsWith(TARGET_PREFIX)
    ) {
      throw new WireError(
        400,
        `${CORAL_NAMESPACE}#UnknownOperationException`,
        'Expected POST with X-Amz-Target'
      );
    }
    const body = await readBody(request);
    send(response, 200, toWire(runOperation(engine, target.slice(TARGET_PREFIX.length), body)));
  } catch (error) {
    const failure = wireError(error);
    send(response, failure.status, { __type: failure.type, message: failure.message });
  }
};

export async function startSfnHttpFacade(
  engine: LocalStepFunctions,
  options: SfnHttpFacadeOptions = {}
): Promise<SfnHttpFacade> {
  const host = options.host ?? '127.0.0.1';
  const secret = randomBytes(24).toString('base64url');
  const server = createServer(
    (request, response) => void handle(engine, secret, request, response)
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://${host.includes(':') ? `[${host}]` : host}:${port}/${secret}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets of SDK clients would hold close() open until they time out.
        server.closeAllConnections();
      }),
  };
}
