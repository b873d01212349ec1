import { randomUUID } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import type middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { StreamLeases } from '../adapters/streams/dynamodb-stream-leases.js';
import type { RuntimeConfig } from '../composition/runtime-config.js';
import type { Logger } from '../core/ports/logger.js';
import { errorFields } from '../core/ports/logger.js';
import { type A2aHttpResult, bodyOf } from './a2a/http.js';
import { matchRoute } from './a2a/rest.js';
import { callerOf } from './caller.js';
import { isJsonRpcRequest, tooManyRequests } from './too-many-requests.js';

/** The A2A operations whose answer is a Server-Sent Event stream (each holds an instance). */
export const STREAMING_OPERATIONS: ReadonlySet<string> = new Set([
  'SendStreamingMessage',
  'SubscribeToTask',
]);

/** How long a client should wait before it opens one more stream (it may close one first). */
export const RETRY_AFTER_SECONDS = 30;

/** The streaming operation a request names, read from the JSON-RPC method or the REST route. */
export const streamingOperationOf = (event: APIGatewayProxyEvent): string | undefined => {
  if (isJsonRpcRequest(event.httpMethod, event.path)) {
    try {
      const { method } = JSON.parse(bodyOf(event)) as { method?: unknown };
      return typeof method === 'string' && STREAMING_OPERATIONS.has(method) ? method : undefined;
    } catch {
      return undefined;
    }
  }
  const operation = matchRoute(event.httpMethod, event.path)?.route.operation;
  return operation !== undefined && STREAMING_OPERATIONS.has(operation) ? operation : undefined;
};

const tooManyStreams = (event: APIGatewayProxyEvent, limit: number): A2aHttpResult =>
  tooManyRequests(
    { method: event.httpMethod, path: event.path, body: bodyOf(event) },
    {
      reason: 'TOO_MANY_STREAMS',
      message: `too many open streams: at most ${limit} per caller; close one, or retry later`,
      retryAfterSeconds: RETRY_AFTER_SECONDS,
      metadata: { limit: String(limit) },
    }
  );

interface Lease {
  caller: string;
  leaseId: string;
}

const LEASE = 'tinyHarnessStreamLease';

/**
 * A cap on the streams one caller holds open at once (TINY_HARNESS_STREAMS_PER_CALLER): a stream
 * takes a lease before anything of the request is read or applied, and gives it back when its
 * response body closes (or at once when no stream was answered). One more is answered 429 with
 * Retry-After, in the binding's error shape (too-many-requests.ts). Requests that do not
 * stream, and unauthenticated ones (the handler refuses those), pass through untouched.
 */
export const capStreamsPerCaller = (
  runtime: () => { config: RuntimeConfig; logger: Logger },
  leases: () => StreamLeases
): middy.MiddlewareObj<APIGatewayProxyEvent, A2aHttpResult> => {
  const release = (lease: Lease) =>
    leases()
      .release(lease.caller, lease.leaseId)
      .catch((error: unknown) =>
        runtime().logger.warn('stream lease not released (it expires on its own)', {
          caller: lease.caller,
          ...errorFields(error),
        })
      );
  const leaseOf = (request: middy.Request<APIGatewayProxyEvent, A2aHttpResult>) =>
    (request.internal as Record<string, unknown>)[LEASE] as Lease | undefined;
  return {
    before: async (request) => {
      const operation = streamingOperationOf(request.event);
      if (operation === undefined) return undefined;
      const { config, logger } = runtime();
      const resolved = callerOf(request.event, {
        mode: config.TINY_HARNESS_AUTH_MODE,
        tokens: config.TINY_HARNESS_BEARER_TOKENS,
        participantClaim: config.TINY_HARNESS_PARTICIPANT_CLAIM,
        agentId: config.TINY_HARNESS_AGENT_ID,
      });
      if (!resolved.ok) return undefined;
      const limit = config.TINY_HARNESS_STREAMS_PER_CALLER;
      const lease = { caller: resolved.participantId, leaseId: randomUUID() };
      if (!(await leases().acquire(lease.caller, lease.leaseId, limit))) {
        logger.info('stream refused: too many open', { caller: lease.caller, operation, limit });
        return tooManyStreams(request.event, limit);
      }
      (request.internal as Record<string, unknown>)[LEASE] = lease;
      return undefined;
    },
    after: async (request) => {
      const lease = leaseOf(request);
      if (lease === undefined) return;
      const response = request.response;
      const body = response?.body;
      if (response === null || response === undefined || !(body instanceof Readable)) {
        await release(lease);
        return;
      }
      // The lease goes back as soon as the client's side closes: a PassThrough closes at once
      // when destroyed, whereas the tailing generator behind the body only notices at its next
      // item (a keep-alive may be 15 s away).
      const relay = new PassThrough();
      relay.once('close', () => {
        body.destroy();
        void release(lease);
      });
      body.once('error', (error) => relay.destroy(error));
      body.pipe(relay);
      response.body = relay;
    },
    onError: async (request) => {
      const lease = leaseOf(request);
      if (lease !== undefined) await release(lease);
    },
  };
};
