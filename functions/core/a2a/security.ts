/**
 * How the agent card says to authenticate (A2A §4.5, §7): the server authenticates every
 * request, and the public card names the schemes a client must use.
 *
 * In the cloud a client gets an access token from the Cognito user pool: an agent with the
 * OAuth 2.0 client-credentials grant at the pool's token URL, a person through any flow that
 * yields an access token with the A2A scope. Locally, an opaque bearer token from configuration.
 */
import type { SecurityRequirement, SecurityScheme } from '@a2a-js/sdk';

/** The Cognito resource server's identifier; the CDK stack creates it with this name. */
export const A2A_RESOURCE_SERVER = 'tiny-harness';
export const A2A_SCOPE_NAME = 'a2a';
/** The OAuth scope every A2A method requires in the cloud (`<resource server>/<scope>`). */
export const A2A_SCOPE = `${A2A_RESOURCE_SERVER}/${A2A_SCOPE_NAME}`;

/** The card's names for the schemes (keys of `securitySchemes`). */
export const SCHEME_NAMES = { oauth2: 'oauth2', bearer: 'bearer' } as const;

export interface CardSecurity {
  securitySchemes: Record<string, SecurityScheme>;
  securityRequirements: SecurityRequirement[];
}

export type CardSecurityOptions =
  /** Local: opaque tokens from TINY_HARNESS_BEARER_TOKENS. */
  | { mode: 'tokens' }
  /**
   * Cloud: Cognito access tokens. Without a token URL (not deployed by the stack) only the
   * bearer scheme is advertised, since a client could not run the grant anyway.
   */
  | { mode: 'cognito'; tokenUrl?: string | undefined; scope?: string | undefined };

export const bearerScheme = (options: {
  bearerFormat: string;
  description: string;
}): SecurityScheme => ({
  scheme: {
    $case: 'httpAuthSecurityScheme',
    value: {
      scheme: 'Bearer',
      bearerFormat: options.bearerFormat,
      description: options.description,
    },
  },
});

export const clientCredentialsScheme = (options: {
  tokenUrl: string;
  scopes: Record<string, string>;
  description: string;
}): SecurityScheme => ({
  scheme: {
    $case: 'oauth2SecurityScheme',
    value: {
      description: options.description,
      flows: {
        flow: {
          $case: 'clientCredentials',
          // Client credentials issue no refresh tokens: a client asks again when one expires.
          value: { tokenUrl: options.tokenUrl, refreshUrl: '', scopes: { ...options.scopes } },
        },
      },
      oauth2MetadataUrl: '',
    },
  },
});

/** One alternative of the card's requirements: this scheme, with these scopes. */
const requirement = (scheme: string, scopes: readonly string[]): SecurityRequirement => ({
  schemes: { [scheme]: { list: [...scopes] } },
});

/**
 * The card's `securitySchemes` and `securityRequirements` (alternatives: any one suffices),
 * for `buildAgentCard`'s options.
 */
export const cardSecurity = (options: CardSecurityOptions): CardSecurity => {
  if (options.mode === 'tokens') {
    return {
      securitySchemes: {
        [SCHEME_NAMES.bearer]: bearerScheme({
          bearerFormat: '',
          description: 'A bearer token issued by the operator of this deployment.',
        }),
      },
      securityRequirements: [requirement(SCHEME_NAMES.bearer, [])],
    };
  }
  const scope = options.scope ?? A2A_SCOPE;
  const bearer = bearerScheme({
    bearerFormat: 'JWT',
    description: `An access token from this deployment's Cognito user pool, with the scope ${scope}.`,
  });
  if (options.tokenUrl === undefined) {
    return {
      securitySchemes: { [SCHEME_NAMES.bearer]: bearer },
      securityRequirements: [requirement(SCHEME_NAMES.bearer, [])],
    };
  }
  return {
    securitySchemes: {
      [SCHEME_NAMES.oauth2]: clientCredentialsScheme({
        tokenUrl: options.tokenUrl,
        scopes: { [scope]: 'Call the A2A endpoint: send messages, read and cancel your tasks.' },
        description: 'For agents: the OAuth 2.0 client-credentials grant at the token URL.',
      }),
      [SCHEME_NAMES.bearer]: bearer,
    },
    securityRequirements: [
      requirement(SCHEME_NAMES.oauth2, [scope]),
      requirement(SCHEME_NAMES.bearer, []),
    ],
  };
};
