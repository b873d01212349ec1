import { describe, expect, it } from 'vitest';
import { buildAgentCard, cardToJson } from '../../../functions/core/a2a/agent-card.js';
import { A2A_SCOPE, cardSecurity } from '../../../functions/core/a2a/security.js';

const TOKEN_URL = 'https://harness-prod-123456789012.auth.eu-west-1.amazoncognito.com/oauth2/token';

/** The card as served: its JSON text, parsed. */
const served = (security: ReturnType<typeof cardSecurity>) =>
  JSON.parse(
    JSON.stringify(cardToJson(buildAgentCard({ baseUrl: 'https://a.example', ...security })))
  ) as { securitySchemes: Record<string, unknown>; securityRequirements: unknown[] };

describe('the card security schemes', () => {
  it('in the cloud: OAuth 2.0 client credentials at the token URL, or a JWT bearer', () => {
    const card = served(cardSecurity({ mode: 'cognito', tokenUrl: TOKEN_URL }));
    expect(card.securitySchemes).toEqual({
      oauth2: {
        oauth2SecurityScheme: {
          description: expect.stringContaining('client-credentials'),
          flows: {
            clientCredentials: {
              tokenUrl: TOKEN_URL,
              scopes: { [A2A_SCOPE]: expect.any(String) },
            },
          },
        },
      },
      bearer: {
        httpAuthSecurityScheme: {
          scheme: 'Bearer',
          bearerFormat: 'JWT',
          description: expect.stringContaining(A2A_SCOPE),
        },
      },
    });
    // Alternatives: either scheme alone satisfies the card.
    expect(card.securityRequirements).toEqual([
      { schemes: { oauth2: { list: [A2A_SCOPE] } } },
      { schemes: { bearer: {} } },
    ]);
  });

  it('in the cloud without a token URL: the bearer scheme alone', () => {
    const card = served(cardSecurity({ mode: 'cognito' }));
    expect(Object.keys(card.securitySchemes)).toEqual(['bearer']);
    expect(card.securityRequirements).toEqual([{ schemes: { bearer: {} } }]);
  });

  it('locally: an opaque bearer token', () => {
    const card = served(cardSecurity({ mode: 'tokens' }));
    expect(card.securitySchemes).toEqual({
      bearer: {
        httpAuthSecurityScheme: { scheme: 'Bearer', description: expect.any(String) },
      },
    });
    expect(card.securityRequirements).toEqual([{ schemes: { bearer: {} } }]);
  });

  it('the scope is the resource server and scope the stack creates', () => {
    expect(A2A_SCOPE).toBe('tiny-harness/a2a');
  });
});
