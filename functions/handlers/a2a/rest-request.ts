import { A2A_ERRORS, A2aError, errorDetails } from '../../service/a2a-errors.js';
import { checkBodyMediaType } from './http.js';
import { checkJsonDepth } from './json-depth.js';

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
  checkBodyMediaType(request.contentType);
  let parsed: unknown;
  try {
    parsed = JSON.parse(request.body);
  } catch {
    throw new A2aError('ParseError', 'the body is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalid('the body must be a JSON object');
  }
  checkJsonDepth(parsed, 'body');
  return parsed as Record<string, unknown>;
};

/** Query parameters that are the transport's, not the operation's (§3.6: the version). */
const TRANSPORT_PARAMETERS = new Set(['A2A-Version']);
/** The request fields a query carries as `true`/`false` text. */
const BOOLEAN_PARAMETERS = new Set(['includeArtifacts', 'include_artifacts']);

/**
 * The query string as request fields (§5.3: a GET's fields are its query parameters): booleans
 * are read from `true`/`false`, numbers stay text, which the request's schema reads as ProtoJSON
 * does. Every value is kept, the empty one too: an empty string field is the field's default,
 * while an empty number, boolean, enum or timestamp does not parse as one and is refused, never
 * read as absent.
 */
export const queryFields = (query: RestRequest['query']): Record<string, unknown> => {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || TRANSPORT_PARAMETERS.has(name)) continue;
    fields[name] =
      BOOLEAN_PARAMETERS.has(name) && (value === 'true' || value === 'false')
        ? value === 'true'
        : value;
  }
  return fields;
};

/**
 * The query parameters of a proxy event, one value each. API Gateway keeps only the last of a
 * repeated parameter in `queryStringParameters`; which one the client meant is not ours to
 * guess, so a parameter given twice is refused.
 */
export const queryOf = (event: {
  queryStringParameters: Record<string, string | undefined> | null;
  multiValueQueryStringParameters: Record<string, string[] | undefined> | null;
}): Record<string, string | undefined> => {
  const repeated = Object.entries(event.multiValueQueryStringParameters ?? {})
    .filter(([, values]) => (values?.length ?? 0) > 1)
    .map(([name]) => name);
  if (repeated.length > 0) {
    const description = 'is given more than once';
    throw new A2aError(
      'InvalidParams',
      `invalid params: ${repeated.map((name) => `${name} ${description}`).join('; ')}`,
      { violations: repeated.map((field) => ({ field, description })) }
    );
  }
  return event.queryStringParameters ?? {};
};

/**
 * The body's fields with one the path carries (`id` of `/tasks/{id}:cancel`): a body may repeat
 * it, never name another.
 */
export const withPathField = (
  fields: Record<string, unknown>,
  name: string,
  value: string
): Record<string, unknown> => {
  const given = fields[name];
  if (given !== undefined && given !== null && given !== '' && given !== value) {
    throw invalid(`${name} ${JSON.stringify(given)} is not the one the path names`);
  }
  return { ...fields, [name]: value };
};
