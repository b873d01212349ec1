/**
 * Under `npm start`: the bearer token the page was given, or another one the user pasted (to act
 * as another participant, e.g. a reviewer), kept for this browser tab only.
 */
import type { Session } from './session.js';

const OVERRIDE_KEY = 'tiny-harness.token';

export interface TokenOverride {
  token: string;
  participant: string | null;
}

export const readOverride = (storage: Storage): TokenOverride | undefined => {
  try {
    const value = JSON.parse(storage.getItem(OVERRIDE_KEY) ?? 'null') as TokenOverride | null;
    return typeof value?.token === 'string' && value.token !== '' ? value : undefined;
  } catch {
    return undefined;
  }
};

export const writeOverride = (storage: Storage, override: TokenOverride | undefined) => {
  if (override === undefined) storage.removeItem(OVERRIDE_KEY);
  else storage.setItem(OVERRIDE_KEY, JSON.stringify(override));
};

export const tokenSession = (
  given: { token: string; participant: string | null },
  storage: Storage,
  onSignOut: () => void
): Session => {
  const override = readOverride(storage);
  const current = override ?? given;
  return {
    kind: 'token',
    participant: current.participant,
    accessToken: async () => current.token,
    signOut: () => {
      writeOverride(storage, undefined);
      onSignOut();
    },
  };
};
