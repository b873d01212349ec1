import { Readable } from 'node:stream';
import { SSE_HEADERS } from '@a2a-js/sdk';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { A2aError } from '../../service/a2a-errors.js';

/**
 * What the A2A function answers: a proxy result whose body is text, or a stream (SSE) that the
 * Lambda runtime's response streaming, or the local shim, sends as it is produced.
 */
export type A2aHttpResult = Omit<APIGatewayProxyResult, 'body'> & { body: string | Readable };

/** A request header, by case-insensitive name (API Gateway passes names as the client sent them). */
export const header = (event: APIGatewayProxyEvent, name: string): string | undefined => {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
};

/** The request body as text (API Gateway base64-encodes what it takes for binary). */
export const bodyOf = (event: APIGatewayProxyEvent): string =>
  event.isBase64Encoded
    ? Buffer.from(event.body ?? '', 'base64').toString('utf8')
    : (event.body ?? '');

export const JSON_CONTENT_TYPE = 'application/json';
/** What the HTTP+JSON binding answers with (A2A §5.3, the SDK's A2A_CONTENT_TYPE). */
export const A2A_CONTENT_TYPE = 'application/a2a+json';

/**
 * A request body must be JSON by its media type (§5.3, §9.1): `application/json` or
 * `application/a2a+json`, or none said. Anything else is ContentTypeNotSupported, before the
 * body is read.
 */
export const checkBodyMediaType = (contentType: string | undefined): void => {
  const mediaType = contentType?.split(';', 1)[0]?.trim().toLowerCase();
  if (
    mediaType === undefined ||
    mediaType === JSON_CONTENT_TYPE ||
    mediaType === A2A_CONTENT_TYPE
  ) {
    return;
  }
  throw new A2aError(
    'ContentTypeNotSupported',
    `a body must be ${A2A_CONTENT_TYPE} or ${JSON_CONTENT_TYPE}, not ${contentType}`
  );
};

/** A response whose body, when there is one, is JSON of the given content type. */
export const respond = (
  statusCode: number,
  contentType: string,
  body: unknown,
  headers: Record<string, string> = {}
): APIGatewayProxyResult =>
  body === undefined
    ? { statusCode, headers, body: '' }
    : {
        statusCode,
        headers: { 'Content-Type': contentType, ...headers },
        body: JSON.stringify(body),
      };

/**
 * An SSE response. `Connection` is left out of the SDK's headers: it is hop-by-hop, the business
 * of whoever holds the client's connection (API Gateway, the local shim), not of the function.
 */
export const respondStream = (
  frames: AsyncIterable<string>,
  headers: Record<string, string> = {}
): A2aHttpResult => {
  const { Connection: _hopByHop, ...sseHeaders } = SSE_HEADERS;
  return { statusCode: 200, headers: { ...sseHeaders, ...headers }, body: Readable.from(frames) };
};
