import { randomBytes } from 'node:crypto';
import { DecryptCommand, EncryptCommand, type KMSClient } from '@aws-sdk/client-kms';
import { describe, expect, it } from 'vitest';
import { KmsSecretSealer } from '../../../functions/adapters/secrets/kms-secret-sealer.js';
import {
  LocalSecretSealer,
  randomLocalKey,
} from '../../../functions/adapters/secrets/local-secret-sealer.js';
import { SecretUnreadableError } from '../../../functions/core/errors.js';
import { SEALED_PREFIX, type SecretSealer } from '../../../functions/core/ports/secret-sealer.js';

const CONTEXT = { taskId: 'task-1', configId: 'hook-1' };

const named = (name: string) => Object.assign(new Error(name), { name });

/** An encryption context is a map: its key order means nothing. */
const contextKey = (context: Record<string, string> = {}) =>
  JSON.stringify(Object.entries(context).sort(([a], [b]) => a.localeCompare(b)));

/**
 * KMS as the sealer sees it: Encrypt keeps the plaintext with its key and encryption context and
 * returns an opaque blob; Decrypt gives it back only for the same blob, key and context, and
 * otherwise answers as KMS does (InvalidCiphertextException, IncorrectKeyException).
 */
class FakeKms {
  readonly commands: Array<EncryptCommand | DecryptCommand> = [];
  failNext: Error | undefined;
  readonly #blobs = new Map<string, { keyId: string; plaintext: Buffer; context: string }>();

  async send(command: EncryptCommand | DecryptCommand): Promise<unknown> {
    this.commands.push(command);
    const failure = this.failNext;
    this.failNext = undefined;
    if (failure !== undefined) throw failure;
    if (command instanceof EncryptCommand) {
      const blob = randomBytes(48);
      this.#blobs.set(blob.toString('hex'), {
        keyId: command.input.KeyId ?? '',
        plaintext: Buffer.from(command.input.Plaintext ?? new Uint8Array()),
        context: contextKey(command.input.EncryptionContext),
      });
      return { CiphertextBlob: new Uint8Array(blob), KeyId: command.input.KeyId };
    }
    const stored = this.#blobs.get(Buffer.from(command.input.CiphertextBlob ?? []).toString('hex'));
    if (stored === undefined) throw named('InvalidCiphertextException');
    if (stored.keyId !== command.input.KeyId) throw named('IncorrectKeyException');
    if (stored.context !== contextKey(command.input.EncryptionContext)) {
      throw named('InvalidCiphertextException');
    }
    return { Plaintext: new Uint8Array(stored.plaintext) };
  }
}

const KEY_ARN = 'arn:aws:kms:us-east-1:000000000000:key/1234abcd-12ab-34cd-56ef-1234567890ab';

const kmsSealer = (kms = new FakeKms(), keyId = KEY_ARN) => ({
  kms,
  sealer: new KmsSecretSealer({ client: kms as unknown as KMSClient, keyId }),
});

/** Flips one character of the payload (never the prefix). */
const tamper = (sealed: string): string => {
  const index = sealed.length - 5;
  const swapped = sealed[index] === 'A' ? 'B' : 'A';
  return `${sealed.slice(0, index)}${swapped}${sealed.slice(index + 1)}`;
};

