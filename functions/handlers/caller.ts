/**
 * Who is calling, read off an API Gateway request: the `Authorization` header and the claims
 * the Cognito authorizer verified go to the service's identity rules (`service/identity.ts`);
 * a refusal is answered here, as HTTP.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { type CallerResult, type IdentitySettings, resolveCaller } from '../service/identity.js';

const header = (event: APIGatewayProxyEvent, name: string): string | undefined => {
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === name && value !== undefined) return value;
  }
  return undefined;
};

/** The caller of `event`, or why it is refused (401). */
export const callerOf = (event: APIGatewayProxyEvent, settings: IdentitySettings): CallerResult =>
  resolveCaller(
    {
      authorization: header(event, 'authorization'),
      claims: (event.requestContext?.authorizer as { claims?: unknown } | null | undefined)?.claims,
    },
    settings
  );

/** The 401 for a refused caller, with its challenge; the reason names no token. */
export const unauthorizedResponse = (
  refused: Extract<CallerResult, { ok: false }>
): APIGatewayProxyResult => ({
  statusCode: 401,
  headers: { 'Content-Type': 'application/json', 'WWW-Authenticate': refused.challenge },
  body: JSON.stringify({ error: 'unauthorized', message: refused.reason }),
});

const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/** The one route served without authentication: the public agent card (A2A §8.2). */
export const isPublicRoute = (event: APIGatewayProxyEvent): boolean =>
  event.httpMethod === 'GET' && event.path.endsWith(AGENT_CARD_PATH);
