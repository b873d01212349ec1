import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KmsSecretSealer } from '../../../functions/adapters/secrets/kms-secret-sealer.js';
import { LocalSecretSealer } from '../../../functions/adapters/secrets/local-secret-sealer.js';
import {
  configuredSecrets,
  readRuntimeConfig,
} from '../../../functions/composition/runtime-config.js';
import { buildSealer } from '../../../functions/composition/sealer.js';
import { STATE_MACHINE_ARN } from '../support.js';

const configWith = (env: Record<string, string>) =>
  readRuntimeConfig({
    TINY_HARNESS_TABLE: 't',
    TINY_HARNESS_STATE_MACHINE_ARN: STATE_MACHINE_ARN,
    ...env,
  });

const CONTEXT = { taskId: 't', configId: 'c' };

describe('the push secret sealer, from configuration', () => {
  it('is KMS when the stack names a key', () => {
    const config = configWith({ TINY_HARNESS_PUSH_KMS_KEY_ID: 'alias/push' });
    expect(buildSealer(config)).toBeInstanceOf(KmsSecretSealer);
  });

  it('is the local sealer with the configured key: what one process seals, the next opens', async () => {
    const key = randomBytes(32).toString('base64');
    const config = configWith({ TINY_HARNESS_PUSH_TOKEN_KEY: key });
    const sealed = await buildSealer(config).seal('tok', CONTEXT);

    expect(buildSealer(config)).toBeInstanceOf(LocalSecretSealer);
    expect(await buildSealer(config).open(sealed, CONTEXT)).toBe('tok');
    // The key is a secret the logger masks.
    expect(configuredSecrets(config)).toContain(key);
  });

  it('is a local sealer with a key of its own when none is configured', async () => {
    const config = configWith({});
    const sealed = await buildSealer(config).seal('tok', CONTEXT);
    await expect(buildSealer(config).open(sealed, CONTEXT)).rejects.toMatchObject({
      code: 'secret.unreadable',
    });
  });

  it.each([
    ['too short', randomBytes(16).toString('base64')],
    ['not base64', '!'.repeat(44)],
  ])('refuses a key that is %s at start', (_, key) => {
    expect(() => configWith({ TINY_HARNESS_PUSH_TOKEN_KEY: key })).toThrow(
      /TINY_HARNESS_PUSH_TOKEN_KEY/
    );
  });
});
