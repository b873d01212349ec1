import type { APIGatewayProxyEvent } from 'aws-lambda';

/** A REST API proxy event as API Gateway delivers it, with the fields a test sets. */
export const apiGatewayEvent = (
  overrides: Partial<APIGatewayProxyEvent> = {}
): APIGatewayProxyEvent => ({
  httpMethod: 'POST',
  path: '/',
  resource: '/{proxy+}',
  headers: {},
  multiValueHeaders: {},
  queryStringParameters: null,
  multiValueQueryStringParameters: null,
  pathParameters: null,
  stageVariables: null,
  body: null,
  isBase64Encoded: false,
  requestContext: { stage: '' } as APIGatewayProxyEvent['requestContext'],
  ...overrides,
});
