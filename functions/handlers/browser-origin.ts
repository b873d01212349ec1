/**
 * The web renderer in the cloud is served from its own origin (CloudFront), so the browser asks
 * the API with CORS: every answer of the A2A function to that origin, refusals included (401,
 * 413, 429), says it may be read. API Gateway answers the preflight (OPTIONS) itself
 * (cdk/constructs/a2a-api.ts). Only the configured origin (TINY_HARNESS_WEB_ORIGIN) is named;
 * without one, or for another origin, nothing is added and the browser refuses to read the answer.
 */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { A2aHttpResult } from './a2a/http.js';
import { header } from './a2a/http.js';

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<A2aHttpResult>;

/** Response headers a page may read besides the CORS-safelisted ones. */
export const EXPOSED_HEADERS = ['A2A-Extensions', 'Retry-After', 'WWW-Authenticate'] as const;

export const corsHeaders = (
  allowed: string | undefined,
  requestOrigin: string | undefined
): Record<string, string> => {
  if (allowed === undefined) return {};
  const headers: Record<string, string> = { Vary: 'Origin' };
  if (requestOrigin !== allowed) return headers;
  return {
    ...headers,
    'Access-Control-Allow-Origin': allowed,
    'Access-Control-Expose-Headers': EXPOSED_HEADERS.join(', '),
  };
};

export const withBrowserOrigin =
  (allowed: () => string | undefined, handler: Handler): Handler =>
  async (event, context) => {
    const result = await handler(event, context);
    const cors = corsHeaders(allowed(), header(event, 'origin'));
    if (Object.keys(cors).length === 0) return result;
    return { ...result, headers: { ...result.headers, ...cors } };
  };
