/**
 * Test identities: every request is authenticated with a bearer token, and the local runtime maps
 * each token to its participant (TINY_HARNESS_BEARER_TOKENS).
 */
const PARTICIPANTS = ['alice', 'bob', 'carol', 'mallory', 'stranger', 'you'] as const;

export const tokenFor = (participantId: string): string => `test-token-${participantId}`;

/** A TINY_HARNESS_BEARER_TOKENS value that knows these participants. */
export const bearerTokensFor = (participantIds: readonly string[]): string =>
  participantIds.map((p) => `${tokenFor(p)}=${p}`).join(',');

/** The TINY_HARNESS_BEARER_TOKENS value that knows every usual test participant. */
export const TEST_BEARER_TOKENS = bearerTokensFor(PARTICIPANTS);

export const authorizationFor = (participantId: string) => ({
  Authorization: `Bearer ${tokenFor(participantId)}`,
});
