import { parseSse } from '../support/sse.js';
import type { FuzzRequest } from './requests.js';

/**
 * What the fuzzer makes of an answer. Every request must get a typed A2A answer in its binding's
 * shape: a JSON-RPC response (`result` or an `error` with an integer code) or an HTTP+JSON body
 * (the result, or `{"error": google.rpc.Status}`), or a stream of them. An internal error
 * (-32603, 500), an answer in neither shape or a handler that throws is a failure; so is a
 * request with a wrong-typed field that is answered with success (the field was coerced) or with
 * another error than InvalidParams.
 */

export interface Answer {
  status: number;
  headers: Record<string, string>;
  /** The body, or the whole text of a stream, read to its end. */
  body: string;
  streamed: boolean;
}

export type Verdict =
  | { kind: 'ok'; outcome: 'success' | 'refused' | 'before-binding' }
  | { kind: 'internal'; why: string }
  | { kind: 'shape'; why: string }
  | { kind: 'coerced'; field: string }
  | { kind: 'wrong-refusal'; field: string; got: string }
  | { kind: 'stored'; why: string };

/**
 * Statuses answered before either binding reads the request: identity, size, and the HTTP
 * server's own refusal of a URL or headers too long to read (414, 431). A 429 (throttle, stream
 * cap) and a 503 (Busy: a task too contended to write, retryable) are in the binding's shape and
 * judged as any answer.
 */
const BEFORE_BINDING = new Set([401, 413, 414, 431]);

type Json = Record<string, unknown>;

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A refusal as either binding spells it: its code (JSON-RPC) or status name (HTTP+JSON). */
interface Refusal {
  internal: boolean;
  invalidParams: boolean;
  name: string;
}

const jsonRpcRefusal = (error: unknown): Refusal | string => {
  if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string') {
    return 'a JSON-RPC error without an integer code and a message';
  }
  const code = error.code as number;
  return { internal: code === -32603, invalidParams: code === -32602, name: String(code) };
};

const restRefusal = (body: unknown, status: number): Refusal | string => {
  const error = isObject(body) ? body.error : undefined;
  if (
    !isObject(error) ||
    error.code !== status ||
    typeof error.status !== 'string' ||
    typeof error.message !== 'string' ||
    !Array.isArray(error.details)
  ) {
    return 'an HTTP+JSON error that is not a google.rpc.Status of its status';
  }
  const reason = (error.details[0] as Json | undefined)?.reason;
  return {
    internal: status === 500 || error.status === 'INTERNAL',
    invalidParams: status === 400 && reason === 'INVALID_PARAMS',
    name: `${status} ${String(reason ?? error.status)}`,
  };
};

/** Each frame of a stream, as the binding spells a response or an error. */
const streamVerdicts = (request: FuzzRequest, text: string): Array<Refusal | string | 'event'> =>
  parseSse(`${text}\n\n`).entries.flatMap((entry) => {
    if (entry.kind === 'comment') return [];
    const json = parse(entry.frame.data);
    if (json === undefined) return ['a stream frame that is not JSON'];
    if (request.binding === 'JSON-RPC') {
      if (!isObject(json) || json.jsonrpc !== '2.0') return ['a stream frame that is not JSON-RPC'];
      return [json.error === undefined ? 'event' : jsonRpcRefusal(json.error)];
    }
    if (entry.frame.event !== 'error') return ['event'];
    const code = isObject(json) && isObject(json.error) ? json.error.code : undefined;
    return [restRefusal(json, typeof code === 'number' ? code : 0)];
  });

const judge = (request: FuzzRequest, refusal: Refusal | string | undefined): Verdict => {
  if (typeof refusal === 'string') return { kind: 'shape', why: refusal };
  if (refusal?.internal) return { kind: 'internal', why: refusal.name };
  const field = request.wrongTyped;
  if (field === undefined)
    return { kind: 'ok', outcome: refusal === undefined ? 'success' : 'refused' };
  if (refusal === undefined) return { kind: 'coerced', field };
  if (!refusal.invalidParams) return { kind: 'wrong-refusal', field, got: refusal.name };
  return { kind: 'ok', outcome: 'refused' };
};

export const verdictOf = (request: FuzzRequest, answer: Answer): Verdict => {
  if (answer.status === 500) return { kind: 'internal', why: 'HTTP 500' };
  if (BEFORE_BINDING.has(answer.status)) return { kind: 'ok', outcome: 'before-binding' };
  if (answer.streamed) {
    const frames = streamVerdicts(request, answer.body);
    const problem = frames.find((frame) => frame !== 'event');
    return judge(request, problem === 'event' ? undefined : problem);
  }
  const body = answer.body === '' ? undefined : parse(answer.body);
  if (request.binding === 'JSON-RPC' && request.path === '/' && request.method === 'POST') {
    // A JSON-RPC error travels with 200, but a 429 keeps its status (Retry-After means it).
    const status = answer.status === 200 || answer.status === 429;
    if (!status || !isObject(body) || body.jsonrpc !== '2.0' || !('id' in body)) {
      return {
        kind: 'shape',
        why: `a JSON-RPC answer that is not a response (HTTP ${answer.status})`,
      };
    }
    if ((body.result === undefined) === (body.error === undefined)) {
      return { kind: 'shape', why: 'a JSON-RPC response without exactly one of result and error' };
    }
    return judge(request, body.error === undefined ? undefined : jsonRpcRefusal(body.error));
  }
  if (answer.status >= 400) return judge(request, restRefusal(body, answer.status));
  if (answer.status === 204 ? answer.body !== '' : !isObject(body)) {
    return {
      kind: 'shape',
      why: `an HTTP+JSON success whose body is not a JSON object (HTTP ${answer.status})`,
    };
  }
  return judge(request, undefined);
};
