import { DecryptCommand, EncryptCommand, type KMSClient } from '@aws-sdk/client-kms';
import { SecretUnreadableError } from '../../core/errors.js';
import {
  type SealContext,
  type SecretSealer,
  sealedPayload,
  sealedValue,
} from '../../core/ports/secret-sealer.js';

const SCHEME = 'kms';

/**
 * What KMS answers for a ciphertext it will not decrypt: changed, of another key, or with
 * another encryption context. Anything else (throttling, a disabled key, the network) is not the
 * value's fault and is thrown as it is.
 */
const UNREADABLE = new Set(['InvalidCiphertextException', 'IncorrectKeyException']);

export interface KmsSecretSealerOptions {
  client: Pick<KMSClient, 'send'>;
  /** The key's id, ARN or alias; decryption is pinned to it too. */
  keyId: string;
}

/**
 * KMS Encrypt and Decrypt with the context as the encryption context (authenticated, and in
 * CloudTrail: an auditor sees which task and config each decryption was for). A push token is
 * at most a few KiB, under Encrypt's 4096-byte limit, so no envelope encryption is needed.
 * Sealed form: `sealed:v1:kms:<base64(CiphertextBlob)>`.
 */
export class KmsSecretSealer implements SecretSealer {
  readonly #client: Pick<KMSClient, 'send'>;
  readonly #keyId: string;

  constructor(options: KmsSecretSealerOptions) {
    this.#client = options.client;
    this.#keyId = options.keyId;
  }

  async seal(plaintext: string, context: SealContext): Promise<string> {
    const output = await this.#client.send(
      new EncryptCommand({
        KeyId: this.#keyId,
        Plaintext: Buffer.from(plaintext, 'utf8'),
        EncryptionContext: { ...context },
      })
    );
    if (output.CiphertextBlob === undefined) throw new Error('KMS Encrypt returned no ciphertext');
    return sealedValue(SCHEME, Buffer.from(output.CiphertextBlob).toString('base64'));
  }

  async open(sealed: string, context: SealContext): Promise<string> {
    const ciphertext = Buffer.from(sealedPayload(sealed, SCHEME), 'base64');
    try {
      const output = await this.#client.send(
        new DecryptCommand({
          KeyId: this.#keyId,
          CiphertextBlob: ciphertext,
          EncryptionContext: { ...context },
        })
      );
      if (output.Plaintext === undefined) throw new Error('KMS Decrypt returned no plaintext');
      return Buffer.from(output.Plaintext).toString('utf8');
    } catch (error) {
      if (UNREADABLE.has((error as Error).name)) {
        throw new SecretUnreadableError(
          'the sealed value does not open with this key and context',
          {
            cause: error,
          }
        );
      }
      throw error;
    }
  }
}
