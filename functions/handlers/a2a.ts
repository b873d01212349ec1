import { type AgentCard, HTTP_EXTENSION_HEADER } from '@a2a-js/sdk';
import middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { inRequestSpan, nameRequest } from '../adapters/tracing/request-span.js';
import { flushTraces, NO_TRACING } from '../adapters/tracing/tracing.js';
import { auditOf } from '../composition/audit.js';
import { lambdaRuntime, lambdaStreamLeases } from '../composition/lambda/a2a.js';
import type { ServiceRuntime } from '../composition/service-runtime.js';
import { errorFields, type Logger } from '../core/ports/logger.js';
import { A2aError, internalError, toA2aError } from '../service/a2a-errors.js';
import { A2aService } from '../service/a2a-service.js';
import { negotiateExtensions } from '../service/extensions.js';
import type { IdentitySettings } from '../service/identity.js';
import { AGENT_CARD_PATH, agentCardResponse, cardBuiltAt, cardOf } from './a2a/card.js';
import {
  A2A_CONTENT_TYPE,
  type A2aHttpResult,
  bodyOf,
  header,
  JSON_CONTENT_TYPE,
  respond,
  respondStream,
} from './a2a/http.js';
import { dispatchJsonRpc, type JsonRpcReply, jsonRpcFailure, jsonRpcIdOf } from './a2a/json-rpc.js';
import {
  bufferedHandler,
  type LambdaStreamingApi,
  streamingLambdaHandler,
} from './a2a/response-streaming.js';
import { dispatchRest, matchRoute, noRoute, type RestReply, restFailure } from './a2a/rest.js';
import { queryOf } from './a2a/rest-request.js';
import { lastEventIdOf } from './a2a/sse.js';
import {
  answerAuditJsonRpc,
  answerAuditRest,
  auditRouteTaskId,
  isAuditJsonRpc,
} from './a2a-audit.js';
import { answerForkJsonRpc, answerForkRest, forkRoute, isForkJsonRpc } from './a2a-fork.js';
import { isTooLarge, payloadTooLargeResponse } from './body-limit.js';
import { withBrowserOrigin } from './browser-origin.js';
import { callerOf, unauthorizedResponse } from './caller.js';
import { capStreamsPerCaller } from './stream-cap.js';
import { isJsonRpcRequest } from './too-many-requests.js';

export { AGENT_CARD_PATH };

const SUPPORTED_VERSIONS = new Set(['1.0']);

/** What the transport said besides the body, once the request is admitted. */
interface Admitted {
  /** The extensions the request activated, echoed in the answer. */
  activated: string[];
  /** The SSE `Last-Event-ID` header, for SubscribeToTask. */
  lastEventId: number | undefined;
}

/**
 * The checks every A2A request passes before its binding reads it, so a refused request reads and
 * stores nothing: the protocol version (§3.6: an absent `A2A-Version` is 0.3, which this server
 * does not serve), the requested extensions (§3.2.6), and a `Last-Event-ID` that is a number.
 */
const admit = (event: APIGatewayProxyEvent, card: AgentCard): Admitted => {
  const version =
    header(event, 'a2a-version') || event.queryStringParameters?.['A2A-Version'] || '0.3';
  if (!SUPPORTED_VERSIONS.has(version)) {
    throw new A2aError('VersionNotSupported', `A2A protocol version ${version} is not supported`);
  }
  return {
    activated: negotiateExtensions(header(event, HTTP_EXTENSION_HEADER), card),
    lastEventId: lastEventIdOf(header(event, 'last-event-id')),
  };
};

/** JSON-RPC is `POST /`; everything else at the base URL is the HTTP+JSON binding (§5.3). */
const isJsonRpc = (event: APIGatewayProxyEvent) => isJsonRpcRequest(event.httpMethod, event.path);

/** One A2A request as the entry point read it, for whichever binding serves it. */
interface Call {
  event: APIGatewayProxyEvent;
  body: string;
  caller: string;
  card: AgentCard;
  service: A2aService;
  /** The audit extension's read model (docs/a2a/audit.md). */
  audit: () => ReturnType<typeof auditOf>;
  /** Logs a failure inside a stream that has already started (it is sent as an error event). */
  onStreamError: (error: A2aError) => void;
}