describe.each([
  ['LocalSecretSealer', () => new LocalSecretSealer(randomLocalKey()), 'local'],
  ['KmsSecretSealer', () => kmsSealer().sealer, 'kms'],
] as Array<[string, () => SecretSealer, string]>)('%s', (_, make, scheme) => {
  it('round-trips a secret, and its sealed form is versioned and hides it', async () => {
    const sealer = make();
    const sealed = await sealer.seal('tok-123 ünïcode', CONTEXT);

    expect(sealed.startsWith(`${SEALED_PREFIX}${scheme}:`)).toBe(true);
    expect(sealed).not.toContain('tok-123');
    expect(await sealer.open(sealed, CONTEXT)).toBe('tok-123 ünïcode');
    // The context's key order does not matter: it is the same context.
    expect(await sealer.open(sealed, { configId: 'hook-1', taskId: 'task-1' })).toBe(
      'tok-123 ünïcode'
    );
  });

  it('seals the same secret differently each time', async () => {
    const sealer = make();
    expect(await sealer.seal('same', CONTEXT)).not.toBe(await sealer.seal('same', CONTEXT));
  });

  it('refuses a changed value with SecretUnreadableError', async () => {
    const sealer = make();
    const sealed = await sealer.seal('tok-123', CONTEXT);
    await expect(sealer.open(tamper(sealed), CONTEXT)).rejects.toBeInstanceOf(
      SecretUnreadableError
    );
  });

  it('refuses another context: a token copied onto another config or task does not open', async () => {
    const sealer = make();
    const sealed = await sealer.seal('tok-123', CONTEXT);
    for (const context of [
      { ...CONTEXT, configId: 'hook-2' },
      { ...CONTEXT, taskId: 'task-2' },
      { taskId: 'task-1' },
    ]) {
      await expect(sealer.open(sealed, context)).rejects.toMatchObject({
        name: 'SecretUnreadableError',
        code: 'secret.unreadable',
      });
    }
  });

  it('refuses a value that is not sealed, or sealed by another scheme', async () => {
    const sealer = make();
    await expect(sealer.open('tok-123', CONTEXT)).rejects.toThrow(/not sealed/);
    const other = scheme === 'local' ? 'kms' : 'local';
    await expect(sealer.open(`${SEALED_PREFIX}${other}:AAAA`, CONTEXT)).rejects.toThrow(
      new RegExp(`not sealed by the ${scheme} sealer`)
    );
  });
});

describe('LocalSecretSealer', () => {
  it('opens only under the key it sealed with', async () => {
    const key = randomLocalKey();
    const sealed = await new LocalSecretSealer(key).seal('tok-123', CONTEXT);
    expect(await new LocalSecretSealer(Buffer.from(key)).open(sealed, CONTEXT)).toBe('tok-123');
    await expect(
      new LocalSecretSealer(randomLocalKey()).open(sealed, CONTEXT)
    ).rejects.toBeInstanceOf(SecretUnreadableError);
  });

  it('refuses a truncated value and a key that is not 32 bytes', async () => {
    const sealer = new LocalSecretSealer(randomLocalKey());
    await expect(sealer.open(`${SEALED_PREFIX}local:AAAA`, CONTEXT)).rejects.toThrow(/truncated/);
    expect(() => new LocalSecretSealer(randomBytes(16))).toThrow(/32 bytes/);
  });
});

describe('KmsSecretSealer', () => {
  it('encrypts and decrypts with the configured key and the context as encryption context', async () => {
    const { kms, sealer } = kmsSealer();
    await sealer.open(await sealer.seal('tok-123', CONTEXT), CONTEXT);

    const [encrypt, decrypt] = kms.commands;
    expect(encrypt).toBeInstanceOf(EncryptCommand);
    expect(encrypt?.input).toMatchObject({ KeyId: KEY_ARN, EncryptionContext: CONTEXT });
    expect(decrypt).toBeInstanceOf(DecryptCommand);
    expect(decrypt?.input).toMatchObject({ KeyId: KEY_ARN, EncryptionContext: CONTEXT });
  });

  it('refuses a value sealed under another key with SecretUnreadableError', async () => {
    const kms = new FakeKms();
    const sealed = await kmsSealer(kms, 'alias/one').sealer.seal('tok-123', CONTEXT);
    await expect(kmsSealer(kms, 'alias/two').sealer.open(sealed, CONTEXT)).rejects.toBeInstanceOf(
      SecretUnreadableError
    );
  });

  it('passes on what is not the value’s fault (throttling, a disabled key): a retry may succeed', async () => {
    const { kms, sealer } = kmsSealer();
    const sealed = await sealer.seal('tok-123', CONTEXT);
    kms.failNext = named('ThrottlingException');
    const error = await sealer.open(sealed, CONTEXT).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(SecretUnreadableError);
    expect((error as Error).name).toBe('ThrottlingException');
  });
});
