import { type ListTasksRequest, taskStateFromJSON } from '@a2a-js/sdk';
import { A2A_ERRORS, A2aError, errorDetails } from '../../service/a2a-errors.js';
import { A2A_CONTENT_TYPE, JSON_CONTENT_TYPE } from './http.js';

/** One HTTP+JSON request, as the entry point read it from the proxy event. */
export interface RestRequest {
  method: string;
  path: string;
  query: Readonly<Record<string, string | undefined>>;
  body: string;
  contentType: string | undefined;
  caller: string;
  /** The SSE `Last-Event-ID` header, for SubscribeToTask. */
  lastEventId?: number | undefined;
}

export interface RestReply {
  status: number;
  /** The JSON body; absent for 204. */
  body?: unknown;
  /** SSE frames instead of `body`, for the streaming operations once their stream has started. */
  stream?: AsyncIterable<string>;
  /** The A2A operation the route serves, for the log line. */
  operation?: string;
  error?: A2aError;
}

/**
 * An error as the HTTP+JSON binding answers it (§5.4, §11): the status from the error table and a
 * `google.rpc.Status` body whose `details` carry the ErrorInfo. This is the shape the SDK's
 * RestTransport reads (`error.details[].reason`) to raise its typed errors.
 */
export const restFailure = (error: A2aError): RestReply => {
  const spec = A2A_ERRORS[error.kind];
  return {
    status: spec.http,
    body: {
      error: {
        code: spec.http,
        status: spec.status,
        message: error.message,
        details: errorDetails(error),
      },
    },
    error,
  };
};

export const invalid = (message: string) => new A2aError('InvalidParams', message);

/** A request body: JSON of an accepted media type (§5.3); an empty body reads as `{}`. */
export const jsonBody = (request: RestRequest): Record<string, unknown> => {
  if (request.body.trim() === '') return {};
  const mediaType = request.contentType?.split(';', 1)[0]?.trim().toLowerCase();
  if (
    mediaType !== undefined &&
    mediaType !== JSON_CONTENT_TYPE &&
    mediaType !== A2A_CONTENT_TYPE
  ) {
    throw new A2aError(
      'ContentTypeNotSupported',
      `a body must be ${A2A_CONTENT_TYPE} or ${JSON_CONTENT_TYPE}, not ${request.contentType}`
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(request.body);
  } catch {
    throw new A2aError('ParseError', 'the body is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalid('the body must be a JSON object');
  }
  return parsed as Record<string, unknown>;
};

export const decode = <T>(fns: { fromJSON(value: unknown): T }, json: unknown): T => {
  try {
    return fns.fromJSON(json);
  } catch (error) {
    throw invalid(`invalid request: ${(error as Error).message}`);
  }
};

export const integerParam = (name: string, value: string | undefined): number | undefined => {
  if (value === undefined || value === '') return undefined;
  if (!/^-?\d+$/.test(value)) throw invalid(`${name} must be an integer`);
  return Number(value);
};

const booleanParam = (name: string, value: string | undefined): boolean | undefined => {
  if (value === undefined || value === '') return undefined;
  if (value !== 'true' && value !== 'false') throw invalid(`${name} must be true or false`);
  return value === 'true';
};

/** ListTasks from the query string (§5.3 `GET /tasks`): state by name (or number). */
export const listTasksRequest = (query: RestRequest['query']): ListTasksRequest => ({
  tenant: '',
  contextId: query.contextId ?? '',
  status:
    query.status === undefined || query.status === ''
      ? 0
      : taskStateFromJSON(/^\d+$/.test(query.status) ? Number(query.status) : query.status),
  pageSize: integerParam('pageSize', query.pageSize),
  pageToken: query.pageToken ?? '',
  historyLength: integerParam('historyLength', query.historyLength),
  statusTimestampAfter: query.statusTimestampAfter || undefined,
  includeArtifacts: booleanParam('includeArtifacts', query.includeArtifacts),
});
