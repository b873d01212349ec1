/**
 * The A2A request size limit: 1 MiB. API Gateway accepts up to 10 MB, so the A2A function checks
 * the size itself, first, before anything is parsed or stored (the local shim refuses earlier,
 * before the handler runs).
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

export const MAX_REQUEST_BYTES = 1024 * 1024;

const contentLength = (event: APIGatewayProxyEvent): number | undefined => {
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === 'content-length' && value !== undefined && /^\d+$/.test(value)) {
      return Number(value);
    }
  }
  return undefined;
};

/**
 * Whether the request's body is over `limit` bytes. A declared Content-Length over the limit is
 * enough to refuse; a smaller one is not trusted, the body itself is measured (decoded bytes
 * when API Gateway passed it base64-encoded).
 */
export const isTooLarge = (event: APIGatewayProxyEvent, limit = MAX_REQUEST_BYTES): boolean => {
  const declared = contentLength(event);
  if (declared !== undefined && declared > limit) return true;
  const body = event.body ?? '';
  const bytes = event.isBase64Encoded
    ? Buffer.byteLength(body, 'base64')
    : Buffer.byteLength(body, 'utf8');
  return bytes > limit;
};

/** The 413 answer: the same body the local shim gives. */
export const payloadTooLargeResponse = (limit = MAX_REQUEST_BYTES): APIGatewayProxyResult => ({
  statusCode: 413,
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ error: 'request body too large', limit }),
});
