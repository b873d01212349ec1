import * as z from 'zod';

/**
 * What the web renderer reads at `/config.json` before anything else: where the agent is and how
 * to sign in. `npm start` serves it with the local bearer token (to loopback pages only); the CDK
 * app deploys it beside the page with the API URL and the user pool's hosted sign-in.
 */
export const WebConfigSchema = z
  .strictObject({
    /** The A2A base URL: the agent card is at `<api_url>/.well-known/agent-card.json`. */
    api_url: z.string().min(1),
    auth: z.discriminatedUnion('kind', [
      z
        .strictObject({
          kind: z.literal('token'),
          /** A bearer token of TINY_HARNESS_BEARER_TOKENS. */
          token: z.string().min(1),
          /** The participant the token is, when known. */
          participant: z.string().nullable(),
        })
        .describe('A bearer token given by npm start.'),
      z
        .strictObject({
          kind: z.literal('cognito'),
          /** The user pool's domain, `https://<prefix>.auth.<region>.amazoncognito.com`. */
          domain: z.string().min(1),
          /** The web app client: authorization code with PKCE, no secret. */
          client_id: z.string().min(1),
          scopes: z.array(z.string().min(1)).min(1),
          /** The access-token claim that names the participant (TINY_HARNESS_PARTICIPANT_CLAIM). */
          participant_claim: z.string().min(1),
        })
        .describe("Sign-in with the user pool's hosted UI (OAuth 2.0 authorization code, PKCE)."),
    ]),
  })
  .describe('The web renderer configuration, served at /config.json.');
export type WebConfig = z.infer<typeof WebConfigSchema>;
