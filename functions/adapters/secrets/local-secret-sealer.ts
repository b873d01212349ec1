import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { SecretUnreadableError } from '../../core/errors.js';
import {
  type SealContext,
  type SecretSealer,
  sealedPayload,
  sealedValue,
} from '../../core/ports/secret-sealer.js';

const SCHEME = 'local';
const ALGORITHM = 'aes-256-gcm';
export const LOCAL_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * The context as authenticated data: its entries sorted by name, so `{a, b}` and `{b, a}` are
 * the same context, with the scheme in front so a payload cannot pass for another scheme's.
 */
const additionalData = (context: SealContext): Buffer =>
  Buffer.from(
    `${sealedValue(SCHEME, '')}${JSON.stringify(
      Object.entries(context).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    )}`,
    'utf8'
  );

/** A fresh random key, for a process that was given none (what it seals dies with it). */
export const randomLocalKey = (): Buffer => randomBytes(LOCAL_KEY_BYTES);

/**
 * AES-256-GCM with a key the operator holds (`TINY_HARNESS_PUSH_TOKEN_KEY`, or the key file
 * `npm start` keeps in its data directory): the sealer of the local runtime, where there is no
 * KMS. The context is GCM's authenticated data, so a value opens under its own context only.
 * Sealed form: `sealed:v1:local:<base64url(iv | tag | ciphertext)>`.
 */
export class LocalSecretSealer implements SecretSealer {
  readonly #key: Buffer;

  constructor(key: Uint8Array) {
    if (key.length !== LOCAL_KEY_BYTES) {
      throw new RangeError(`a local sealing key is ${LOCAL_KEY_BYTES} bytes, got ${key.length}`);
    }
    this.#key = Buffer.from(key);
  }

  async seal(plaintext: string, context: SealContext): Promise<string> {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(additionalData(context));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const payload = Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
    return sealedValue(SCHEME, payload.toString('base64url'));
  }

  async open(sealed: string, context: SealContext): Promise<string> {
    const payload = Buffer.from(sealedPayload(sealed, SCHEME), 'base64url');
    if (payload.length < IV_BYTES + TAG_BYTES) {
      throw new SecretUnreadableError('the sealed value is truncated');
    }
    const decipher = createDecipheriv(ALGORITHM, this.#key, payload.subarray(0, IV_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(additionalData(context));
    decipher.setAuthTag(payload.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      const plaintext = Buffer.concat([
        decipher.update(payload.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]);
      return plaintext.toString('utf8');
    } catch (error) {
      // GCM says only "unable to authenticate": a changed value, another key or another context.
      throw new SecretUnreadableError('the sealed value does not open here', { cause: error });
    }
  }
}
