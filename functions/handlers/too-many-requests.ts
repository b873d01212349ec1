import type { APIGatewayProxyResult } from 'aws-lambda';
import { A2A_CONTENT_TYPE, JSON_CONTENT_TYPE, respond } from './a2a/http.js';
import { jsonRpcIdOf } from './a2a/json-rpc.js';

/** JSON-RPC is `POST /`; everything else at the base URL is the HTTP+JSON binding (§5.3). */
export const isJsonRpcRequest = (method: string, path: string): boolean =>
  method === 'POST' && (path === '/' || path === '');

/**
 * The JSON-RPC code of a limit reached: -32000, the one code of JSON-RPC 2.0's
 * implementation-defined server errors that A2A leaves free (its own are -32001 to -32099, §9.5).
 * Not -32603: nothing failed, and the same request may simply be sent again later.
 */
export const TOO_MANY_REQUESTS_CODE = -32000;

/** The `google.rpc.ErrorInfo` domain of this server's own reasons (never A2A's, §11.6). */
export const HARNESS_ERROR_DOMAIN = 'tiny-harness';

/** Which limit a request ran into. */
export type LimitReason = 'RATE_LIMITED' | 'TOO_MANY_STREAMS';

export interface Limited {
  reason: LimitReason;
  message: string;
  /** Whole seconds, at least 1: the `Retry-After` header and the RetryInfo's delay. */
  retryAfterSeconds: number;
  /** ErrorInfo metadata (string values, as `google.rpc.ErrorInfo` has them): the limit, say. */
  metadata?: Record<string, string>;
}

/** The request as far as the answer depends on it; the body only for a JSON-RPC request's id. */
export interface LimitedRequest {
  method: string;
  path: string;
  body?: string | undefined;
}

/**
 * A 429 with `Retry-After`, in the error shape of the binding the request used, for a refusal
 * made before the binding reads the request (the local endpoint's throttle, the per-caller
 * stream cap). A2A has no error of its own for a limit: it counts it among system errors and
 * names Retry-After as HTTP's retry guidance (§3.3.2). So JSON-RPC gets a JSON-RPC error object
 * (§9.5: the request's id, TOO_MANY_REQUESTS_CODE, the details as `data`) and HTTP+JSON a
 * `google.rpc.Status` (§11.6) with RESOURCE_EXHAUSTED, the status Google's error model gives
 * 429. Both carry a `google.rpc.ErrorInfo` saying which limit (in this server's domain: an A2A
 * reason would be read by the SDK clients as one of A2A's errors) and a `google.rpc.RetryInfo`.
 */
export const tooManyRequests = (
  request: LimitedRequest,
  limited: Limited
): APIGatewayProxyResult => {
  const retryAfter = String(limited.retryAfterSeconds);
  const details = [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: limited.reason,
      domain: HARNESS_ERROR_DOMAIN,
      ...(limited.metadata === undefined ? {} : { metadata: limited.metadata }),
    },
    { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfter}s` },
  ];
  const headers = { 'Retry-After': retryAfter };
  if (isJsonRpcRequest(request.method, request.path)) {
    const error = { code: TOO_MANY_REQUESTS_CODE, message: limited.message, data: details };
    const body = { jsonrpc: '2.0', id: jsonRpcIdOf(request.body ?? ''), error };
    return respond(429, JSON_CONTENT_TYPE, body, headers);
  }
  const status = { code: 429, status: 'RESOURCE_EXHAUSTED', message: limited.message, details };
  return respond(429, A2A_CONTENT_TYPE, { error: status }, headers);
};