type Binding = 'JSONRPC' | 'HTTP+JSON';

interface Answer {
  binding: Binding;
  reply: JsonRpcReply | RestReply;
  activated: string[];
}

const CONTENT_TYPE: Record<Binding, string> = {
  JSONRPC: JSON_CONTENT_TYPE,
  'HTTP+JSON': A2A_CONTENT_TYPE,
};

const jsonRpcCall = async (call: Call): Promise<Answer> => {
  const { event, body, caller, card, service } = call;
  const binding = 'JSONRPC';
  let admitted: Admitted;
  try {
    admitted = admit(event, card);
  } catch (error) {
    return { binding, reply: jsonRpcFailure(jsonRpcIdOf(body), toA2aError(error)), activated: [] };
  }
  const { activated, lastEventId } = admitted;
  if (isAuditJsonRpc(body)) {
    return { binding, reply: await answerAuditJsonRpc(body, caller, call.audit()), activated };
  }
  if (isForkJsonRpc(body)) {
    const reply = await answerForkJsonRpc(body, caller, service, call.audit().sources);
    return { binding, reply, activated };
  }
  const contentType = header(event, 'content-type');
  const reply = await dispatchJsonRpc(
    body,
    { caller, lastEventId, contentType },
    service,
    call.onStreamError
  );
  return { binding, reply, activated };
};

const restCall = async (call: Call): Promise<Answer> => {
  const { event, body, caller, card, service } = call;
  const binding = 'HTTP+JSON';
  // An unknown route is a 404 whatever the headers say: it is not an A2A request at all.
  const matched = matchRoute(event.httpMethod, event.path);
  const timelineOf = auditRouteTaskId(event.httpMethod, event.path);
  const fork = forkRoute(event.httpMethod, event.path);
  if (matched === undefined && timelineOf === undefined && fork === undefined) {
    return { binding, reply: noRoute(event.httpMethod, event.path), activated: [] };
  }
  let admitted: Admitted;
  let query: Record<string, string | undefined>;
  try {
    admitted = admit(event, card);
    query = queryOf(event);
  } catch (error) {
    return { binding, reply: restFailure(toA2aError(error)), activated: [] };
  }
  const { activated, lastEventId } = admitted;
  const request = {
    method: event.httpMethod,
    path: event.path,
    query,
    body,
    contentType: header(event, 'content-type'),
    caller,
    lastEventId,
  };
  if (fork !== undefined) {
    const reply = await answerForkRest(fork, request, service, call.audit().sources);
    return { binding, reply, activated };
  }
  if (timelineOf !== undefined || matched === undefined) {
    const reply = await answerAuditRest(timelineOf ?? '', query, caller, call.audit());
    return { binding, reply, activated };
  }
  return {
    binding,
    reply: await dispatchRest(matched, request, service, call.onStreamError),
    activated,
  };
};

/** The activated extensions, echoed (§3.2.6) on every answer to a request that activated some. */
const extensionHeaders = (activated: readonly string[]): Record<string, string> =>
  activated.length > 0 ? { [HTTP_EXTENSION_HEADER]: activated.join(', ') } : {};

const identityOf = ({ config }: ServiceRuntime): IdentitySettings => ({
  mode: config.TINY_HARNESS_AUTH_MODE,
  tokens: config.TINY_HARNESS_BEARER_TOKENS,
  participantClaim: config.TINY_HARNESS_PARTICIPANT_CLAIM,
  agentId: config.TINY_HARNESS_AGENT_ID,
});

/**
 * An answered error worth an operator's attention: an internal one, at error level with its cause
 * and the correlation id the client got, so what a user reports leads to what happened.
 */
const logFailure = (
  logger: Logger,
  message: string,
  error: A2aError | undefined,
  fields: Record<string, unknown>
) => {
  if (error?.kind !== 'InternalError') return;
  const cause = error.cause ?? error;
  logger.error(message, {
    ...fields,
    correlationId: error.correlationId,
    ...errorFields(cause),
    stack: cause instanceof Error ? cause.stack : undefined,
  });
};

