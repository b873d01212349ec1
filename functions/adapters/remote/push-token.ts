import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The token a remote agent sends with each push for one child (`X-A2A-Notification-Token`): 256
 * random bits, given to the agent once and kept by us only as its SHA-256, so the store never
 * holds a token that would let anyone push news into a parent.
 */
export const newPushToken = (): string => randomBytes(32).toString('base64url');

export const tokenHashOf = (token: string): string =>
  createHash('sha256').update(token, 'utf8').digest('hex');

/** Whether a pushed token is the one whose hash the child's link keeps (in constant time). */
export const tokenMatches = (token: string | undefined, hash: string | null): boolean => {
  if (token === undefined || token === '' || hash === null) return false;
  const given = Buffer.from(tokenHashOf(token), 'hex');
  const kept = Buffer.from(hash, 'hex');
  return given.length === kept.length && timingSafeEqual(given, kept);
};
