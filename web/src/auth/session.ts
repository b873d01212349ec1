/** Who the page acts as: a bearer token for every A2A call, and the participant it is. */
export interface Session {
  /** The participant id, as far as the page can tell; null when unknown. */
  participant: string | null;
  /** How the identity was established, for the header. */
  kind: 'token' | 'cognito';
  /** A valid access token (refreshed when needed). */
  accessToken(): Promise<string>;
  /**
   * Leave: forget the token (and, with Cognito, revoke the refresh token, then sign out of the
   * hosted UI). The page goes away when it is done.
   */
  signOut(): void;
}

/** A call was refused for its credentials (401): the session must be renewed. */
export class SignInRequired extends Error {
  override readonly name = 'SignInRequired';
}