export const createA2aHandler = (
  runtime: () => ServiceRuntime,
  service: () => A2aService,
  builtAt = cardBuiltAt()
) =>
  middy(async (event: APIGatewayProxyEvent): Promise<A2aHttpResult> => {
    const { logger } = runtime();
    const card = cardOf(event, runtime());
    if (event.httpMethod === 'GET' && event.path.endsWith(AGENT_CARD_PATH)) {
      return agentCardResponse(event, card, builtAt);
    }
    // Limits and identity come before anything reads the body or the store.
    if (isTooLarge(event)) return payloadTooLargeResponse();
    const resolved = callerOf(event, identityOf(runtime()));
    if (!resolved.ok) return unauthorizedResponse(resolved);
    const caller = resolved.participantId;
    const jsonRpc = isJsonRpc(event);
    const body = bodyOf(event);
    const tracing = runtime().tracing ?? NO_TRACING;
    // The caller's traceparent, when it sent one, is this request's parent.
    return inRequestSpan(tracing, event.headers, async (span) => {
      try {
        let streamed: A2aHttpResult | undefined;
        const onStreamError = (error: A2aError) => {
          // The client left (or the server is stopping) while a read was in flight: nobody is
          // told of the failure, and the store going away behind a stop is not an incident.
          if (typeof streamed?.body !== 'string' && streamed?.body.destroyed === true)
            logger.info('a2a stream ended after its client left', {
              caller,
              error: error.kind,
              errorMessage: error.message,
            });
          else if (error.kind === 'InternalError')
            logFailure(logger, 'a2a stream failed', error, { caller });
          else
            logger.warn('a2a stream failed', {
              caller,
              error: error.kind,
              errorMessage: error.message,
            });
        };
        const audit = () => auditOf(runtime());
        const call = { event, body, caller, card, service: service(), audit, onStreamError };
        const { binding, reply, activated } = await (jsonRpc ? jsonRpcCall(call) : restCall(call));
        const fields = {
          binding,
          operation: reply.operation,
          caller,
          status: reply.status,
          error: reply.error?.kind,
        };
        nameRequest(span, reply.operation, reply.status);
        logger.info('a2a request', fields);
        logFailure(logger, 'a2a request failed', reply.error, fields);
        if (reply.stream !== undefined) {
          streamed = respondStream(reply.stream, extensionHeaders(activated));
          return streamed;
        }
        return respond(
          reply.status,
          CONTENT_TYPE[binding],
          reply.body,
          extensionHeaders(activated)
        );
      } catch (error) {
        const internal = internalError(error);
        logFailure(logger, 'a2a request failed', internal, { caller });
        return jsonRpc
          ? respond(500, JSON_CONTENT_TYPE, jsonRpcFailure(null, internal).body)
          : respond(500, A2A_CONTENT_TYPE, restFailure(internal).body);
      }
    }).finally(() => flushTraces(tracing, logger));
  });

let serviceMemo: A2aService | undefined;
const lambdaService = () => {
  serviceMemo ??= new A2aService(lambdaRuntime(), {
    blockingTimeoutMs: 25_000,
    pollIntervalMs: 250,
  });
  return serviceMemo;
};

/**
 * Lambda's runtime defines `awslambda.streamifyResponse`; elsewhere it is absent (the AWS SDK
 * itself may create an `awslambda` object, without it).
 */
const lambdaStreaming = (globalThis as { awslambda?: Partial<LambdaStreamingApi> }).awslambda;

// Each open stream holds an instance: a caller may hold TINY_HARNESS_STREAMS_PER_CALLER at once.
// Every answer, refusals included, may be read by the web renderer's origin.
const lambdaA2aHandler = () =>
  withBrowserOrigin(
    () => lambdaRuntime().config.TINY_HARNESS_WEB_ORIGIN,
    createA2aHandler(lambdaRuntime, lambdaService).use(
      capStreamsPerCaller(lambdaRuntime, lambdaStreamLeases)
    )
  );

export const handler =
  typeof lambdaStreaming?.streamifyResponse !== 'function'
    ? bufferedHandler(lambdaA2aHandler())
    : streamingLambdaHandler(lambdaA2aHandler(), lambdaStreaming as LambdaStreamingApi);
