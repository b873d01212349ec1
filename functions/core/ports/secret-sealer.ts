import { SecretUnreadableError } from '../errors.js';

/** Where a sealed secret belongs (e.g. `{ taskId, configId }`); not secret, but bound to it. */
export type SealContext = Readonly<Record<string, string>>;

/**
 * Seals the secrets a task keeps for later (push-notification tokens and credentials, which
 * must be encrypted at rest), so a table item, a backup or an export shows no usable secret.
 *
 * - `seal` returns a string starting with SEALED_PREFIX (the format's version, so a later format
 *   can be told apart), which only `open` with the same `context` turns back into `plaintext`.
 * - `open` MUST throw `SecretUnreadableError` for a value it cannot open: not sealed, changed,
 *   sealed by another sealer or key, or opened with another context (a sealed token copied onto
 *   another config or task). Any other failure (the key service unreachable) is thrown as it is,
 *   so the caller may retry it.
 */
export interface SecretSealer {
  seal(plaintext: string, context: SealContext): Promise<string>;
  open(sealed: string, context: SealContext): Promise<string>;
}

/** Every sealed value starts with this, then the sealer's scheme and `:`. */
export const SEALED_PREFIX = 'sealed:v1:';

/** `sealed:v1:<scheme>:<payload>`. */
export const sealedValue = (scheme: string, payload: string): string =>
  `${SEALED_PREFIX}${scheme}:${payload}`;

/** The payload of a value sealed by `scheme`; anything else is unreadable. */
export const sealedPayload = (sealed: string, scheme: string): string => {
  const prefix = `${SEALED_PREFIX}${scheme}:`;
  if (!sealed.startsWith(SEALED_PREFIX)) {
    throw new SecretUnreadableError('the value is not sealed');
  }
  if (!sealed.startsWith(prefix)) {
    throw new SecretUnreadableError(`the value was not sealed by the ${scheme} sealer`);
  }
  return sealed.slice(prefix.length);
};
